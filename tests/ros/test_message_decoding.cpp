// Decoding of the layouts real drivers publish, time-unit detection, and every failure case.
// Requirements: R-PRE-2 (ms offsets from the frame start), issue #3 decoding rules.

#include <cmath>
#include <cstring>
#include <limits>

#include <gtest/gtest.h>

#include <asuka_ros/message_decoding.hpp>
#include <asuka_ros/message_encoding.hpp>
#include <asuka_ros/asuka_ros.hpp>
#include <asuka_ros/bounded_path.hpp>
#include <asuka/config/config.hpp>

#include "ros_test_support.hpp"

namespace asuka_ros {
namespace {

using test::F32;
using test::F64;
using test::U16;
using test::U32;
using test::U8;
using test::make_cloud;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<float> offsets(const asuka::LidarFrame& frame) {
  std::vector<float> out;
  for (const auto& p : frame.points) out.push_back(p.offset_ms);
  return out;
}

void expect_offsets(const asuka::LidarFrame& frame, const std::vector<float>& expected, float tolerance = 1e-3f) {
  const auto actual = offsets(frame);
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(actual[i], expected[i], tolerance) << "point " << i;
}

TEST(DecodeTest, R_PRE_2_LivoxPointXYZRTLTAbsoluteNanoseconds) {
  // x y z intensity tag line timestamp(f64, absolute ns)
  const double t0 = 1700000000.0e9;
  const auto msg = make_cloud(1700000000.0, {{"x", F32}, {"y", F32}, {"z", F32}, {"intensity", F32}, {"tag", U8}, {"line", U8}, {"timestamp", F64}},
                              {{1, 0, 0, 10, 0x10, 0, t0 + 2e6}, {2, 0, 0, 20, 0, 3, t0}, {3, 0, 0, 30, 0, 5, t0 + 99.5e6}});
  CloudDecoder decoder(asuka::LidarType::LIVOX, {});
  const auto out = decoder.decode(msg);
  ASSERT_TRUE(out.frame) << out.error->message;
  EXPECT_NEAR(out.frame->stamp, 1700000000.0, 1e-6);  // the earliest point, not the header
  expect_offsets(*out.frame, {2.0f, 0.0f, 99.5f});
  EXPECT_EQ(out.frame->points[1].line, 3);
  EXPECT_EQ(out.frame->points[0].tag, 0x10);
  EXPECT_FLOAT_EQ(out.frame->points[2].intensity, 30.0f);
  ASSERT_TRUE(decoder.convention());
  EXPECT_EQ(decoder.convention()->unit, TimeUnit::NANOSECONDS);
  EXPECT_EQ(decoder.convention()->reference, TimeReference::ABSOLUTE);
  EXPECT_TRUE(decoder.take_new_convention());
  EXPECT_FALSE(decoder.take_new_convention());  // logged once
}

TEST(DecodeTest, R_PRE_2_VelodyneRelativeSecondsWithHeaderAtScanEnd) {
  // time f32 s relative to the header, negative: the header marks the last packet.
  const auto msg = make_cloud(100.1, {{"x", F32}, {"y", F32}, {"z", F32}, {"intensity", F32}, {"ring", U16}, {"time", F32}},
                              {{1, 0, 0, 5, 0, -0.1}, {2, 0, 0, 5, 7, -0.05}, {3, 0, 0, 5, 15, 0.0}});
  CloudDecoder decoder(asuka::LidarType::VELODYNE, {});
  const auto out = decoder.decode(msg);
  ASSERT_TRUE(out.frame);
  EXPECT_NEAR(out.frame->stamp, 100.0, 1e-6);
  expect_offsets(*out.frame, {0.0f, 50.0f, 100.0f});
  EXPECT_EQ(out.frame->points[2].ring, 15);
  EXPECT_EQ(decoder.convention()->unit, TimeUnit::SECONDS);
  EXPECT_EQ(decoder.convention()->reference, TimeReference::RELATIVE);
}

TEST(DecodeTest, R_PRE_2_OusterU32NanosecondsFromScanStart) {
  const auto msg = make_cloud(50.0, {{"x", F32}, {"y", F32}, {"z", F32}, {"intensity", F32}, {"t", U32}, {"reflectivity", U16}, {"ring", U16}},
                              {{1, 0, 0, 5, 0, 1, 0}, {2, 0, 0, 5, 49000000, 1, 63}, {3, 0, 0, 5, 99000000, 1, 1}});
  CloudDecoder decoder(asuka::LidarType::OUSTER, {});
  const auto out = decoder.decode(msg);
  ASSERT_TRUE(out.frame);
  EXPECT_NEAR(out.frame->stamp, 50.0, 1e-6);
  expect_offsets(*out.frame, {0.0f, 49.0f, 99.0f});
  EXPECT_EQ(decoder.convention()->unit, TimeUnit::NANOSECONDS);
  EXPECT_EQ(decoder.convention()->reference, TimeReference::RELATIVE);
}

TEST(DecodeTest, R_PRE_2_RobosenseAndHesaiAbsoluteSeconds) {
  for (auto type : {asuka::LidarType::ROBOSENSE, asuka::LidarType::HESAI}) {
    const auto msg = make_cloud(1650000000.1, {{"x", F32}, {"y", F32}, {"z", F32}, {"intensity", F32}, {"ring", U16}, {"timestamp", F64}},
                                {{1, 0, 0, 5, 0, 1650000000.0}, {2, 0, 0, 5, 1, 1650000000.025}, {3, 0, 0, 5, 2, 1650000000.1}});
    CloudDecoder decoder(type, {});
    const auto out = decoder.decode(msg);
    ASSERT_TRUE(out.frame);
    EXPECT_NEAR(out.frame->stamp, 1650000000.0, 1e-6);
    expect_offsets(*out.frame, {0.0f, 25.0f, 100.0f}, 1e-2f);
    EXPECT_EQ(decoder.convention()->unit, TimeUnit::SECONDS);
    EXPECT_EQ(decoder.convention()->reference, TimeReference::ABSOLUTE);
  }
}

TEST(DecodeTest, TimeUnitDetectionForEachUnit) {
  // Relative offsets of a 0.1 s sweep, written in each unit.
  const struct {
    double scale;
    TimeUnit unit;
  } cases[] = {{1.0, TimeUnit::SECONDS}, {1e3, TimeUnit::MILLISECONDS}, {1e6, TimeUnit::MICROSECONDS}, {1e9, TimeUnit::NANOSECONDS}};
  for (const auto& c : cases) {
    const auto conv = detect_point_time(1700000000.0, 0.0, 0.1 * c.scale, {});
    EXPECT_EQ(conv.unit, c.unit) << conv.reason;
    EXPECT_EQ(conv.reference, TimeReference::RELATIVE) << conv.reason;
    const auto absolute = detect_point_time(1700000000.0, 1700000000.0 * c.scale, 1700000000.1 * c.scale, {});
    EXPECT_EQ(absolute.unit, c.unit) << absolute.reason;
    EXPECT_EQ(absolute.reference, TimeReference::ABSOLUTE) << absolute.reason;
  }
  // Simulator time near zero: absolute seconds 5.0..5.1 with header 5.0 are absolute.
  EXPECT_EQ(detect_point_time(5.0, 5.0, 5.1, {}).reference, TimeReference::ABSOLUTE);
  EXPECT_EQ(detect_point_time(5.0, 0.0, 0.1, {}).reference, TimeReference::RELATIVE);
}

TEST(DecodeTest, ForcedUnitAndReferenceWin) {
  PointTimeOptions options;
  options.unit = TimeUnit::MICROSECONDS;  // the values look like ms, but the config says us
  options.reference = TimeReference::RELATIVE;
  const auto conv = detect_point_time(10.0, 0.0, 100.0, options);
  EXPECT_EQ(conv.unit, TimeUnit::MICROSECONDS);
  EXPECT_NE(conv.reason.find("forced"), std::string::npos);

  options.field = "stamp_us";
  const auto msg = make_cloud(10.0, {{"x", F32}, {"y", F32}, {"z", F32}, {"stamp_us", F64}}, {{1, 0, 0, 0}, {2, 0, 0, 500}});
  CloudDecoder decoder(asuka::LidarType::VELODYNE, options);
  const auto out = decoder.decode(msg);
  ASSERT_TRUE(out.frame);
  expect_offsets(*out.frame, {0.0f, 0.5f});
  EXPECT_EQ(decoder.time_field(), "stamp_us");
}

TEST(DecodeTest, LivoxCustomMsgUsesTimebasePlusOffsets) {
  const std::uint64_t timebase = 1700000000123456789ULL;
  const auto msg = test::make_livox(timebase, {1000000, 0, 99000000});
  CloudDecoder decoder(asuka::LidarType::LIVOX, {});
  const auto out = decoder.decode(msg);
  ASSERT_TRUE(out.frame);
  EXPECT_NEAR(out.frame->stamp, 1700000000.123456789, 1e-6);
  expect_offsets(*out.frame, {1.0f, 0.0f, 99.0f});
  EXPECT_EQ(out.frame->points[2].line, 2);
  EXPECT_FLOAT_EQ(out.frame->points[0].intensity, 42.0f);
}

TEST(DecodeTest, NonFinitePointsAreDroppedAndCounted) {
  const auto msg = make_cloud(10.0, {{"x", F32}, {"y", F32}, {"z", F32}, {"time", F32}}, {{1, 0, 0, 0}, {kNaN, 0, 0, 0.01}, {3, 0, 0, kNaN}, {4, 0, 0, 0.02}});
  CloudDecoder decoder(asuka::LidarType::VELODYNE, {});
  const auto out = decoder.decode(msg);
  ASSERT_TRUE(out.frame);
  EXPECT_EQ(out.frame->points.size(), 2u);
  ASSERT_EQ(out.warnings.size(), 1u);
  EXPECT_EQ(out.warnings[0].kind, "non_finite_points");
  EXPECT_NE(out.warnings[0].message.find("dropped 2 of 4"), std::string::npos) << out.warnings[0].message;

  auto livox = test::make_livox(1000000000ULL, {0, 1000});
  livox.points[0].x = std::numeric_limits<float>::infinity();
  const auto lout = decoder.decode(livox);
  ASSERT_TRUE(lout.frame);
  EXPECT_EQ(lout.frame->points.size(), 1u);
  EXPECT_EQ(lout.warnings.at(0).kind, "non_finite_points");
}

TEST(DecodeTest, BadMessagesAreSkippedWithSpecificErrors) {
  CloudDecoder decoder(asuka::LidarType::VELODYNE, {});
  struct Case {
    sensor_msgs::PointCloud2 msg;
    std::string kind;
    std::string text;
  };
  std::vector<Case> cases;

  cases.push_back({make_cloud(1.0, {{"x", F32}, {"y", F32}, {"time", F32}}, {{1, 2, 0}}), "missing_field", "required field 'z' is missing"});
  cases.push_back({make_cloud(1.0, {{"x", U16}, {"y", F32}, {"z", F32}}, {{1, 2, 3}}), "wrong_datatype", "field 'x' is uint16, expected float32 or float64"});
  auto truncated = make_cloud(1.0, {{"x", F32}, {"y", F32}, {"z", F32}}, {{1, 2, 3}, {4, 5, 6}});
  truncated.data.resize(truncated.data.size() - 5);
  cases.push_back({truncated, "truncated", "data holds 19 bytes but 2 points need 24"});
  cases.push_back({make_cloud(1.0, {{"x", F32}, {"y", F32}, {"z", F32}}, {}), "empty_cloud", "no points"});
  auto big = make_cloud(1.0, {{"x", F32}, {"y", F32}, {"z", F32}}, {{1, 2, 3}});
  big.is_bigendian = true;
  cases.push_back({big, "big_endian", "big-endian"});
  auto overlap = make_cloud(1.0, {{"x", F32}, {"y", F32}, {"z", F32}}, {{1, 2, 3}});
  overlap.fields[2].offset = 10;  // a float at 10 does not fit in 12 bytes
  cases.push_back({overlap, "bad_layout", "does not fit in point_step 12"});
  // #12: point_step 12 while the time field sits beyond it: rejected, not decoded from the wrong bytes.
  auto short_step = make_cloud(1.0, {{"x", F32}, {"y", F32}, {"z", F32}, {"time", F32}}, {{1, 2, 3, 0.01}, {4, 5, 6, 0.02}});
  short_step.point_step = 12;
  short_step.row_step = 24;
  cases.push_back({short_step, "bad_layout", "field 'time' (float32 at offset 12) does not fit in point_step 12"});
  // ... and the same with the time field dropped from the list: more data than height x row_step.
  auto long_data = short_step;
  long_data.fields.pop_back();
  cases.push_back({long_data, "bad_layout", "data holds 32 bytes but height 1 x row_step 24 is 24"});
  cases.push_back({make_cloud(1.0, {{"x", F32}, {"y", F32}, {"z", F32}}, {{kNaN, 0, 0}}), "non_finite_points", "all 1 points"});

  for (const auto& c : cases) {
    const auto out = decoder.decode(c.msg);
    EXPECT_FALSE(out.frame) << c.kind;
    ASSERT_TRUE(out.error) << c.kind;
    EXPECT_EQ(out.error->kind, c.kind);
    EXPECT_NE(out.error->message.find(c.text), std::string::npos) << out.error->message;
    EXPECT_NE(out.error->message.find("stamp 1.000000"), std::string::npos) << out.error->message;  // where
  }
  EXPECT_TRUE(decoder.decode(test::make_livox(1, {})).error);
}

TEST(DecodeTest, MissingPointTimeIsAWarningNotAnError) {
  const auto msg = make_cloud(7.0, {{"x", F32}, {"y", F32}, {"z", F32}}, {{1, 2, 3}});
  CloudDecoder decoder(asuka::LidarType::VELODYNE, {});
  const auto out = decoder.decode(msg);
  ASSERT_TRUE(out.frame);
  EXPECT_FALSE(out.frame->has_point_time);
  EXPECT_DOUBLE_EQ(out.frame->stamp, 7.0);
  ASSERT_EQ(out.warnings.size(), 1u);
  EXPECT_EQ(out.warnings[0].kind, "missing_point_time");
  // Robosense without time is normal: the preprocessor rebuilds it from the yaw (R-PRE-4).
  CloudDecoder robosense(asuka::LidarType::ROBOSENSE, {});
  EXPECT_TRUE(robosense.decode(msg).warnings.empty());
}

TEST(DecodeTest, ImuDecodingAndNonFiniteImu) {
  auto msg = test::make_imu(3.5, 9.81);
  const auto ok = decode_imu(msg);
  ASSERT_TRUE(ok.imu);
  EXPECT_DOUBLE_EQ(ok.imu->stamp, 3.5);
  EXPECT_DOUBLE_EQ(ok.imu->acc.z(), 9.81);
  EXPECT_DOUBLE_EQ(ok.imu->gyro.z(), 0.1);
  msg.angular_velocity.x = kNaN;
  const auto bad = decode_imu(msg);
  EXPECT_FALSE(bad.imu);
  EXPECT_EQ(bad.error->kind, "non_finite_imu");
}

}  // namespace
}  // namespace asuka_ros

