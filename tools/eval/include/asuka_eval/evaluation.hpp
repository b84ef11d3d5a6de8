#pragma once
// Trajectory evaluation against ground truth: association by time (GT interpolated), SE(3) Umeyama
// alignment without scale, ATE, KITTI-style drift and RPE over a path distance, coverage.
// Every definition, its units and its evo equivalent are in docs/evaluation.md.
//
// Library code: it never prints; a problem that makes the inputs incomparable throws EvalError with
// a message naming the file, the line or the time ranges.

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Geometry>

#include <asuka/io/trajectory_io.hpp>

namespace asuka::eval {

/// The two trajectories cannot be compared (unreadable file, bad line, no overlap, too few poses).
class EvalError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// ---- Input ---------------------------------------------------------------------------------------

/// Reads a TUM file with asuka::read_tum and checks that it can be evaluated: at least one pose and
/// strictly increasing stamps. `what` names the file in messages ("estimate", "ground truth").
std::vector<asuka::StampedPose> load_trajectory(const std::string& path, const std::string& what);

/// Parses "x y z qx qy qz qw" (spaces or commas) into a pose; the quaternion must be unit within
/// 1e-3 (as in TUM files) and is normalized. Throws std::invalid_argument naming the text.
Eigen::Isometry3d parse_pose(const std::string& text);

// ---- Association -------------------------------------------------------------------------------

struct AssociationParams {
  double max_dt = 0.01;  ///< [s] nearest-neighbour tolerance where GT cannot be interpolated (evo's t_max_diff)
  double max_gap = 0.5;  ///< [s] longest interval between two GT poses that is bridged by interpolation
};

/// Estimate poses paired with the ground truth at the same stamp, in time order.
struct Association {
  std::vector<double> stamps;            ///< [s] the estimate's stamps that were associated
  std::vector<Eigen::Isometry3d> T_est;  ///< estimate poses (in the estimate's world frame until aligned)
  std::vector<Eigen::Isometry3d> T_gt;   ///< ground truth at the same stamps (interpolated or nearest)
  std::size_t interpolated = 0;          ///< pairs whose GT was interpolated between two GT poses
  std::size_t nearest = 0;               ///< pairs whose GT is the nearest GT pose within max_dt
  std::size_t skipped_outside = 0;       ///< estimate poses outside the GT time span (beyond max_dt)
  std::size_t skipped_gap = 0;           ///< estimate poses inside a GT gap longer than max_gap
  std::size_t size() const { return stamps.size(); }
};

/// For every estimate pose: if GT poses a (stamp <= t) and b (stamp > t) exist and
/// t_b - t_a <= max_gap, GT is interpolated at t (linear translation, slerp rotation); otherwise the
/// nearest of a and b is used if it is within max_dt of t; otherwise the pose is skipped (counted).
/// Both inputs must be sorted by stamp (load_trajectory checks it).
Association associate(const std::vector<asuka::StampedPose>& est, const std::vector<asuka::StampedPose>& gt, const AssociationParams& params = {});

/// The pose at fraction alpha in [0, 1] between a and b: linear translation, slerp rotation.
Eigen::Isometry3d interpolate(const Eigen::Isometry3d& a, const Eigen::Isometry3d& b, double alpha);

// ---- Building blocks -----------------------------------------------------------------------------

/// Closed-form least-squares rigid transform (Umeyama 1991, no scale): T minimizing
/// sum |dst_i - T * src_i|^2 over rotations (det = +1, reflections excluded) and translations.
Eigen::Isometry3d align_umeyama(const std::vector<Eigen::Vector3d>& src, const std::vector<Eigen::Vector3d>& dst);

/// Rotation angle of R in [0, pi] [rad], accurate near zero.
double rotation_angle(const Eigen::Matrix3d& R);

/// Statistics of a list of errors, defined as numpy/evo define them (std: population, median: mean of
/// the two middle values for an even count). All zero when empty (count says so).
struct ErrorStats {
  std::size_t count = 0;
  double rmse = 0.0;
  double mean = 0.0;
  double median = 0.0;
  double std = 0.0;
  double min = 0.0;
  double max = 0.0;
  double sse = 0.0;  ///< sum of squares
};
ErrorStats compute_stats(const std::vector<double>& values);

/// Accumulated path length at each position: d_0 = 0, d_i = d_{i-1} + |p_i - p_{i-1}| [m].
std::vector<double> accumulated_distances(const std::vector<Eigen::Isometry3d>& poses);

/// The KITTI segment lengths 100, 200, ..., 800 m multiplied by the largest factor s of the series
/// 1, 0.5, 0.2, 0.1, 0.05, ... with 800 s <= path_length / 2 (s = 1 for paths of 1600 m or more).
/// Empty for a path shorter than 0.16 m (the factor stops at 1e-4).
std::vector<double> drift_segment_lengths(double path_length);

/// Relative pose error of one pair: E = (G_i^-1 G_j)^-1 (P_i^-1 P_j) (evo's RPE, TUM RGB-D notation).
Eigen::Isometry3d relative_error(const Eigen::Isometry3d& gt_i, const Eigen::Isometry3d& gt_j, const Eigen::Isometry3d& est_i, const Eigen::Isometry3d& est_j);

// ---- Metrics -----------------------------------------------------------------------------------

struct DriftLength {
  double length = 0.0;             ///< [m] nominal segment length
  std::size_t segments = 0;        ///< segments of this length found
  double translation_percent = 0;  ///< [%] mean |t(E)| / length * 100
  double rotation_deg_per_m = 0;   ///< [deg/m] mean angle(E) / length
};

/// KITTI-style drift: every associated pose starts a segment of each length, which ends at the first
/// pose whose GT path distance from the start is >= the length; means over all segments.
struct DriftResult {
  double path_length = 0.0;  ///< [m] GT path length over the associated poses
  std::vector<DriftLength> lengths;
  std::size_t segments = 0;          ///< all segments, all lengths
  double translation_percent = 0.0;  ///< [%] mean over all segments
  double rotation_deg_per_m = 0.0;   ///< [deg/m] mean over all segments
  bool valid() const { return segments > 0; }
};
DriftResult compute_drift(const std::vector<Eigen::Isometry3d>& T_est, const std::vector<Eigen::Isometry3d>& T_gt);

/// RPE over a path distance, as evo_rpe --delta D --delta_unit m --all_pairs (default tolerance 10 %):
/// every pose i pairs with the later pose j whose path distance from i along the estimate is
/// closest to D, if within rel_tol * D.
struct RpeResult {
  double delta = 1.0;      ///< [m]
  double rel_tol = 0.1;    ///< relative tolerance on the path distance
  ErrorStats translation;  ///< [m] |t(E)|
  ErrorStats rotation;     ///< [deg] angle(R(E))
  bool valid() const { return translation.count > 0; }
};
RpeResult compute_rpe(const std::vector<Eigen::Isometry3d>& T_est, const std::vector<Eigen::Isometry3d>& T_gt, double delta, double rel_tol = 0.1);

// ---- The whole evaluation ----------------------------------------------------------------------

struct EvalParams {
  AssociationParams association;
  bool align = true;                          ///< SE(3) Umeyama alignment (evo's -a); false: compare as given
  /// Align by the first associated pose instead (T_gt,0 T_est,0^-1, evo's --align_origin): the errors
  /// grow from zero as from a common initial state (#21: a frontend against IMU dead reckoning).
  bool align_origin = false;
  std::optional<Eigen::Isometry3d> T_est_gt;  ///< estimate body -> GT body extrinsic, applied as T_world_est * T_est_gt
  double rpe_delta = 1.0;                     ///< [m] path distance of the RPE pairs
  double rpe_rel_tol = 0.1;                   ///< relative tolerance of the RPE pairs (evo's default)
  std::size_t min_associated = 3;             ///< fewer associated poses than this is an error
};

struct EvalResult {
  std::size_t est_count = 0, gt_count = 0;
  double est_start = 0.0, est_end = 0.0;                          ///< [s]
  double gt_start = 0.0, gt_end = 0.0;                            ///< [s]
  Association association;                                        ///< T_est aligned (and with the extrinsic applied)
  Eigen::Isometry3d T_alignment = Eigen::Isometry3d::Identity();  ///< GT world <- estimate world (identity without alignment)
  std::vector<Eigen::Vector3d> est_positions;                     ///< every estimate position, extrinsic and alignment applied (for plots)
  std::vector<Eigen::Vector3d> gt_positions;                      ///< every GT position (for plots)
  double coverage = 0.0;                                          ///< fraction of the GT duration spanned by the associated poses, [0, 1]
  std::vector<double> ate_errors;                                 ///< [m] per associated pose
  ErrorStats ate;                                                 ///< [m]
  /// #21: the ATE split by the GT world's axes (rms of each component of the aligned position error)
  /// [m], and the rms rotation error [deg] of the aligned orientations.
  Eigen::Vector3d ate_axes_rmse = Eigen::Vector3d::Zero();
  double rotation_rmse_deg = 0.0;
  /// The aligned position error of the last associated pose (estimate - GT, GT world) [m].
  Eigen::Vector3d final_error = Eigen::Vector3d::Zero();
  DriftResult drift;
  RpeResult rpe;
  /// The SE(3) alignment checked against the orientations: the angle between its rotation and the
  /// rotation that best maps the estimate's orientations onto the ground truth's (projected mean of
  /// R_gt R_est^T) [deg]. Large when the positions do not pin the alignment down (a short, straight or
  /// planar path: the alignment then tilts the estimate to fit drift away) or when the estimated
  /// orientation is off. Only with the SE(3) alignment, else 0.
  double alignment_disagreement_deg = 0.0;
  /// What a reader of the numbers must know (e.g. the disagreement above kAlignmentDisagreementDeg).
  std::vector<std::string> warnings;
};

/// [deg] an alignment_disagreement_deg above this is warned about.
inline constexpr double kAlignmentDisagreementDeg = 5.0;

/// Runs everything. Throws EvalError when the trajectories cannot be compared: no temporal overlap
/// (the message gives both time ranges) or fewer than min_associated associated poses (with the
/// reason: outside the GT span, in GT gaps). Throws std::invalid_argument on bad parameters.
EvalResult evaluate(const std::vector<asuka::StampedPose>& est, const std::vector<asuka::StampedPose>& gt, const EvalParams& params = {});

// ---- Reports -----------------------------------------------------------------------------------

struct ReportInfo {
  std::string est_path;
  std::string gt_path;
  /// #21: intervals [begin, end] (stamps [s]) the plot shades on the ATE-over-time panel, with what
  /// they are (the legend): the degenerate intervals of an asuka report.json (--report).
  std::vector<std::pair<double, double>> shaded;
  std::string shaded_label;
};

/// #21: the degenerate intervals (degeneracy.intervals: begin_s, end_s) of an asuka_rosbag or
/// asuka_rosnode report.json. Throws std::runtime_error naming the file and what is missing.
std::vector<std::pair<double, double>> load_degenerate_intervals(const std::string& report_path);

/// The human-readable summary (several lines, ends with a newline).
std::string format_summary(const EvalResult& result, const EvalParams& params, const ReportInfo& info);

/// Every number as JSON (schema in docs/evaluation.md), pretty-printed.
std::string format_json(const EvalResult& result, const EvalParams& params, const ReportInfo& info);

/// A standalone SVG document: top view (x, y) of the aligned estimate over the ground truth, and the
/// ATE over time.
std::string render_svg(const EvalResult& result, const ReportInfo& info);

}  // namespace asuka::eval
