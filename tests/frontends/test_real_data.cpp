// Real sensor data (#5, "Real data"): the LIO building blocks on recordings from real sensors, so that
// they are not proved on simulated data alone. The data lives beside the repository, in
// ../shared/data/real/ (its README.md says where each set comes from); it is never copied into the
// repository, and each test skips, naming the folder, where it is absent.
//
// - Hdl32PairPointToPlaneRecoversRelativePose: scan-to-map registration with fastlio's map, plane fit
//   and residual gates on two Velodyne HDL-32E scans, against the relative pose shipped with them.
// - ImuMidpointPropagationFollowsReferenceOverOneSecond: fastlio's mid-point IMU propagation over 1 s
//   windows of a real 100 Hz IMU, against a reference trajectory of the same IMU.
//
// The registration uses the frontends' own shared pieces (asuka/lio: DefaultCloudPreprocessor,
// downsample_first_per_voxel, VoxelMap, find_plane, accept_residual); only the Gauss-Newton loop and
// the propagation step restate FastLio::update and FastLio::propagate (frontends/fastlio/fastlio.cpp),
// whose filter internals the plugin does not export.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <asuka/core/types.hpp>
#include <asuka/io/pcd_io.hpp>
#include <asuka/io/trajectory_io.hpp>
#include <asuka/lio/default_cloud_preprocessor.hpp>
#include <asuka/lio/imu_initializer.hpp>
#include <asuka/lio/plane_association.hpp>
#include <asuka/lio/scan_downsample.hpp>
#include <asuka/lio/scan_registration.hpp>
#include <asuka/lio/voxel_map.hpp>
#include <asuka/math/so3.hpp>

namespace asuka {
namespace {

namespace fs = std::filesystem;

/// ../shared/data/real/<name> beside the repository root (no absolute machine path in the code).
fs::path real_data_dir(const std::string& name) { return (fs::path(ASUKA_SOURCE_DIR "/../shared/data/real") / name).lexically_normal(); }

std::string absent_message(const fs::path& dir) { return "real data folder " + dir.string() + " is absent; see ../shared/data/real/README.md (#5)"; }

double angle_deg(const Eigen::Matrix3d& R) { return so3::log(R).norm() * 180.0 / M_PI; }

// ---- HDL-32E pair: point-to-plane registration ---------------------------------------------------

/// fastlio's mapping defaults (frontends/fastlio/fastlio_params.hpp), except the two choices below;
/// the plane association's spread rule and second try (#17) are PlaneAssociationParams' defaults.
struct PairParams {
  // Choice 1: no index decimation. The PCD holds the HDL-32E's points in firing order, which alternates
  // the lower laser block (-30.7..-10.7 deg) with the upper one (-9.3..+10.7 deg); every 2nd point
  // (fastlio's point_filter_num = 2) keeps the lower block only. The two scans then share the same 16
  // rings, a pattern that yaw does not change, and the result misses the relative rotation by 0.38 deg,
  // mostly in yaw (measured; 0.10 deg with every laser). The voxel filter below does the thinning.
  int point_filter_num = 1;
  // Choice 2: 0.2 m scan voxel, not fastlio's 0.5 m. The scene is small (median range 3.8 m): 0.5 m
  // leaves ~2.7k of 69k points, and a map of one scan at 0.5 m is far sparser than fastlio's map, which
  // accumulates scans down to map_min_point_distance (0.2 m) apart; a 0.2 m voxel gives one scan that
  // density. At 0.5 m the registration from the identity stops 0.42 m short (measured): without an IMU
  // prediction, the 0.1 m gates leave too few planes to pull it the whole 0.5 m.
  double scan_voxel_size = 0.2;         ///< [m]
  double map_voxel_size = 0.5;          ///< [m] fastlio's map_voxel_size
  double map_min_point_distance = 0.2;  ///< [m] fastlio's map_min_point_distance
  int map_max_points_per_voxel = 20;    ///< as FastLio builds its map
  std::size_t knn = 5;                  ///< fastlio's knn
  double plane_max_residual = 0.1;      ///< [m] fastlio's plane_max_residual
  double max_residual = 0.1;            ///< [m] fastlio's max_residual (absolute gate)
  std::size_t min_effective = 30;       ///< FastLio's kMinEffectivePoints
  int max_iterations = 30;              ///< no IMU prior: more than fastlio's 4 IEKF iterations

