#pragma once
// The LiDAR-IMU extrinsic rotation, checked against the motion (#16): a wrong extrinsic rotation (a
// lidar mounted upside down or turned, axes swapped in the configuration) gave a trajectory tens of
// metres off with exit 0, because the filter's rotation follows the gyroscope and the LiDAR's
// disagreement spreads over the state as if it were noise.
//
// The check is hand-eye calibration's rotation part. Over one interval between two scans, the
// rotation the LiDAR registers, as a rotation vector theta_L in the LiDAR frame, and the one the
// gyroscope integrates, theta_I in the IMU frame, are the same rotation seen from two frames:
// theta_I = R_imu_lidar theta_L exactly (the rotation vector of R A R^T is R times A's). So:
//   - theta_L comes from LidarOdometry (no IMU, no extrinsic), theta_I from the gyroscope between
//     the same two times (the mean times of the registered points);
//   - per interval, the angle between theta_I and R_configured theta_L; its median over the
//     intervals, weighted by how far each turned, is the disagreement (robust to a registration that
//     slipped);
//   - when the motion turned about two axes or more, the rotation that maps every theta_L onto its
//     theta_I best (the orthogonal Procrustes solution) is the estimate to suggest; about one axis
//     only (a car's yaw), the check still sees whether that axis is mapped right.
// A gyroscope bias adds |b| dt per interval, far below the 0.02 rad an interval must turn to count.
// A LiDAR-IMU time offset scatters the pairs instead of turning them consistently, so the estimate
// fits badly and no wrong rotation is claimed (the host's time-offset check names the offset).
//
// The rotation's angle is the same in every frame, so an interval whose LiDAR angle differs from the
// gyroscope's is a registration that slipped, whatever the extrinsic: it is left out, and when more
// than `max_slipped_share` of the intervals slipped, the LiDAR alone is not trusted to judge (sparse
// 16-line lidars in fast hand-held motion): no verdict. The check runs from the first scan after IMU
// initialization until the intervals have turned `min_total_rotation` in all (a few seconds of
// hand-held motion; scans the frontend holds at rest after a static start only fill its map), then
// gives its verdict once and costs nothing more; after `max_scans` without
// that much rotation it gives up (verdict NONE), and after 50 scans already when the LiDAR alone
// slips on most intervals. While it runs, the check costs the LiDAR-only registration of every scan
// (docs/sensors.md has the numbers).
//
// The same intervals check the gyroscope's scale (#12 item 3): over every interval in which the LiDAR
// turned at least `scale_min_lidar_angle` (well above its registration noise), the gyroscope's angle
// over the LiDAR's. Its median is 1 whatever the extrinsic; a gyroscope in deg/s reads 57 times the
// angle, and a gyro_scale of 0.0175 given to one in rad/s a 57th. Once `scale_min_intervals` such
// intervals give a median beyond `max_scale_ratio` either way, and most of them agree with it (one
// factor on every interval, where slipped registrations scatter), the verdict is GYRO_SCALE, an input
// error (the host's unit checks catch a deg/s gyroscope only when it reads above 10 rad/s, and
// nothing catches a wrong gyro_scale), when the factor is a unit mix-up: within 2x of 57.3 either
// way. Any other factor is GYRO_SCALE_SUSPECT, a warning, once, and the check goes on: the LiDAR
// alone can turn steadily by the wrong angle. It de-skews each scan with the last scan-to-scan motion,
// and a 16-line sweep de-skewed with a spin registers as that spin again: on 3 of 40 generated VLP-16
// and RS-16 runs (city and field, 15 s) it turned 0.05-0.27 rad per scan, most often over the first
// seconds of motion while its map was young, where the gyroscope, right, turned 0.009-0.045; 8 of 10
// ratios agreed within 1.25x and those runs were refused. Nothing else at hand tells such a spin from
// a gyroscope 3-28x off: the filter's own registration follows the gyroscope into a map built from
// its own poses (with the gyroscope 5x off, fastlio "registered" every Avia scan with hundreds of
// rows, 34 m off), a slope test of the LiDAR's angle against the gyroscope's was fooled as well, and
// dropping rotation from the de-skew moved the false cases to another seed. A spin of 57x the
// gyroscope's angle (0.9 rad per scan for a gentle turn) or a 57th of it was never seen.
// Threads: the frontend's worker thread.

#include <cstddef>
#include <deque>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include <asuka/core/types.hpp>
#include <asuka/lio/lidar_odometry.hpp>

