// asuka_sim is physically right: the IMU integrates to the ground truth, de-skewed points lie on the
// scene's surfaces, every fault is in the bag as specified, and runs are deterministic.

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <rosbag/bag.h>
#include <rosbag/view.h>

#include <asuka/io/trajectory_io.hpp>
#include <asuka_ros/message_decoding.hpp>
#include <asuka_sim/simulator.hpp>

namespace asuka::sim {
namespace {

namespace fs = std::filesystem;

Eigen::Matrix3d exp_so3(const Eigen::Vector3d& w) {
  const double a = w.norm();
  return a < 1e-15 ? Eigen::Matrix3d::Identity() : Eigen::AngleAxisd(a, w / a).toRotationMatrix();
}

// ---- scene ----------------------------------------------------------------------------------

TEST(SceneTest, RayCastHitsPrimitivesAtTheirSurface) {
  for (const auto& name : scene_names()) {
    const auto scene = make_scene(name, 1);
    const Eigen::Vector3d origin(scene->free_center.x(), scene->free_center.y(), scene->sensor_height);
    int hits = 0;
    for (int i = 0; i < 360; i += 3) {
      for (double el : {-0.3, 0.0, 0.2, 0.6}) {
        const Eigen::Vector3d d(std::cos(el) * std::cos(i * M_PI / 180.0), std::cos(el) * std::sin(i * M_PI / 180.0), std::sin(el));
        const auto hit = scene->cast(origin, d, 0.1, 200.0);
        if (!hit) continue;
        ++hits;
        EXPECT_LT(scene->distance(origin + hit->range * d), 1e-6) << name;
      }
    }
    if (name == "open_field") {
      EXPECT_EQ(hits, 120) << "the open field: every ray pointing down (120) hits the ground, nothing else";
    } else {
      EXPECT_GT(hits, 200) << name << ": the start must see structure";
    }
  }
  // The corridor's ends are beyond any range: looking along it sees nothing.
  const auto corridor = make_scene("corridor", 1);
  EXPECT_FALSE(corridor->cast(Eigen::Vector3d(0, 0, 1.2), Eigen::Vector3d::UnitX(), 0.1, 200.0));
  EXPECT_NEAR(corridor->cast(Eigen::Vector3d(0, 0, 1.2), Eigen::Vector3d::UnitY(), 0.1, 200.0)->range, 1.3, 1e-9);
}

// ---- IMU --------------------------------------------------------------------------------------

/// Integrates the IMU (minus the true biases) over 1 s windows from the true state and returns the
/// largest position [m] and rotation [rad] errors at the windows' ends.
Eigen::Vector2d integrate_windows(const std::string& profile, const ImuNoiseParams& noise, bool subtract_bias) {
  const auto scene = make_scene("courtyard", 1);
  TrajectoryParams tp;
  tp.profile = profile;
  tp.tilted_start = true;
  const Trajectory traj(tp, *scene);
  const double duration = 16.0;
  const auto imu = simulate_imu(traj, duration, noise, 7);
  const Eigen::Vector3d g(0, 0, -kGravity);
  Eigen::Vector2d worst = Eigen::Vector2d::Zero();
  const std::size_t per_window = static_cast<std::size_t>(noise.rate);
  for (std::size_t start = 0; start + per_window < imu.size(); start += per_window) {
    const double t0 = imu[start].measured.stamp;
    Eigen::Matrix3d R = traj.pose(t0).linear();
    Eigen::Vector3d p = traj.pose(t0).translation();
    Eigen::Vector3d v = traj.velocity(t0);
    for (std::size_t k = start; k < start + per_window; ++k) {
      const auto& a = imu[k];
      const auto& b = imu[k + 1];
      const double dt = b.measured.stamp - a.measured.stamp;
      const Eigen::Vector3d w0 = a.measured.gyro - (subtract_bias ? a.bias_gyro : Eigen::Vector3d::Zero());
      const Eigen::Vector3d w1 = b.measured.gyro - (subtract_bias ? b.bias_gyro : Eigen::Vector3d::Zero());
      const Eigen::Matrix3d R1 = R * exp_so3(0.5 * (w0 + w1) * dt);
      const Eigen::Vector3d a0 = R * (a.measured.acc - (subtract_bias ? a.bias_acc : Eigen::Vector3d::Zero())) + g;
      const Eigen::Vector3d a1 = R1 * (b.measured.acc - (subtract_bias ? b.bias_acc : Eigen::Vector3d::Zero())) + g;
      p += v * dt + (a0 / 3.0 + a1 / 6.0) * dt * dt;
      v += 0.5 * (a0 + a1) * dt;
      R = R1;
    }
    const double t1 = imu[start + per_window].measured.stamp;
    worst.x() = std::max(worst.x(), (p - traj.pose(t1).translation()).norm());
    worst.y() = std::max(worst.y(), Eigen::AngleAxisd(traj.pose(t1).linear().transpose() * R).angle());
  }
  return worst;
}

TEST(ImuModelTest, NoiseFreeImuIntegratesExactlyToTheGroundTruth) {
  ImuNoiseParams exact;
  exact.acc_noise_density = exact.gyro_noise_density = exact.acc_bias_walk = exact.gyro_bias_walk = 0.0;
  exact.acc_bias_initial = exact.gyro_bias_initial = 0.0;
  for (const auto& profile : {"handheld", "aggressive", "vehicle"}) {
    const auto worst = integrate_windows(profile, exact, true);
    std::printf("%s noise-free: worst 1 s error %.2e m, %.2e rad\n", profile, worst.x(), worst.y());
    // Only the second-order integration error over 1 s at 200 Hz remains: gravity sign, frames and
    // the specific-force convention are right, or this would be metres.
    EXPECT_LT(worst.x(), 1e-4) << profile;  // measured ~1e-5 m
    EXPECT_LT(worst.y(), 1e-4) << profile;  // measured ~1e-5 rad
  }
}

TEST(ImuModelTest, NoisyImuWithTrueBiasesIntegratesToTheNoiseLevel) {
  const ImuNoiseParams noise;  // consumer-MEMS defaults
  const auto with_bias_removed = integrate_windows("aggressive", noise, true);
  // Over 1 s: white acc noise gives ~ density * T^1.5 / sqrt(3) = 1.2 mm, gyro noise tilts gravity by
  // ~ 2e-4 rad -> ~1 mm; 15 windows, so allow 6 sigma.
  EXPECT_LT(with_bias_removed.x(), 0.012);
  EXPECT_LT(with_bias_removed.y(), 2e-3);
  // The biases are really in the data: ignoring them (0.05 m/s^2 per axis) costs centimetres.
  const auto with_bias_kept = integrate_windows("aggressive", noise, false);
  std::printf("noisy: worst 1 s error %.2e m, %.2e rad with true biases removed; %.2e m ignoring them\n", with_bias_removed.x(), with_bias_removed.y(),
              with_bias_kept.x());
  EXPECT_GT(with_bias_kept.x(), 2.0 * with_bias_removed.x());
}

TEST(TrajectoryTest, ProfilesReachTheirSpecifiedSpeedsAndRates) {
  const auto scene = make_scene("courtyard", 1);
  for (const std::uint64_t motion_seed : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) {  // #17: every random variation too
  SCOPED_TRACE(motion_seed);
  struct Spec {
    const char* profile;
    double min_speed, max_speed;   // [m/s]
    double min_yaw_rate;           // [deg/s]
  };
  for (const auto& spec : {Spec{"handheld", 0.8, 1.5, 10.0}, Spec{"aggressive", 4.0, 6.0, 80.0}, Spec{"vehicle", 5.0, 8.0, 0.0},
                           Spec{"extreme", 1.0, 4.0, 300.0}}) {
    TrajectoryParams tp;
    tp.profile = spec.profile;
    tp.motion_seed = motion_seed;
    const Trajectory traj(tp, *scene);
    const auto peaks = traj.peaks(40.0);
    EXPECT_GE(peaks.x(), spec.min_speed) << spec.profile;
    EXPECT_LE(peaks.x(), spec.max_speed) << spec.profile;
    EXPECT_GE(peaks.y() * 180.0 / M_PI, spec.min_yaw_rate) << spec.profile;
    // Static start: no motion during the first seconds.
    EXPECT_LT(traj.velocity(1.0).norm(), 1e-9) << spec.profile;
    EXPECT_LT(traj.angular_velocity(1.0).norm(), 1e-9) << spec.profile;
    // The path stays in the scene's free region.
    for (double t = 0.0; t < 40.0; t += 0.5) {
      const Eigen::Vector3d p = traj.pose(t).translation();
      EXPECT_LE(std::fabs(p.x() - scene->free_center.x()), scene->free_half_size.x()) << spec.profile << " t " << t;
      EXPECT_LE(std::fabs(p.y() - scene->free_center.y()), scene->free_half_size.y()) << spec.profile << " t " << t;
    }
  }
  }
}

// #17: --random-motion makes the motion depend on the seed (without it only the noise does): ten
// seeds give ten paths, the same seed the same path.
TEST(TrajectoryTest, Issue17_RandomMotionDiffersBySeedAndRepeatsForOne) {
  const auto scene = make_scene("courtyard", 1);
  for (const char* profile : {"handheld", "aggressive", "vehicle", "extreme"}) {
    SCOPED_TRACE(profile);
    std::vector<Trajectory> paths;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      TrajectoryParams tp;
      tp.profile = profile;
      tp.motion_seed = seed;
      paths.emplace_back(tp, *scene);
    }
    TrajectoryParams fixed;
    fixed.profile = profile;
    paths.emplace_back(fixed, *scene);
    for (std::size_t a = 0; a < paths.size(); ++a) {
      for (std::size_t b = a + 1; b < paths.size(); ++b) {
        double apart = 0.0, turned = 0.0;
        for (double t = 5.0; t < 20.0; t += 0.25) {
          apart = std::max(apart, (paths[a].pose(t).translation() - paths[b].pose(t).translation()).norm());
          turned = std::max(turned, Eigen::AngleAxisd(paths[a].pose(t).linear().transpose() * paths[b].pose(t).linear()).angle());
        }
        EXPECT_TRUE(apart > 0.3 || turned > 0.1) << a << " " << b << ": " << apart << " m, " << turned << " rad";
      }
    }
    TrajectoryParams again;
    again.profile = profile;
    again.motion_seed = 3;
    const Trajectory repeat(again, *scene);
    for (double t = 0.0; t < 20.0; t += 1.0) EXPECT_TRUE(repeat.pose(t).isApprox(paths[2].pose(t), 1e-12));
  }
}

TEST(ImuModelTest, ReadingsSaturateAtTheConfiguredRange) {
  const auto scene = make_scene("courtyard", 1);
  TrajectoryParams tp;
  tp.profile = "extreme";
  const Trajectory traj(tp, *scene);
  ImuNoiseParams exact;
  exact.acc_noise_density = exact.gyro_noise_density = exact.acc_bias_walk = exact.gyro_bias_walk = 0.0;
  exact.acc_bias_initial = exact.gyro_bias_initial = 0.0;
  const auto free = simulate_imu(traj, 20.0, exact, 1);
  exact.gyro_range = 3.0;
  exact.acc_range = 12.0;
  const auto clipped = simulate_imu(traj, 20.0, exact, 1);
  ASSERT_EQ(free.size(), clipped.size());
  std::size_t saturated = 0;
  for (std::size_t k = 0; k < free.size(); ++k) {
    for (int a = 0; a < 3; ++a) {
      EXPECT_NEAR(clipped[k].measured.gyro[a], std::clamp(free[k].measured.gyro[a], -3.0, 3.0), 1e-12);
      EXPECT_NEAR(clipped[k].measured.acc[a], std::clamp(free[k].measured.acc[a], -12.0, 12.0), 1e-12);
      saturated += std::fabs(free[k].measured.gyro[a]) > 3.0;
    }
  }
  EXPECT_GT(saturated, 100u);  // the extreme profile's bursts (>= 300 deg/s) exceed a 3 rad/s range
}

TEST(ImuModelTest, StaticImuReadsPlusGOnZ) {
  const auto scene = make_scene("courtyard", 1);
  TrajectoryParams tp;
  tp.profile = "static";
  const Trajectory traj(tp, *scene);
  ImuNoiseParams exact;
  exact.acc_noise_density = exact.gyro_noise_density = exact.acc_bias_walk = exact.gyro_bias_walk = 0.0;
  exact.acc_bias_initial = exact.gyro_bias_initial = 0.0;
  const auto imu = simulate_imu(traj, 1.0, exact, 1);
  const Eigen::Vector3d up_in_body = traj.pose(0.5).linear().transpose() * Eigen::Vector3d(0, 0, kGravity);
  EXPECT_LT((imu[100].measured.acc - up_in_body).norm(), 1e-6);
  EXPECT_NEAR(imu[100].measured.acc.norm(), kGravity, 1e-6);
  EXPECT_LT(imu[100].measured.gyro.norm(), 1e-9);
}

// ---- LiDAR: the bag's points, de-skewed with the ground truth, lie on the surfaces -------------

struct Residuals {
  double median = 0.0;
  double p99 = 0.0;
  double median_skewed = 0.0;  ///< the same points without de-skew (all at the frame start pose)
  std::size_t points = 0;
  std::size_t frames = 0;
};

Residuals deskew_residuals(SimParams params, const std::string& dir) {
  const auto result = run_simulation(params, dir);
  const auto scene = make_scene(params.scene, params.seed);
  const auto model = make_lidar(params.lidar);
  const Trajectory traj(params.trajectory, *scene);
  const Eigen::Isometry3d T_imu_lidar = model.T_imu_lidar;
  const double t0 = static_cast<double>(params.start_time);

  rosbag::Bag bag;
  bag.open(result.bag_path, rosbag::bagmode::Read);
  rosbag::View view(bag, rosbag::TopicQuery(result.points_topic));
  asuka_ros::CloudDecoder decoder(asuka::LidarType::VELODYNE, {});
  std::vector<double> residuals;
  std::vector<double> skewed;
  Residuals r;
  for (const auto& m : view) {
    asuka_ros::DecodedFrame decoded;
    if (auto c = m.instantiate<sensor_msgs::PointCloud2>()) decoded = decoder.decode(*c);
    if (auto l = m.instantiate<asuka_ros::LivoxCustomMsg>()) decoded = decoder.decode(*l);
    if (!decoded.frame) continue;
    ++r.frames;
    const auto& f = *decoded.frame;
    const Eigen::Isometry3d T_start = traj.pose(f.stamp - t0) * T_imu_lidar;
    for (std::size_t i = 0; i < f.points.size(); i += 7) {
      const auto& p = f.points[i];
      const double t = f.stamp - t0 + static_cast<double>(p.offset_ms) * 1e-3;
      const Eigen::Vector3d q = p.position().cast<double>();
      residuals.push_back(scene->distance(traj.pose(t) * T_imu_lidar * q));
      skewed.push_back(scene->distance(T_start * q));
    }
  }
  std::sort(residuals.begin(), residuals.end());
  std::sort(skewed.begin(), skewed.end());
  r.points = residuals.size();
  if (!residuals.empty()) {
    r.median = residuals[residuals.size() / 2];
    r.p99 = residuals[residuals.size() * 99 / 100];
    r.median_skewed = skewed[skewed.size() / 2];
  }
  return r;
}

class SimBagTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("asuka_sim_test_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string sub(const std::string& name) const { return (dir / name).string(); }
  fs::path dir;
};

TEST_F(SimBagTest, DeskewedPointsLieOnTheSurfacesForEveryLayout) {
  struct Case {
    std::string lidar;
    bool pointcloud2;
    bool header_at_end;
  };
  for (const auto& c : {Case{"avia", false, false}, Case{"avia", true, false}, Case{"mid360", false, false}, Case{"vlp16", false, true},
                        Case{"hdl32", false, false}, Case{"os1-64", false, false}, Case{"rs16", false, false}}) {
    SimParams p;
    p.lidar = c.lidar;
    p.livox_pointcloud2 = c.pointcloud2;
    p.header_at_end = c.header_at_end;
    p.duration = 4.0;
    p.trajectory.profile = "aggressive";
    p.trajectory.static_duration = 0.5;
    p.trajectory.ramp_duration = 0.5;
    const auto r = deskew_residuals(p, sub(c.lidar + (c.pointcloud2 ? "_pc2" : "")));
    const std::string name = c.lidar + (c.pointcloud2 ? " PointCloud2" : "") + (c.header_at_end ? " header at end" : "");
    std::printf("%-28s frames %zu points %zu: residual median %.4f p99 %.4f m; without de-skew median %.4f m\n", name.c_str(), r.frames, r.points, r.median,
                r.p99, r.median_skewed);
    EXPECT_GE(r.frames, 39u) << name;
    EXPECT_GT(r.points, 1000u) << name;
    // Gaussian range noise of 2 cm: |noise| has median 0.67 sigma; far from surfaces means wrong times.
    EXPECT_LT(r.median, 0.02) << name;
    EXPECT_LT(r.p99, 0.08) << name;
    // Moving at 4 m/s and turning fast, the undistorted frame is visibly wrong: the distortion is real.
    EXPECT_GT(r.median_skewed, 2.0 * r.median) << name;
  }
}

// ---- faults -----------------------------------------------------------------------------------

struct BagScan {
  std::vector<double> imu_stamps;
  std::vector<double> frame_stamps;   ///< decoded frame start
  std::vector<double> header_stamps;  ///< cloud header
  std::vector<std::size_t> frame_points;
  std::size_t nan_points = 0;
  std::size_t total_points = 0;
  bool has_time_field = true;
  std::optional<asuka_ros::PointTimeConvention> convention;
};

BagScan scan_bag(const SimResult& r) {
  BagScan s;
  rosbag::Bag bag;
  bag.open(r.bag_path, rosbag::bagmode::Read);
  asuka_ros::CloudDecoder decoder(asuka::LidarType::VELODYNE, {});
  for (const auto& m : rosbag::View(bag)) {
    if (auto imu = m.instantiate<sensor_msgs::Imu>()) {
      s.imu_stamps.push_back(imu->header.stamp.toSec());
    } else if (auto c = m.instantiate<sensor_msgs::PointCloud2>()) {
      s.header_stamps.push_back(c->header.stamp.toSec());
      for (const auto& f : c->fields) {
        if (f.name == "time" || f.name == "t" || f.name == "timestamp") s.has_time_field = true;
      }
      bool found = false;
      for (const auto& f : c->fields) found = found || f.name == "time";
      s.has_time_field = found;
      const auto d = decoder.decode(*c);
      s.frame_points.push_back(d.frame ? d.frame->points.size() : 0);
      s.total_points += d.points_in;
      s.nan_points += d.frame ? d.points_in - d.frame->points.size() : d.points_in;
      if (d.frame) s.frame_stamps.push_back(d.frame->stamp);
    }
  }
  s.convention = decoder.convention();
  return s;
}

SimParams short_vlp16() {
  SimParams p;
  p.lidar = "vlp16";
  p.duration = 3.0;
  p.trajectory.static_duration = 1.0;
  p.trajectory.ramp_duration = 0.5;
  return p;
}

std::size_t regressions(const std::vector<double>& v) {
  std::size_t n = 0;
  for (std::size_t i = 1; i < v.size(); ++i) n += v[i] < v[i - 1] ? 1 : 0;
  return n;
}

TEST_F(SimBagTest, EveryFaultIsInTheBagAsSpecified) {
  const auto clean = scan_bag(run_simulation(short_vlp16(), sub("clean")));
  EXPECT_EQ(clean.imu_stamps.size(), 601u);
  EXPECT_EQ(clean.frame_points.size(), 30u);
  EXPECT_EQ(regressions(clean.imu_stamps), 0u);
  EXPECT_EQ(clean.nan_points, 0u);
  ASSERT_TRUE(clean.convention);
  EXPECT_EQ(clean.convention->unit, asuka_ros::TimeUnit::SECONDS);

  auto p = short_vlp16();
  p.faults.loop = true;
  const auto looped = scan_bag(run_simulation(p, sub("loop")));
  EXPECT_EQ(looped.imu_stamps.size(), 2 * 601u);
  EXPECT_EQ(regressions(looped.imu_stamps), 1u);
  EXPECT_EQ(regressions(looped.header_stamps), 1u);

  p = short_vlp16();
  p.faults.imu_gap_start = 1.5;
  p.faults.imu_gap_length = 0.5;
  const auto gap = scan_bag(run_simulation(p, sub("gap")));
  EXPECT_EQ(gap.imu_stamps.size(), 601u - 100u);
  double largest = 0.0;
  for (std::size_t i = 1; i < gap.imu_stamps.size(); ++i) largest = std::max(largest, gap.imu_stamps[i] - gap.imu_stamps[i - 1]);
  EXPECT_NEAR(largest, 0.505, 1e-3);

  p = short_vlp16();
  p.faults.imu_out_of_order = 3;
  EXPECT_EQ(regressions(scan_bag(run_simulation(p, sub("ooo"))).imu_stamps), 3u);

  p = short_vlp16();
  p.faults.no_point_time = true;
  EXPECT_FALSE(scan_bag(run_simulation(p, sub("notime"))).has_time_field);

  p = short_vlp16();
  p.faults.point_time_unit = "ms";
  const auto ms = scan_bag(run_simulation(p, sub("ms")));
  ASSERT_TRUE(ms.convention);
  EXPECT_EQ(ms.convention->unit, asuka_ros::TimeUnit::MILLISECONDS);  // the values really are ms

  p = short_vlp16();
  p.faults.nan_points = 0.1;
  const auto nan = scan_bag(run_simulation(p, sub("nan")));
  EXPECT_NEAR(static_cast<double>(nan.nan_points) / static_cast<double>(nan.total_points), 0.1, 0.01);

  p = short_vlp16();
  p.faults.empty_frame_every = 5;
  const auto empty = scan_bag(run_simulation(p, sub("empty")));
  ASSERT_EQ(empty.frame_points.size(), 30u);
  for (std::size_t k = 0; k < 30; ++k) EXPECT_EQ(empty.frame_points[k] == 0, (k + 1) % 5 == 0) << k;

  p = short_vlp16();
  p.faults.drop_frame_every = 3;
  EXPECT_EQ(scan_bag(run_simulation(p, sub("drop"))).frame_points.size(), 20u);

  p = short_vlp16();
  p.faults.lidar_late_start = 1.0;  // #12: the IMU runs alone for a second
  const auto late = scan_bag(run_simulation(p, sub("late")));
  ASSERT_EQ(late.frame_stamps.size(), 20u);
  EXPECT_NEAR(late.frame_stamps[0] - clean.frame_stamps[10], 0.0, 1e-6);

  p = short_vlp16();
  p.faults.lidar_time_offset = 0.02;
  const auto offset = scan_bag(run_simulation(p, sub("offset")));
  ASSERT_EQ(offset.frame_stamps.size(), 30u);
  EXPECT_NEAR(offset.frame_stamps[5] - clean.frame_stamps[5], 0.02, 1e-6);

  p = short_vlp16();
  p.header_at_end = true;
  const auto end = scan_bag(run_simulation(p, sub("end")));
  EXPECT_NEAR(end.header_stamps[3] - end.frame_stamps[3], 0.1, 1e-6);  // header = last point
}

/// Records what simulate() hands its sink, in order.
class RecordingSink : public SimSink {
public:
  struct Message {
    double received;
    bool frame;
    double stamp;     // IMU stamp or frame start
    double checksum;  // the IMU reading or the frame's points, summed
  };
  void imu(double received, const ImuSample& s) override {
    messages.push_back({received, false, s.measured.stamp, s.measured.acc.sum() + s.measured.gyro.sum()});
  }
  void frame(double received, const SimFrame& f) override {
    double sum = 0.0;
    for (const auto& p : f.points) sum += static_cast<double>(p.p_lidar.sum()) + p.offset;
    messages.push_back({received, true, f.start, sum});
  }
  void ground_truth(const StampedPose& pose) override { truth.push_back(pose); }
  void dead_reckoning(const StampedPose& pose) override { reckoned.push_back(pose); }
  void degeneracy_truth(double stamp, const Localizability&) override { degeneracy.push_back(stamp); }
  std::vector<Message> messages;
  std::vector<StampedPose> truth, reckoned;
  std::vector<double> degeneracy;
};

/// #18: the simulation is drawn as it is written, so a looped recording's second pass casts and
/// draws everything again: it must repeat the first message for message, and the truth (one pose
/// per IMU sample, gap included; one localizability per frame, dropped ones included) is handed out
/// once, in time order.
TEST(SimStreamTest, ALoopedRecordingRepeatsItselfAndTheTruthComesOnce) {
  auto p = short_vlp16();
  p.faults.loop = true;
  p.faults.imu_gap_start = 2.0;
  p.faults.imu_gap_length = 0.25;
  p.faults.imu_out_of_order = 2;
  p.faults.drop_frame_every = 7;
  p.faults.nan_points = 0.01;
  RecordingSink sink;
  const SimOutput out = simulate(p, sink);

  EXPECT_EQ(sink.truth.size(), 601u);  // 3 s at 200 Hz, the gap included
  EXPECT_EQ(sink.degeneracy.size(), 30u);
  for (std::size_t i = 1; i < sink.truth.size(); ++i) ASSERT_GT(sink.truth[i].stamp, sink.truth[i - 1].stamp) << i;
  EXPECT_TRUE(out.ground_truth.empty());  // streamed, not kept

  ASSERT_EQ(sink.messages.size() % 2, 0u);
  const std::size_t half = sink.messages.size() / 2;
  EXPECT_EQ(half, 601u - 50u + 30u - 4u);  // IMU without the gap, frames without every 7th
  for (std::size_t i = 0; i < half; ++i) {
    const auto& a = sink.messages[i];
    const auto& b = sink.messages[half + i];
    ASSERT_EQ(a.frame, b.frame) << i;
    ASSERT_NEAR(b.received - a.received, p.duration + 1.0, 1e-6) << i;
    ASSERT_EQ(a.stamp, b.stamp) << i;
    // NaN points make the sum NaN in both passes alike
    if (std::isnan(a.checksum)) {
      ASSERT_TRUE(std::isnan(b.checksum)) << i;
    } else {
      ASSERT_EQ(a.checksum, b.checksum) << i;
    }
  }
  // Record times stay in order within a pass; the swapped pairs carry each other's stamps.
  std::size_t swapped = 0;
  double last_imu_stamp = -1.0;
  for (std::size_t i = 0; i < half; ++i) {
    ASSERT_TRUE(i == 0 || sink.messages[i].received >= sink.messages[i - 1].received) << i;
    if (sink.messages[i].frame) continue;
    swapped += sink.messages[i].stamp < last_imu_stamp ? 1 : 0;
    last_imu_stamp = sink.messages[i].stamp;
  }
  EXPECT_EQ(swapped, 2u);
  EXPECT_EQ(out.swapped_imu.size(), 2u);
}

/// The IMU-only dead reckoning (#21's bound), fed sample by sample: on a noise-free IMU it follows
/// the ground truth, starting at the last static sample.
TEST(SimStreamTest, DeadReckoningOnAnExactImuFollowsTheTruth) {
  auto p = short_vlp16();
  p.imu.acc_noise_density = p.imu.gyro_noise_density = p.imu.acc_bias_walk = p.imu.gyro_bias_walk = 0.0;
  p.imu.acc_bias_initial = p.imu.gyro_bias_initial = 0.0;
  RecordingSink sink;
  simulate(p, sink);
  ASSERT_EQ(sink.truth.size(), 601u);
  // The static start is 1 s: samples 0..200 are static, the reckoning starts at sample 200.
  ASSERT_EQ(sink.reckoned.size(), 401u);
  EXPECT_DOUBLE_EQ(sink.reckoned.front().stamp, sink.truth[200].stamp);
  double worst = 0.0;
  for (std::size_t i = 0; i < sink.reckoned.size(); ++i) {
    ASSERT_DOUBLE_EQ(sink.reckoned[i].stamp, sink.truth[200 + i].stamp);
    worst = std::max(worst, (sink.reckoned[i].T_world_imu.translation() - sink.truth[200 + i].T_world_imu.translation()).norm());
  }
  EXPECT_LT(worst, 1e-2);  // measured 2.4 mm: first-order integration over 2 s at 200 Hz (a wrong frame or sign: metres)
}

/// #12: the IMU value faults reach the bag's IMU messages as specified; sim.json names them only
/// when they are set (a simulation without them writes what it wrote before they existed).
TEST_F(SimBagTest, ImuValueFaultsAreInTheBagAsSpecified) {
  auto read_imu = [](const SimResult& r) {
    std::vector<sensor_msgs::Imu> out;
    rosbag::Bag bag;
    bag.open(r.bag_path, rosbag::bagmode::Read);
    for (const auto& m : rosbag::View(bag, rosbag::TopicQuery(r.imu_topic))) out.push_back(*m.instantiate<sensor_msgs::Imu>());
    return out;
  };
  auto is_zero = [](const sensor_msgs::Imu& m) {
    return m.linear_acceleration.x == 0.0 && m.linear_acceleration.y == 0.0 && m.linear_acceleration.z == 0.0 && m.angular_velocity.x == 0.0 &&
           m.angular_velocity.y == 0.0 && m.angular_velocity.z == 0.0;
  };
  const auto clean_run = run_simulation(short_vlp16(), sub("clean"));
  const auto clean = read_imu(clean_run);
  ASSERT_EQ(clean.size(), 601u);
  std::ifstream clean_json(clean_run.sidecar_path);
  const auto faults = nlohmann::json::parse(clean_json)["faults"];
  for (const char* key : {"imu_zeros_at_start_s", "imu_zero_acc", "gyro_in_deg", "imu_nan_every", "imu_spike_every", "imu_duplicate_every"}) {
    EXPECT_FALSE(faults.contains(key)) << key;
  }

  auto p = short_vlp16();
  p.faults.imu_zeros_at_start = 0.5;
  const auto zeros = read_imu(run_simulation(p, sub("zeros")));
  ASSERT_EQ(zeros.size(), 601u);
  for (std::size_t k = 0; k < zeros.size(); ++k) EXPECT_EQ(is_zero(zeros[k]), k < 100) << k;
  EXPECT_EQ(zeros[0].header.stamp, clean[0].header.stamp);  // stamped as usual

  p = short_vlp16();
  p.faults.imu_zero_acc = true;
  p.faults.gyro_in_deg = true;
  const auto r = run_simulation(p, sub("acc_deg"));
  const auto acc_deg = read_imu(r);
  ASSERT_EQ(acc_deg.size(), 601u);
  for (std::size_t k = 0; k < acc_deg.size(); k += 50) {
    EXPECT_EQ(acc_deg[k].linear_acceleration.z, 0.0);
    EXPECT_NEAR(acc_deg[k].angular_velocity.z, clean[k].angular_velocity.z * 180.0 / M_PI, 1e-9);
  }
  std::ifstream in(r.sidecar_path);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["faults"]["imu_zero_acc"], true);
  EXPECT_EQ(j["faults"]["gyro_in_deg"], true);