  lio::RegistrationParams registration() const {
    lio::RegistrationParams r;
    r.association = lio::PlaneAssociationParams{knn, 3.0 * map_voxel_size, plane_max_residual, max_residual};
    r.min_effective = min_effective;
    r.max_iterations = max_iterations;
    return r;
  }
};

/// The scan after the core's preprocessor (range window, decimation) and fastlio's voxel filter: the
/// first point of each voxel, a real point rather than a centroid.
std::vector<Eigen::Vector3d> preprocess_scan(const std::vector<Eigen::Vector3f>& raw, const PairParams& params) {
  LidarFrame frame;
  frame.lidar_type = LidarType::VELODYNE;
  frame.has_point_time = false;
  frame.points.reserve(raw.size());
  for (const auto& p : raw) {
    Point q;
    q.x = p.x();
    q.y = p.y();
    q.z = p.z();
    frame.points.push_back(q);
  }
  lio::PreprocessParams preprocess;
  preprocess.point_filter_num = params.point_filter_num;
  const LidarFrame::Ptr filtered = lio::DefaultCloudPreprocessor(preprocess).preprocess(frame);

  std::vector<Eigen::Vector3d> out;
  for (const std::uint32_t index : lio::downsample_first_per_voxel(filtered->points, params.scan_voxel_size)) {
    const Point& pt = filtered->points[index];
    out.emplace_back(pt.x, pt.y, pt.z);
  }
  return out;
}

/// The map FastLio builds from its first scan (the scan's frame is the map frame).
lio::VoxelMap build_map(const std::vector<Eigen::Vector3d>& scan, const PairParams& params) {
  lio::VoxelMap map(lio::VoxelMapParams{params.map_voxel_size, params.map_max_points_per_voxel, params.map_min_point_distance, 150.0});
  std::vector<Eigen::Vector3f> points;
  points.reserve(scan.size());
  for (const auto& p : scan) points.push_back(p.cast<float>());
  map.insert(points);
  return map;
}

bool read_matrix4(const fs::path& path, Eigen::Isometry3d& T) {
  std::ifstream in(path);
  Eigen::Matrix4d M;
  for (int i = 0; i < 16; ++i) {
    if (!(in >> M(i / 4, i % 4))) return false;
  }
  T.matrix() = M;
  return true;
}

struct PoseError {
  double translation = 0.0;  ///< [m]
  double rotation_deg = 0.0;
};

PoseError pose_error(const Eigen::Isometry3d& expected, const Eigen::Isometry3d& estimated) {
  const Eigen::Isometry3d d = expected.inverse() * estimated;
  return {d.translation().norm(), angle_deg(d.linear())};
}

TEST(RealData, Hdl32PairPointToPlaneRecoversRelativePose) {
  const fs::path dir = real_data_dir("hdl32_pair");
  if (!fs::is_directory(dir)) GTEST_SKIP() << absent_message(dir);
  // 251370668.pcd and 251371071.pcd, binary x y z intensity (the core's reader takes x y z and skips
  // the rest); relative.txt, a 4x4.
  std::vector<Eigen::Vector3f> raw_668, raw_071;
  std::string error;
  ASSERT_TRUE(read_pcd((dir / "251370668.pcd").string(), raw_668, &error)) << error;
  ASSERT_TRUE(read_pcd((dir / "251371071.pcd").string(), raw_071, &error)) << error;
  ASSERT_GT(raw_668.size(), 60000u);
  ASSERT_GT(raw_071.size(), 60000u);
  Eigen::Isometry3d relative = Eigen::Isometry3d::Identity();
  ASSERT_TRUE(read_matrix4(dir / "relative.txt", relative)) << "cannot read a 4x4 from " << (dir / "relative.txt").string();

  const PairParams params;
  const auto scan_668 = preprocess_scan(raw_668, params);
  const auto scan_071 = preprocess_scan(raw_071, params);
  // Forward: map from 668, 071 registered into it, so the result is T_668_071. Backward: the roles swapped.
  const auto forward = lio::register_point_to_plane(build_map(scan_668, params), scan_071, Eigen::Isometry3d::Identity(), params.registration());
  const auto backward = lio::register_point_to_plane(build_map(scan_071, params), scan_668, Eigen::Isometry3d::Identity(), params.registration());

  const PoseError fwd_vs_relative = pose_error(relative, forward.T_map_scan);
  const PoseError fwd_vs_inverse = pose_error(relative.inverse(), forward.T_map_scan);
  const PoseError bwd_vs_inverse = pose_error(relative.inverse(), backward.T_map_scan);
  const PoseError bwd_vs_relative = pose_error(relative, backward.T_map_scan);
  std::printf("HDL-32E pair: %zu / %zu points after preprocessing (of %zu / %zu)\n", scan_668.size(), scan_071.size(), raw_668.size(), raw_071.size());
  std::printf("  map 668, register 071: %d iterations (converged %d), %zu residuals; vs relative.txt %.4f m %.3f deg, vs its inverse %.4f m %.3f deg\n",
              forward.iterations, forward.converged, forward.effective, fwd_vs_relative.translation, fwd_vs_relative.rotation_deg, fwd_vs_inverse.translation,
              fwd_vs_inverse.rotation_deg);
  std::printf("  map 071, register 668: %d iterations (converged %d), %zu residuals; vs inverse %.4f m %.3f deg, vs relative.txt %.4f m %.3f deg\n",
              backward.iterations, backward.converged, backward.effective, bwd_vs_inverse.translation, bwd_vs_inverse.rotation_deg, bwd_vs_relative.translation,
              bwd_vs_relative.rotation_deg);

  // Direction: relative.txt is T_668_071 (p_668 = relative * p_071), the pose of scan 071 in scan 668's
  // frame. Both registrations say so: each lands within centimetres of that reading and about a
  // metre from the other (the scans are ~0.5 m apart, so the two readings differ by ~1 m).
  EXPECT_LT(fwd_vs_relative.translation, 0.1);
  EXPECT_GT(fwd_vs_inverse.translation, 0.5);
  EXPECT_LT(bwd_vs_inverse.translation, 0.1);
  EXPECT_GT(bwd_vs_relative.translation, 0.5);

  // Accuracy, forward (668 is the target, as where the pair comes from). Measured 2.2 cm and 0.15 deg
  // (1.6 cm and 0.10 deg before #17's plane spread: a one-scan map of a spinning lidar is mostly scan
  // lines, and the rule keeps only planes across two of them). The backward result is not held to
  // these bounds: it lands 2.9 cm and 0.20 deg off (3.3 cm and 0.28 deg before).
  EXPECT_GE(forward.effective, params.min_effective);
  EXPECT_LT(fwd_vs_relative.translation, 0.05);
  EXPECT_LT(fwd_vs_relative.rotation_deg, 0.3);
}

// ---- IMU propagation -----------------------------------------------------------------------------

/// imu.txt: lines "t ax ay az wx wy wz" (s, m/s^2, rad/s).
bool read_imu_txt(const fs::path& path, std::vector<ImuData>& out, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot open " + path.string();
    return false;
  }
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    ImuData s;
    if (!(ss >> s.stamp >> s.acc.x() >> s.acc.y() >> s.acc.z() >> s.gyro.x() >> s.gyro.y() >> s.gyro.z())) {
      error = path.string() + ":" + std::to_string(number) + ": expected 't ax ay az wx wy wz'";
      return false;
    }
    out.push_back(s);
  }
  return true;
}