// #19: a visual frontend's coloured scan on /asuka/cloud_coloured: x y z rgb (PCL's packed float),
// transformed into the world, only the points the camera saw.
namespace asuka_ros {
namespace {

TEST(EncodeTest, ColouredCloudPacksRgbAndLeavesOutUnseenPoints) {
  std::vector<asuka::Point> points(3);
  points[0].x = 1.0f;
  points[1].y = 2.0f;
  points[2].z = 3.0f;
  const std::vector<std::array<std::uint8_t, 4>> colours = {{{10, 20, 30, 255}}, {{0, 0, 0, 0}}, {{255, 128, 1, 255}}};
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.translation() = Eigen::Vector3d(0.5, 0.0, 0.0);
  const auto msg = to_pointcloud2_rgb(points, colours, T, "map", 12.5);
  ASSERT_EQ(msg.width, 2u);
  ASSERT_EQ(msg.fields.size(), 4u);
  EXPECT_EQ(msg.fields[3].name, "rgb");
  EXPECT_EQ(msg.point_step, 16u);
  ASSERT_EQ(msg.data.size(), 32u);
  float first[4], second[4];
  std::memcpy(first, msg.data.data(), sizeof(first));
  std::memcpy(second, msg.data.data() + 16, sizeof(second));
  EXPECT_FLOAT_EQ(first[0], 1.5f);   // transformed
  EXPECT_FLOAT_EQ(second[2], 3.0f);  // the unseen point between them is not there
  std::uint32_t rgb = 0;
  std::memcpy(&rgb, &first[3], sizeof(rgb));
  EXPECT_EQ(rgb, 0x000A141Eu);
  std::memcpy(&rgb, &second[3], sizeof(rgb));
  EXPECT_EQ(rgb, 0x00FF8001u);
  EXPECT_EQ(msg.header.frame_id, "map");
  EXPECT_DOUBLE_EQ(msg.header.stamp.toSec(), 12.5);
}

// #16: the odometry carries the filter's pose covariance in ROS's order and axes: the filter's
// rotation error is about the body's axes, ROS's about the world's. A body turned 90 deg about z with
// its rotation uncertain about body x only is uncertain about world y.
TEST(EncodeTest, Issue16_OdometryCarriesThePoseCovarianceInRosOrderAndAxes) {
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = Eigen::AngleAxisd(M_PI / 2.0, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  Eigen::Matrix<double, 6, 6> P = Eigen::Matrix<double, 6, 6>::Zero();  // [rotation (body), position (world)]
  P(0, 0) = 0.04;        // about body x
  P(3, 3) = 1.0;         // position x
  P(4, 4) = 2.0;         // position y
  P(5, 5) = 3.0;         // position z
  P(0, 3) = P(3, 0) = 0.1;  // rotation about body x with position x
  const auto msg = to_odometry(1.0, T, Eigen::Vector3d::Zero(), "camera_init", "body", &P);
  const auto at = [&](int r, int c) { return msg.pose.covariance[static_cast<std::size_t>(6 * r + c)]; };
  EXPECT_DOUBLE_EQ(at(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(at(1, 1), 2.0);
  EXPECT_DOUBLE_EQ(at(2, 2), 3.0);
  EXPECT_NEAR(at(3, 3), 0.0, 1e-12);  // about world x: nothing
  EXPECT_NEAR(at(4, 4), 0.04, 1e-12);  // body x is world y
  EXPECT_NEAR(at(4, 0), 0.1, 1e-12);   // and its correlation with x moves with it
  EXPECT_NEAR(at(0, 4), 0.1, 1e-12);
  // Without a covariance, zeros as before.
  const auto plain = to_odometry(1.0, T, Eigen::Vector3d::Zero(), "camera_init", "body");
  for (double v : plain.pose.covariance) EXPECT_EQ(v, 0.0);
}

// #21: a scan's localizability as the live node publishes it: the fields in the order the label
// gives, and each direction's six values (rotation, translation) in turn.
TEST(EncodeTest, Issue21_LocalizabilityInTheOrderOfItsLabel) {
  asuka::Localizability loc;
  loc.eigenvalues << 0.001, 0.002, 0.5, 0.6, 0.7, 0.8;
  for (int c = 0; c < 6; ++c) {
    for (int r = 0; r < 6; ++r) loc.directions(r, c) = 10.0 * c + r;  // column c, row r
  }
  loc.threshold = 0.01;
  loc.degenerate = 2;
  loc.points = 123;
  loc.projected = true;
  const auto msg = to_localizability(42.5, loc);
  ASSERT_EQ(msg.layout.dim.size(), 1u);
  EXPECT_EQ(msg.layout.dim[0].label, kLocalizabilityLayout);
  EXPECT_EQ(msg.layout.dim[0].size, kLocalizabilityValues);
  ASSERT_EQ(msg.data.size(), kLocalizabilityValues);
  EXPECT_EQ(std::vector<double>(msg.data.begin(), msg.data.begin() + 11),
            (std::vector<double>{42.5, 2.0, 1.0, 123.0, 0.01, 0.001, 0.002, 0.5, 0.6, 0.7, 0.8}));
  EXPECT_EQ(msg.data[11], 0.0);       // direction 0, rotation x
  EXPECT_EQ(msg.data[16], 5.0);       // direction 0, translation z
  EXPECT_EQ(msg.data[17], 10.0);      // direction 1, rotation x
  EXPECT_EQ(msg.data[46], 55.0);      // direction 5, translation z
  loc.projected = false;
  EXPECT_EQ(to_localizability(0.0, loc).data[2], 0.0);
  EXPECT_EQ(output_topics("asuka").localizability, "/asuka/localizability");
  EXPECT_EQ(output_topics("fast_lio").localizability, "/asuka/localizability");
}

// #18: the live node's path stays bounded over a long run: at most max_poses + 1 poses, the first
// and the newest always in it, the rest evenly thinned (consecutive kept poses `stride` apart).
TEST(BoundedPathTest, Issue18_ThePathStaysBoundedEvenAndEndsAtTheNewestPose) {
  BoundedPath bounded(10);
  for (int i = 0; i < 1000; ++i) {
    geometry_msgs::PoseStamped pose;
    pose.header.stamp.fromSec(100.0 + i);
    pose.pose.position.x = i;
    bounded.add(pose);
    const auto& poses = bounded.path().poses;
    ASSERT_LE(poses.size(), 11u) << "after " << i + 1 << " poses";
    ASSERT_EQ(poses.front().pose.position.x, 0.0);
    ASSERT_EQ(poses.back().pose.position.x, i);
    ASSERT_DOUBLE_EQ(bounded.path().header.stamp.toSec(), 100.0 + i);
    const std::size_t stride = bounded.stride();
    // Every pose but the newest is a kept one: at a multiple of the stride, one stride after the last.
    for (std::size_t j = 0; j + 1 < poses.size(); ++j) {
      ASSERT_EQ(static_cast<std::size_t>(poses[j].pose.position.x), j * stride) << "after " << i + 1 << " poses, position " << j;
    }
    if (poses.size() >= 2) {
      ASSERT_LE(static_cast<std::size_t>(poses.back().pose.position.x) - static_cast<std::size_t>(poses[poses.size() - 2].pose.position.x), stride);
    }
  }
  EXPECT_EQ(bounded.stride(), 128u);  // 1000 poses in at most 10 kept: 1000 / 128 < 10 <= 1000 / 64
  EXPECT_GE(bounded.path().poses.size(), 5u);  // thinned to about half, never to nothing
}

// #16: FAST-LIO's names, and the frames they imply unless frames.* are set.
TEST(EncodeTest, Issue16_FastLioCompatibleNames) {
  const auto fast_lio = output_topics("fast_lio");
  EXPECT_EQ(fast_lio.odometry, "/Odometry");
  EXPECT_EQ(fast_lio.path, "/path");
  EXPECT_EQ(fast_lio.cloud_registered, "/cloud_registered");
  EXPECT_EQ(fast_lio.cloud_registered_body, "/cloud_registered_body");
  EXPECT_EQ(output_topics("asuka").odometry, "/asuka/odometry");
  auto& global = asuka::GlobalConfig::instance();
  global.set_module("config_odometry", asuka::Config::parse(R"({"so_name": "fastlio"})", "o.json"));
  global.set_module("config_ros", asuka::Config::parse(R"({"output_names": "fast_lio"})", "config_ros.json"));
  auto params = AsukaROSParams::from_config();
  EXPECT_EQ(params.world_frame, "camera_init");
  EXPECT_EQ(params.body_frame, "body");
  global.set_module("config_ros", asuka::Config::parse(R"({"output_names": "fast_lio", "frames": {"world": "map"}})", "config_ros.json"));
  EXPECT_EQ(AsukaROSParams::from_config().world_frame, "map");
  global.set_module("config_ros", asuka::Config::parse(R"({"output_names": "ros2"})", "config_ros.json"));
  EXPECT_THROW(AsukaROSParams::from_config(), asuka::ConfigError);
  global.clear();
}

}  // namespace
}  // namespace asuka_ros