  p = short_vlp16();
  p.faults.imu_nan_every = 50;
  p.faults.imu_spike_every = 60;
  p.faults.imu_duplicate_every = 70;
  const auto bad = read_imu(run_simulation(p, sub("bad")));
  ASSERT_EQ(bad.size(), 601u);
  for (std::size_t k = 0; k < bad.size(); ++k) {
    EXPECT_EQ(std::isnan(bad[k].linear_acceleration.x), (k + 1) % 50 == 0) << k;
    EXPECT_EQ(bad[k].angular_velocity.x == 1000.0, (k + 1) % 60 == 0 && (k + 1) % 50 != 0) << k;
    if (k > 0) {
      EXPECT_EQ(bad[k].header.stamp == bad[k - 1].header.stamp, (k + 1) % 70 == 0) << k;
    }
  }
}

TEST_F(SimBagTest, AccelerationInGAndSidecarHoldsEveryParameter) {
  auto p = short_vlp16();
  p.acc_in_g = true;
  p.lidar = "avia";
  const auto r = run_simulation(p, sub("g"));
  rosbag::Bag bag;
  bag.open(r.bag_path, rosbag::bagmode::Read);
  rosbag::View view(bag, rosbag::TopicQuery(r.imu_topic));
  auto first = view.begin()->instantiate<sensor_msgs::Imu>();
  ASSERT_TRUE(first);
  const double norm = std::sqrt(first->linear_acceleration.x * first->linear_acceleration.x + first->linear_acceleration.y * first->linear_acceleration.y +
                                first->linear_acceleration.z * first->linear_acceleration.z);
  EXPECT_NEAR(norm, 1.0, 0.05);

  std::ifstream in(r.sidecar_path);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["seed"], 1);
  EXPECT_EQ(j["lidar"]["model"], "avia");
  EXPECT_EQ(j["imu"]["acc_unit"], "g");
  EXPECT_EQ(j["topics"]["points"], "/livox/lidar");
  EXPECT_NEAR(j["T_imu_lidar"]["translation"][0].get<double>(), 0.04165, 1e-9);
  EXPECT_TRUE(j["imu"].contains("acc_bias_initial"));

  std::vector<asuka::StampedPose> gt;
  ASSERT_TRUE(asuka::read_tum(r.ground_truth_path, gt));
  EXPECT_EQ(gt.size(), 601u);  // the IMU pose at the IMU rate
  EXPECT_NEAR(gt[1].stamp - gt[0].stamp, 0.005, 1e-6);
}