struct ImuState {
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();  ///< R_world_imu
  Eigen::Vector3d p = Eigen::Vector3d::Zero();      ///< p_world [m]
  Eigen::Vector3d v = Eigen::Vector3d::Zero();      ///< v_world [m/s]
};

/// FastLio::propagate's state update from `t_begin` to `t_end`: over each interval between samples
/// (clipped to the span), the mean of its two samples, bias-corrected; from the last sample to the end,
/// that sample's rates.
ImuState propagate_like_fastlio(ImuState x, const std::vector<ImuData>& imu, double t_begin, double t_end, const Eigen::Vector3d& bias_gyro,
                                const Eigen::Vector3d& bias_acc, const Eigen::Vector3d& g_world) {
  // The last sample at or before t_begin, as FastLio keeps last_imu_ from the previous scan.
  const auto after = std::upper_bound(imu.begin(), imu.end(), t_begin, [](double t, const ImuData& s) { return t < s.stamp; });
  std::size_t k = after == imu.begin() ? 0 : static_cast<std::size_t>(after - imu.begin()) - 1;
  double t = t_begin;
  auto step = [&](const ImuData& a, const ImuData& b, double t0, double t1) {
    const double dt = t1 - t0;
    if (!(dt > 0.0)) return;
    const Eigen::Vector3d w = 0.5 * (a.gyro + b.gyro) - bias_gyro;
    const Eigen::Vector3d acc = 0.5 * (a.acc + b.acc) - bias_acc;
    const Eigen::Vector3d acc_world = x.R * acc + g_world;
    x.p += x.v * dt + 0.5 * acc_world * dt * dt;
    x.v += acc_world * dt;
    x.R = x.R * so3::exp(w * dt);
    t = t1;
  };
  for (; k + 1 < imu.size() && t < t_end; ++k) step(imu[k], imu[k + 1], std::max(imu[k].stamp, t), std::min(imu[k + 1].stamp, t_end));
  if (t < t_end) step(imu[k], imu[k], t, t_end);
  return x;
}