namespace asuka::lio {

struct ExtrinsicCheckParams {
  bool enabled = true;               ///< sensor.extrinsic_check
  std::size_t max_scans = 300;       ///< scans after which the check gives up without a verdict
  std::size_t give_up_after_scans = 50;  ///< from here, more than half of the intervals slipped: no verdict
  std::size_t min_pairs = 20;        ///< intervals needed for a verdict
  double min_pair_rotation = 0.02;   ///< [rad] an interval that turned less is not used (its axis is mostly registration noise)
  double max_angle_mismatch = 0.25;  ///< a pair whose LiDAR angle differs from the gyroscope's by more than this share ...
  double angle_tolerance = 0.005;    ///< [rad] ... plus this has slipped: not used
  double max_slipped_share = 0.3;    ///< more of the intervals slipped: the LiDAR alone is not reliable enough here, no verdict
  double max_pair_interval = 0.25;   ///< [s] consecutive registered scans farther apart are not a pair
  double min_total_rotation = 2.0;   ///< [rad] the verdict is given once the used intervals turned this much
  double one_axis_total_rotation = 4.0;  ///< [rad] turned about one axis only, the verdict waits for a second axis up to this
  double min_second_axis = 0.05;     ///< [rad] rotation about the second axis (root of the summed squares) for a full estimate
  double max_fit_deg = 5.0;          ///< [deg] the estimate must explain the pairs this well to be suggested
  double warn_deg = 15.0;            ///< [deg] a disagreement beyond this is warned about
  double wrong_deg = 30.0;           ///< [deg] beyond this the configured rotation is wrong: an input error
  double scale_min_lidar_angle = 0.01;   ///< [rad] an interval the LiDAR turned less is not used for the scale
  std::size_t scale_min_intervals = 10;  ///< intervals for a scale verdict (a majority of them 3x off: no slipped registration does that)
  double max_scale_ratio = 3.0;          ///< the gyroscope's angle over the LiDAR's beyond this (or below its inverse): GYRO_SCALE(_SUSPECT) ...
  double scale_agreement = 1.25;         ///< ... when this share of the ratios lies within this factor of their median
  double scale_min_agreeing_share = 0.7;
  LidarOdometryParams odometry;
};

/// One interval: the rotation vectors the LiDAR (its frame) and the gyroscope (the IMU frame) saw.
struct RotationPair {
  Eigen::Vector3d lidar = Eigen::Vector3d::Zero();
  Eigen::Vector3d imu = Eigen::Vector3d::Zero();
};

class ExtrinsicCheck {
public:
  explicit ExtrinsicCheck(const ExtrinsicCheckParams& params = {}) : params_(params), odometry_(params.odometry) {}

  /// One scan (preprocessed, LiDAR frame) and the IMU samples that came with it (stamp order, every
  /// sample once over successive calls), with the extrinsic rotation in use. Returns the verdict on
  /// the call that reaches it (NONE when it gives up), else nothing (also after the verdict, and
  /// when disabled). `at_rest`: the frontend holds a static start at rest (hold_at_rest). Nothing
  /// turns, so the scan only joins the LiDAR odometry's map (LidarOdometry::hold) and is not counted:
  /// registered, it cost 10-12 ms per scan at rest on a corridor, where the translation along the
  /// axis never converges.
  std::optional<ExtrinsicRotationCheck> add(const LidarFrame& frame, const std::vector<ImuData>& imu, const Eigen::Matrix3d& R_imu_lidar,
                                            bool at_rest = false);
  /// Whether the check has finished (verdict given, given up, or disabled).
  bool done() const { return !params_.enabled || done_; }
  void reset();

  /// The verdict from collected pairs, on its own (tests): `R_configured` is R_imu_lidar.
  static ExtrinsicRotationCheck decide(const std::vector<RotationPair>& pairs, const Eigen::Matrix3d& R_configured, const ExtrinsicCheckParams& params);
  /// The rotation R minimizing sum w |imu - R lidar|^2 over the pairs (w = |imu|), a proper rotation.
  static Eigen::Matrix3d fit_rotation(const std::vector<RotationPair>& pairs);
  /// Whether the LiDAR's rotations turned about a second axis enough (min_second_axis) to determine
  /// the whole rotation.
  static bool second_axis_excited(const std::vector<RotationPair>& pairs, const ExtrinsicCheckParams& params);
  /// The median over the pairs, weighted by |imu|, of the angle [deg] between imu and R lidar.
  static double disagreement_deg(const std::vector<RotationPair>& pairs, const Eigen::Matrix3d& R);
  /// GYRO_SCALE when the ratios (the gyroscope's angle over the LiDAR's, per interval) are enough,
  /// their median lies beyond max_scale_ratio either way, most agree with it, and it is within 2x of
  /// 57.3 or its inverse (a unit mix-up); GYRO_SCALE_SUSPECT for another such factor; else nothing.
  static std::optional<ExtrinsicRotationCheck> check_gyro_scale(std::vector<double> ratios, const ExtrinsicCheckParams& params);
  /// The gyroscope's rotation from t0 to t1 over `samples` (stamp order), each interval between two
  /// samples at their mean rate; a sample before t0 and one after t1 are needed. Empty when not.
  static std::optional<Eigen::Matrix3d> integrate_gyro(const std::deque<ImuData>& samples, double t0, double t1);

private:
  /// Registers `frame` with the LiDAR alone and, with the scan registered before it, adds a pair.
  void register_scan(const LidarFrame& frame);
  /// Drops the gyroscope samples no interval from `t` on needs (one is kept at or before it).
  void drop_gyro_before(double t);

  ExtrinsicCheckParams params_;
  LidarOdometry odometry_;
  std::deque<ImuData> gyro_;
  std::vector<RotationPair> pairs_;
  double total_rotation_ = 0.0;
  std::size_t slipped_ = 0;
  std::vector<double> scale_ratios_;  ///< the gyroscope's angle over the LiDAR's, per interval (check_gyro_scale)
  std::size_t scans_ = 0;
  bool scale_warned_ = false;  ///< a GYRO_SCALE_SUSPECT was returned (once per run)
  bool have_last_ = false;
  LidarOdometry::Scan last_;
  bool done_ = false;
};

}  // namespace asuka::lio
