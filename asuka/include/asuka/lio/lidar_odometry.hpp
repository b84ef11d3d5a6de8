#pragma once
// LiDAR-only odometry in the LiDAR's own frame: each scan de-skewed with the last scan-to-scan
// motion (constant velocity), registered point-to-plane against a local map of the scans before it
// (scan_registration.hpp; a coarse residual gate first, then the filters'), from the constant-velocity
// prediction, and then added to that map. No IMU and no extrinsic: it is what the LiDAR alone says
// about the motion, for checks that must not lean on the IMU (extrinsic_check.hpp). A pose refers
// to the mean time of the scan's registered points. Not an estimator: its poses drift, and nothing
// else uses them.
// Threads: one caller at a time.

#include <cstddef>
#include <vector>

#include <Eigen/Geometry>

#include <asuka/core/types.hpp>
#include <asuka/lio/scan_registration.hpp>
#include <asuka/lio/voxel_map.hpp>

namespace asuka::lio {

struct LidarOdometryParams {
  double source_voxel_size = 0.5;       ///< [m] the scan is down-sampled to this for registration ...
  std::size_t max_source_points = 1500; ///< ... and thinned evenly to at most this many points
  double map_insert_voxel_size = 0.2;   ///< [m] the scan joins the map down-sampled to this
  VoxelMapParams map{0.5, 20, 0.2, 100.0};
  double coarse_max_residual = 0.5;     ///< [m] residual gate of the first, coarse registration pass ...
  int coarse_max_iterations = 7;        ///< ... and its iterations
  /// [m] > 0: while the motion is unknown (no two scans registered in a row yet) a pass with this wider
  /// gate comes first, for a sensor that may already move tens of centimetres per scan (0: none)
  double unknown_motion_max_residual = 0.0;
  RegistrationParams registration = default_registration();

  static RegistrationParams default_registration() {
    RegistrationParams r;
    r.min_effective = 50;
    r.max_iterations = 15;
    // De-skewed by constant velocity only, a scan does not settle as finely as a filter's; a step below
    // these is far below what the check compares (rotations of 0.02 rad and more per interval).
    r.rotation_tolerance = 5e-4;
    r.translation_tolerance = 5e-3;
    return r;
  }
};

class LidarOdometry {
public:
  struct Scan {
    bool registered = false;  ///< registered against the map (false: the first scan, or the map restarted from it)
    double time = 0.0;        ///< [s] the time the pose refers to: the frame stamp plus the mean offset of the registered points
    Eigen::Isometry3d T_map_lidar = Eigen::Isometry3d::Identity();
    std::size_t effective = 0;  ///< residuals of the last iteration
  };

  explicit LidarOdometry(const LidarOdometryParams& params = {});

  /// Registers `frame` (points in the LiDAR frame, preprocessed) and adds it to the map. A scan that
  /// does not register (too few planes, no convergence) joins the map at the predicted pose; after
  /// kMaxFailures such scans in a row the map restarts from the last, with the motion unknown.
  Scan add(const LidarFrame& frame, const Eigen::Matrix3d* rotation_hint = nullptr, double hint_dt = 0.0);
  /// A scan the caller knows was taken at rest: it joins the map at the last pose without being
  /// registered, and the motion is known to be none. Costs the map insertion only.
  void hold(const LidarFrame& frame);
  void reset();

  /// The last scan-to-scan motion (T_last_prev^-1 T_last, in the earlier scan's LiDAR frame), the
  /// interval it took [s], and the share of the last registration's residuals that constrain each
  /// direction of its translation (`constrained_share`: eigenvalues of sum n n^T / residuals, with
  /// their directions in the same frame as `motion`), when two scans in a row have registered.
  bool last_motion(Eigen::Isometry3d& motion, double& dt, Eigen::Vector3d& constrained_share, Eigen::Matrix3d& directions) const;
  /// Whether last_motion() has one.
  bool has_motion() const { return velocity_dt_ > 0.0 && last_effective_ > 0; }

private:
  RegistrationResult register_coarse_to_fine(const std::vector<Eigen::Vector3d>& source, const Eigen::Isometry3d& initial, bool motion_known) const;
  /// Adds the scan's points, `corrected(point)` in the LiDAR frame, to the map at `pose`.
  template <class Correct>
  void join_map(const LidarFrame& frame, const Eigen::Isometry3d& pose, const Correct& corrected);

  LidarOdometryParams params_;
  VoxelMap map_;
  bool have_last_ = false;
  Eigen::Isometry3d last_ = Eigen::Isometry3d::Identity();
  Eigen::Isometry3d velocity_ = Eigen::Isometry3d::Identity();  ///< T_prev^-1 T_last: the last scan-to-scan motion ...
  double velocity_dt_ = 0.0;                                      ///< [s] ... over this interval (0: the motion is unknown)
  double last_time_ = 0.0;
  Eigen::Matrix3d last_information_ = Eigen::Matrix3d::Zero();  ///< the last registration's, map frame
  std::size_t last_effective_ = 0;
  static constexpr int kMaxFailures = 5;
  int failures_ = 0;  ///< scans in a row that did not register
};

}  // namespace asuka::lio