/// Reference orientation at `t`, interpolated between the 10 Hz poses.
Eigen::Matrix3d reference_rotation(const std::vector<StampedPose>& ref, double t) {
  const auto after = std::upper_bound(ref.begin(), ref.end(), t, [](double v, const StampedPose& p) { return v < p.stamp; });
  if (after == ref.begin()) return ref.front().T_world_imu.linear();
  if (after == ref.end()) return ref.back().T_world_imu.linear();
  const StampedPose& a = *(after - 1);
  const Eigen::Quaterniond qa(a.T_world_imu.linear()), qb(after->T_world_imu.linear());
  return qa.slerp((t - a.stamp) / (after->stamp - a.stamp), qb).toRotationMatrix();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct WindowErrors {
  std::vector<double> rotation_deg, position;  ///< one per window, after 1 s
  double rotation_median() const { return median(rotation_deg); }
  double rotation_max() const { return *std::max_element(rotation_deg.begin(), rotation_deg.end()); }
  double position_median() const { return median(position); }
  double position_max() const { return *std::max_element(position.begin(), position.end()); }
};

/// 1 s windows starting at every 50th reference pose (every 5 s) with IMU data around them: R and p
/// from the reference, v by a central difference of the neighbouring reference positions (0.2 s apart),
/// propagated to the reference pose 10 later and compared with it.
WindowErrors propagate_windows(const std::vector<ImuData>& imu, const std::vector<StampedPose>& ref, const Eigen::Vector3d& bias_gyro,
                               const Eigen::Vector3d& bias_acc, const Eigen::Vector3d& g_world) {
  WindowErrors errors;
  for (std::size_t k = 1; k + 10 < ref.size(); k += 50) {
    const StampedPose& start = ref[k];
    const StampedPose& end = ref[k + 10];
    if (start.stamp < imu.front().stamp || end.stamp > imu.back().stamp) continue;
    ImuState x;
    x.R = start.T_world_imu.linear();
    x.p = start.T_world_imu.translation();
    x.v = (ref[k + 1].T_world_imu.translation() - ref[k - 1].T_world_imu.translation()) / (ref[k + 1].stamp - ref[k - 1].stamp);
    const ImuState y = propagate_like_fastlio(x, imu, start.stamp, end.stamp, bias_gyro, bias_acc, g_world);
    errors.rotation_deg.push_back(angle_deg(end.T_world_imu.linear().transpose() * y.R));
    errors.position.push_back((y.p - end.T_world_imu.translation()).norm());
  }
  return errors;
}

/// imu_with_reference/: imu.txt and its reference trajectory traj.txt (TUM).
bool read_imu_with_reference(const fs::path& dir, std::vector<ImuData>& imu, std::vector<StampedPose>& ref, std::string& error) {
  return read_imu_txt(dir / "imu.txt", imu, error) && read_tum((dir / "traj.txt").string(), ref, &error);
}

TEST(RealData, ImuMidpointPropagationFollowsReferenceOverOneSecond) {
  const fs::path dir = real_data_dir("imu_with_reference");
  if (!fs::is_directory(dir)) GTEST_SKIP() << absent_message(dir);
  std::vector<ImuData> imu;
  std::vector<StampedPose> ref;
  std::string error;
  ASSERT_TRUE(read_imu_with_reference(dir, imu, ref, error)) << error;
  ASSERT_GT(imu.size(), 20000u);
  ASSERT_GT(ref.size(), 2000u);

  // Gravity from the data: over the 237 s the velocity barely changes, so the mean specific force in
  // the reference world frame is -g (plus the world-frame mean of any accelerometer bias, which is then
  // absorbed). Measured 9.808 m/s^2 at 0.04 deg from +z: the reference world is z-up and gravity is
  // (0, 0, -|g|), as in asuka's convention.
  Eigen::Vector3d mean_force = Eigen::Vector3d::Zero();
  std::size_t count = 0;
  for (const auto& s : imu) {
    if (s.stamp < ref.front().stamp || s.stamp > ref.back().stamp) continue;
    mean_force += reference_rotation(ref, s.stamp) * s.acc;
    ++count;
  }
  mean_force /= static_cast<double>(count);
  const double g = mean_force.norm();
  const double tilt_deg = std::acos(mean_force.z() / g) * 180.0 / M_PI;
  const Eigen::Vector3d g_world(0.0, 0.0, -g);

  // Biases: there is no static segment (the sensor turns at ~0.03 rad/s from the first sample), so
  // both are taken as zero. For the gyro that is checked: its mean difference from the reference
  // rotation rate over the recording is ~2e-4 rad/s, 0.01 deg per window. An accelerometer bias is not
  // separable from gravity and the velocity error here; it shows in the position bound below.
  Eigen::Vector3d gyro_minus_reference = Eigen::Vector3d::Zero();
  std::size_t intervals = 0;
  for (std::size_t i = 0; i + 1 < ref.size(); ++i) {
    const double t0 = ref[i].stamp, t1 = ref[i + 1].stamp;
    auto first = std::lower_bound(imu.begin(), imu.end(), t0 - 1e-4, [](const ImuData& s, double t) { return s.stamp < t; });
    Eigen::Vector3d sum = Eigen::Vector3d::Zero();
    int n = 0;
    for (; first != imu.end() && first->stamp < t1 - 1e-4; ++first, ++n) sum += first->gyro;
    if (n < 5) continue;
    gyro_minus_reference += sum / n - so3::log(ref[i].T_world_imu.linear().transpose() * ref[i + 1].T_world_imu.linear()) / (t1 - t0);
    ++intervals;
  }
  gyro_minus_reference /= static_cast<double>(intervals);

  const WindowErrors errors = propagate_windows(imu, ref, Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(), g_world);

  // The same with a constant bias added to every sample and handed to the integration: a bias it
  // does not remove (or adds) costs ~1.4 deg and ~0.13 m per window. (The recording's own gyro bias
  // is too small to show a missing correction.)
  const Eigen::Vector3d added_bias_gyro(0.01, -0.01, 0.02);  // [rad/s], 1.4 deg/s: an uncalibrated MEMS gyro
  const Eigen::Vector3d added_bias_acc(0.2, -0.15, 0.1);     // [m/s^2]
  std::vector<ImuData> biased = imu;
  for (auto& s : biased) {
    s.gyro += added_bias_gyro;
    s.acc += added_bias_acc;
  }
  const WindowErrors biased_errors = propagate_windows(biased, ref, added_bias_gyro, added_bias_acc, g_world);

  std::printf("IMU: %zu samples, %zu reference poses; gravity %.4f m/s^2, %.3f deg from +z; gyro - reference rate (%.6f %.6f %.6f) rad/s\n", imu.size(),
              ref.size(), g, tilt_deg, gyro_minus_reference.x(), gyro_minus_reference.y(), gyro_minus_reference.z());
  std::printf("  %zu windows of 1 s: rotation median %.4f max %.4f deg, position median %.4f max %.4f m\n", errors.rotation_deg.size(),
              errors.rotation_median(), errors.rotation_max(), errors.position_median(), errors.position_max());
  std::printf("  with an added, compensated bias: rotation median %.4f max %.4f deg, position median %.4f max %.4f m\n", biased_errors.rotation_median(),
              biased_errors.rotation_max(), biased_errors.position_median(), biased_errors.position_max());

  EXPECT_NEAR(g, 9.81, 0.05);
  EXPECT_LT(tilt_deg, 0.5);
  EXPECT_LT(gyro_minus_reference.norm(), 5e-4) << "the gyro has a bias; estimate it instead of assuming zero";
  ASSERT_GE(errors.rotation_deg.size(), 40u);  // 237 s every 5 s

  // Bounds. Rotation: the gyro's white noise (~0.0018 rad/s per sample, from successive differences)
  // integrates to ~0.01 deg per axis in 1 s, ~0.017 deg in norm; with the reference's own error the
  // measured median is 0.024 deg and the max 0.052 deg. Position: the noise floor is ~2 mm (0.02 m/s^2
  // per sample); what dominates is the start velocity (a difference of reference positions 0.2 s
  // apart: 2 mm of reference noise is ~1.4 cm/s, i.e. 1.4 cm after 1 s) and the unmodelled
  // accelerometer bias (0.05 m/s^2 would be 2.5 cm); measured median 1.4 cm, max 2.7 cm. The bounds
  // are about twice that. Broken integrations miss them by far (measured): gravity with the wrong sign
  // 9.8 m, the rotation increment on the wrong side 7 deg (median), a bias left in 1.4 deg or 0.14 m.
  constexpr double kRotationMedianDeg = 0.05, kRotationMaxDeg = 0.1, kPositionMedian = 0.03, kPositionMax = 0.06;
  for (const WindowErrors* e : {&errors, &biased_errors}) {
    EXPECT_LT(e->rotation_median(), kRotationMedianDeg);
    EXPECT_LT(e->rotation_max(), kRotationMaxDeg);
    EXPECT_LT(e->position_median(), kPositionMedian);
    EXPECT_LT(e->position_max(), kPositionMax);
  }
}

// #12 item 1 on a real IMU: a moving start takes gravity from the gyro-compensated mean specific force
// over the initialization's samples (ImuInitializer::rotation_from_motion). Over 0.5 s windows every
// 5 s of the recording (50 samples at 100 Hz, the sensor turning and moving at 0.15-0.25 m/s), the
// tilt it gives is compared with the reference's. The plain mean (the at-rest rule) is compared too:
// turning, it mixes specific forces measured in different frames.
TEST(RealData, Issue12_GravityFromMotionFollowsTheReferenceTilt) {
  const fs::path dir = real_data_dir("imu_with_reference");
  if (!fs::is_directory(dir)) GTEST_SKIP() << absent_message(dir);
  std::vector<ImuData> imu;
  std::vector<StampedPose> ref;
  std::string error;
  ASSERT_TRUE(read_imu_with_reference(dir, imu, ref, error)) << error;

  constexpr std::size_t kWindow = 50;
  std::vector<double> from_motion, plain;
  bool first_window_moving = true;
  const Eigen::Vector3d up = Eigen::Vector3d::UnitZ();
  for (std::size_t begin = 0; begin + kWindow + 1 < imu.size(); begin += 500) {
    const double end = imu[begin + kWindow].stamp;  // the last sample the initializer takes
    if (imu[begin].stamp < ref.front().stamp || end > ref.back().stamp) continue;
    lio::ImuInitializer init(kWindow - 1, Eigen::Vector3d(0.0, 0.0, -9.81));  // initialized after max_init_count + 1 samples
    bool done = false;
    for (std::size_t k = begin; k <= begin + kWindow && !done; ++k) done = init.add(imu[k]);
    ASSERT_TRUE(done);
    if (from_motion.empty()) first_window_moving = init.moving();
    // The tilt: "up" in the IMU frame at `end`, the yaw left out.
    const Eigen::Vector3d up_reference = reference_rotation(ref, end).transpose() * up;
    const auto tilt_error = [&](const Eigen::Matrix3d& R) { return std::acos(std::clamp((R.transpose() * up).dot(up_reference), -1.0, 1.0)) * 180.0 / M_PI; };
    from_motion.push_back(tilt_error(init.rotation_from_motion({}, end)));
    plain.push_back(tilt_error(init.rotation()));
  }
  ASSERT_GE(from_motion.size(), 40u);
  const double motion_max = *std::max_element(from_motion.begin(), from_motion.end());
  std::printf("  %zu windows: tilt error from motion median %.3f max %.3f deg; plain mean median %.3f max %.3f deg\n", from_motion.size(),
              median(from_motion), motion_max, median(plain), *std::max_element(plain.begin(), plain.end()));
  // Measured: from motion median 0.3, max 1.0 deg; the plain mean median 0.7, max 2.3 deg. (An
  // accelerometer bias of 0.05 m/s^2 alone tilts by 0.3 deg.) A rotation integrated on the wrong side,
  // or the forces left in their own frames, would land at the plain mean's figures or beyond.
  EXPECT_LT(median(from_motion), 0.5);
  EXPECT_LT(motion_max, 1.5);
  EXPECT_LT(median(from_motion), 0.7 * median(plain));
  // The recording starts turning slowly (~0.03 rad/s): real MEMS noise does not read as a moving start.
  EXPECT_FALSE(first_window_moving);
}

}  // namespace
}  // namespace asuka