TEST_F(SimBagTest, SameSeedSameBytesOtherSeedOtherBytes) {
  auto read = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  auto p = short_vlp16();
  p.lidar = "avia";
  const auto a = run_simulation(p, sub("a"));
  const auto b = run_simulation(p, sub("b"));
  EXPECT_EQ(read(a.bag_path), read(b.bag_path));
  EXPECT_EQ(read(a.ground_truth_path), read(b.ground_truth_path));
  EXPECT_EQ(read(a.sidecar_path), read(b.sidecar_path));
  p.seed = 2;
  const auto c = run_simulation(p, sub("c"));
  EXPECT_NE(read(a.bag_path), read(c.bag_path));
}

TEST(SimCliTest, HelpListsEveryOptionWithUnitsAndBadValuesFail) {
  const std::string program = std::string(ASUKA_BINARY_DIR) + "/bin/asuka_sim";
  FILE* pipe = ::popen((program + " --help 2>&1").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string help;
  char buffer[4096];
  while (std::fgets(buffer, sizeof(buffer), pipe)) help += buffer;
  ::pclose(pipe);
  for (const char* option : {"--lidar", "--scene", "--profile", "--duration", "--seed", "--output", "--range-noise", "--acc-noise", "--gyro-bias-walk",
                             "--acc-in-g", "--fault-loop", "--fault-imu-gap", "--fault-imu-out-of-order", "--fault-no-point-time", "--fault-point-time-unit",
                             "--fault-nan-points", "--fault-empty-frame-every", "--fault-drop-frame-every", "--fault-lidar-time-offset", "--instantaneous"}) {
    EXPECT_NE(help.find(option), std::string::npos) << option;
  }
  EXPECT_NE(help.find("[m/s^2/sqrt(Hz)]"), std::string::npos);
  const int status = std::system((program + " --duration -1 --output /tmp/asuka_sim_bad >/dev/null 2>&1").c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
}

}  // namespace
}  // namespace asuka::sim
