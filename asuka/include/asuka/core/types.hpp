#pragma once
// Core data types shared by every layer. Conventions (docs/conventions.md):
//   time      double seconds on the sensors' common time base ("stamp")
//   offsets   float milliseconds from the frame start ("offset_ms", R-PRE-2)
//   frames    T_target_source, e.g. T_world_imu; world = gravity-aligned IMU frame at initialization
//   units     SI; accelerations entering the core are m/s^2 (the ROS layer applies acc_scale)

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace asuka {

/// The input stream a stamp or an event belongs to (loop-back baselines, time offsets, executor
/// queues). Values are fixed (logged and stored in reports). NONE belongs to no sensor stream (the
/// digest's FrameId::WORLD): the loop-back check ignores it. CAMERA is the digest's FrameId::CAMERA.
enum class StreamId : int { NONE = 0, LIDAR = 1, IMU = 2, CAMERA = 3 };

/// Point layouts the input layer knows how to turn into a LidarFrame. New layouts are added as
/// CloudPreprocessor overloads (R-PLUG-4); the estimators never see the raw layout.
enum class LidarType : int {
  LIVOX = 0,          ///< Livox CustomMsg or PointXYZRTLT (Avia, Mid-360, ...)
  VELODYNE = 1,       ///< time f32 s relative to the header
  OUSTER = 2,         ///< t u32 ns from scan start
  ROBOSENSE = 3,      ///< timestamp f64 absolute s, or none (rebuilt from yaw)
  HESAI = 4,          ///< timestamp f64 absolute s
  INSTANTANEOUS = 5,  ///< simulator-style frame with every point at the frame stamp (R-SYNC-5)
};

/// Canonical lower-case name ("livox", "velodyne", ...).
const char* to_string(LidarType type);
const char* to_string(StreamId id);
/// Parses a canonical name; returns false (and leaves `type` unchanged) for unknown names.
bool lidar_type_from_string(const std::string& name, LidarType& type);
/// Every canonical lidar type name, for error messages that list the valid values.
std::vector<std::string> lidar_type_names();

/// One IMU sample in SI units, in the IMU frame.
struct ImuData {
  using Ptr = std::shared_ptr<ImuData>;
  using ConstPtr = std::shared_ptr<const ImuData>;

  double stamp = 0.0;                          ///< [s]
  Eigen::Vector3d acc = Eigen::Vector3d::Zero();   ///< specific force [m/s^2]; static reads +g on z
  Eigen::Vector3d gyro = Eigen::Vector3d::Zero();  ///< angular rate [rad/s]
};

/// One LiDAR point in the LiDAR frame. 24 bytes, plain data.
struct Point {
  float x = 0.0f;          ///< [m]
  float y = 0.0f;          ///< [m]
  float z = 0.0f;          ///< [m]
  float intensity = 0.0f;  ///< sensor units (reflectivity)
  float offset_ms = 0.0f;  ///< time since the frame start [ms] (R-PRE-2)
  std::uint16_t ring = 0;  ///< laser index of spinning lidars (0 if unknown)
  std::uint8_t line = 0;   ///< Livox line
  std::uint8_t tag = 0;    ///< Livox tag bits

  Eigen::Vector3f position() const { return {x, y, z}; }
  double range() const;
  bool is_finite() const;
};

/// A LiDAR frame: its stamp is the start time; point times are stamp + offset_ms * 1e-3.
struct LidarFrame {
  using Ptr = std::shared_ptr<LidarFrame>;
  using ConstPtr = std::shared_ptr<const LidarFrame>;

  double stamp = 0.0;  ///< frame start [s]
  LidarType lidar_type = LidarType::LIVOX;
  bool has_point_time = true;  ///< false: the driver gave no per-point time (offsets are 0)
  std::vector<Point> points;

  /// Largest point offset [ms] (0 for an empty frame). Points need not be in time order.
  float max_offset_ms() const;
  /// stamp + max_offset_ms() * 1e-3 [s].
  double end_stamp() const { return stamp + static_cast<double>(max_offset_ms()) * 1e-3; }
};

/// Pixel layouts of an Image (the names of sensor_msgs/Image's encodings). Compressed images are
/// decoded into one of these before they reach the core.
enum class ImageEncoding : int {
  MONO8 = 0,   ///< 1 byte per pixel
  MONO16 = 1,  ///< 2 bytes per pixel, host byte order
  RGB8 = 2,    ///< 3 bytes per pixel
  BGR8 = 3,    ///< 3 bytes per pixel
};

const char* to_string(ImageEncoding encoding);  ///< "mono8", "mono16", "rgb8", "bgr8"
bool image_encoding_from_string(const std::string& name, ImageEncoding& encoding);
std::size_t bytes_per_pixel(ImageEncoding encoding);

/// One camera image (docs/camera.md). The pixels are shared, never copied on their way from the
/// reader to the frontend: `pixels` may alias any owner (a decoded buffer, a message).
struct Image {
  using Ptr = std::shared_ptr<Image>;
  using ConstPtr = std::shared_ptr<const Image>;

  /// [s] the time the image holds: mid-exposure when the driver stamps the exposure start and gives
  /// the exposure time (the decoder moves it), otherwise the driver's stamp as is.
  double stamp = 0.0;
  double exposure_seconds = 0.0;  ///< [s] 0 when the driver does not say
  int width = 0;                  ///< [px]
  int height = 0;                 ///< [px]
  ImageEncoding encoding = ImageEncoding::MONO8;
  std::size_t stride = 0;         ///< bytes from one row to the next (>= width * bytes per pixel)
  std::shared_ptr<const std::uint8_t> pixels;  ///< row-major, stride * height bytes

  const std::uint8_t* row(int y) const { return pixels.get() + static_cast<std::size_t>(y) * stride; }
  /// Sizes consistent: positive width and height, stride large enough, pixels present.
  bool valid() const;
};

/// A key frame: stamped at the scan start (R-OUT-1, docs/requirements.md), with the pose and the time it holds.
struct KeyFrame {
  using Ptr = std::shared_ptr<KeyFrame>;
  using ConstPtr = std::shared_ptr<const KeyFrame>;

  std::uint64_t id = 0;
  double stamp = 0.0;       ///< scan start [s]
  double pose_stamp = 0.0;  ///< time at which T_world_imu holds [s] (the scan end for fastlio)
  Eigen::Isometry3d T_world_imu = Eigen::Isometry3d::Identity();
  std::shared_ptr<const std::vector<Point>> points_imu;  ///< de-skewed points in the IMU frame
};

/// #21: how well one scan's LiDAR update constrained the pose (asuka/lio/degeneracy.hpp computes it;
/// docs/degeneracy.md). Directions are 6-vectors [rotation; translation] in the world frame, the
/// rotation part in radians times lio::kRotationLength (1 m), so both parts compare.
struct Localizability {
  /// Normalized information per direction: the share of the scan's points that constrain it at full
  /// weight (for a rotation times their squared lever arm in m^2); the degenerate ones first, each
  /// group ascending.
  Eigen::Matrix<double, 6, 1> eigenvalues = Eigen::Matrix<double, 6, 1>::Zero();
  Eigen::Matrix<double, 6, 6> directions = Eigen::Matrix<double, 6, 6>::Identity();  ///< unit columns, world frame
  double threshold = 0.0;    ///< eigenvalues below it are degenerate
  int degenerate = 0;        ///< how many: the first `degenerate` columns of `directions`
  std::size_t points = 0;    ///< point-to-plane rows of the update
  double range_scale = 0.0;  ///< [m] rms lever arm of those points from the IMU (reported only)
  bool projected = false;    ///< the update was restricted to the constrained directions
  /// Not projected although the projection is on: a moving start is still settling (the LiDAR is still
  /// measuring the velocity the IMU would carry along those directions; filter_frontend.hpp).
  bool settling = false;
};

/// #16: the LiDAR-IMU rotation check's verdict (asuka/lio/extrinsic_check.hpp): the rotation the
/// LiDAR registered alone from scan to scan, turned into the IMU frame by the configured extrinsic,
/// against the gyroscope's rotation over the same intervals.
struct ExtrinsicRotationCheck {
  enum class Verdict {
    CONSISTENT,  ///< the configured rotation agrees with the motion
    SUSPECT,     ///< off by more than the warning angle: warned
    WRONG,       ///< off by more than the error angle: the run's trajectory cannot be trusted
    NONE,        ///< no verdict: the motion did not turn enough, or the LiDAR alone did not follow it (message says which)
    GYRO_SCALE,  ///< #12: the gyroscope turns by a multiple of the LiDAR's angle (deg/s, a wrong gyro_scale): an input error
    /// As GYRO_SCALE, by a factor that is no unit mix-up (not about 57 either way): the LiDAR registered
    /// alone can turn steadily by such a factor too (16-line lidars in sparse scenes), so it is warned
    /// about, the run goes on, and the check goes on to the extrinsic rotation's verdict
    GYRO_SCALE_SUSPECT,
  };
  Verdict verdict = Verdict::CONSISTENT;
  std::size_t pairs = 0;         ///< scan intervals used
  std::size_t slipped_pairs = 0; ///< intervals left out: the LiDAR's angle of rotation differed from the gyroscope's (a registration that slipped)
  double rotation_rad = 0.0;     ///< [rad] the gyroscope's rotation summed over those intervals
  double disagreement_deg = 0.0; ///< [deg] median angle (weighted by rotation) between the gyroscope's axis and the configured extrinsic times the LiDAR's
  bool estimated = false;        ///< the motion turned about two axes or more, so the rotation below is determined
  Eigen::Matrix3d R_imu_lidar_estimated = Eigen::Matrix3d::Identity();  ///< the rotation that fits the pairs best
  double estimated_fit_deg = 0.0;        ///< [deg] the same median angle with the estimate
  double estimated_to_configured_deg = 0.0;  ///< [deg] the angle between the estimate and the configured rotation
  double gyro_scale_ratio = 0.0;  ///< GYRO_SCALE(_SUSPECT): the median of the gyroscope's angle over the LiDAR's, per scan interval
  std::string message;           ///< the finding in words, with the setting to change
};

/// What a frontend publishes (on_new_frame) after estimating one scan.
struct EstimationFrame {
  using Ptr = std::shared_ptr<EstimationFrame>;
  using ConstPtr = std::shared_ptr<const EstimationFrame>;

  std::uint64_t id = 0;
  double stamp = 0.0;       ///< scan start [s]
  double pose_stamp = 0.0;  ///< time at which the state below holds [s]
  Eigen::Isometry3d T_world_imu = Eigen::Isometry3d::Identity();
  Eigen::Vector3d v_world = Eigen::Vector3d::Zero();       ///< [m/s]
  Eigen::Vector3d bias_gyro = Eigen::Vector3d::Zero();     ///< [rad/s]
  Eigen::Vector3d bias_acc = Eigen::Vector3d::Zero();      ///< [m/s^2]
  Eigen::Vector3d gravity_world = Eigen::Vector3d(0.0, 0.0, -9.80665);  ///< [m/s^2] as estimated
  Eigen::Matrix<double, 6, 6> pose_covariance = Eigen::Matrix<double, 6, 6>::Zero();  ///< [rot, trans]
  std::shared_ptr<const std::vector<Point>> points_imu;    ///< de-skewed registered points in the IMU frame, with their intensity
  /// #16: every preprocessed point of the scan, de-skewed to its end, in the IMU frame, with intensity
  /// (FAST-LIO's dense /cloud_registered); null unless the frontend's output.dense_scan is on.
  std::shared_ptr<const std::vector<Point>> points_dense_imu;
  /// A visual frontend's colour of each of points_imu (same order), RGBA: alpha 0 for a point the
  /// camera did not see, 255 otherwise. Null when the frontend has no colours.
  std::shared_ptr<const std::vector<std::array<std::uint8_t, 4>>> point_colours;
  /// The lidar-IMU extrinsic the frontend used for this scan (p_imu = T_imu_lidar p_lidar): the
  /// configured one, or its online estimate (fastlio with mapping.extrinsic_est_en).
  Eigen::Isometry3d T_imu_lidar = Eigen::Isometry3d::Identity();
  /// #21: the LiDAR update's localizability; empty for a scan that was not registered (the first
  /// scan, too few plane matches) and for frontends that do not compute it.
  std::optional<Localizability> localizability;
  bool is_keyframe = false;
  double processing_seconds = 0.0;  ///< [s] wall time the frontend spent on this scan (for reports)
  /// #18: [s] CPU time the frontend's thread spent on it; well below processing_seconds when the
  /// thread waited (preempted on a busy machine), close to it when the scan computed that long.
  double processing_cpu_seconds = 0.0;
  /// #18: points in the frontend's map after this scan joined it (0 for a frontend without a map);
  /// recorded per scan in scans.csv, so a per-scan time that creeps can be set beside the map's size.
  std::size_t map_points = 0;
  /// #16: the extrinsic rotation check's verdict, on the one frame where it was reached (null on every
  /// other frame, and when the check is off or never saw enough rotation).
  std::shared_ptr<const ExtrinsicRotationCheck> extrinsic_check;
};

/// A body state predicted between estimates (imu_prediction extension): pose and velocity at `stamp`.
struct PredictedState {
  double stamp = 0.0;  ///< [s]
  Eigen::Isometry3d T_world_imu = Eigen::Isometry3d::Identity();
  Eigen::Vector3d v_world = Eigen::Vector3d::Zero();  ///< [m/s]
};

/// A filter state emitted inside a scan (on_high_rate_pose): batchlio emits one per batch window,
/// so extensions and the ROS node can publish odometry at that rate.
struct HighRatePose {
  double stamp = 0.0;  ///< [s] the time the state holds (the window's last point)
  Eigen::Isometry3d T_world_imu = Eigen::Isometry3d::Identity();
  Eigen::Vector3d v_world = Eigen::Vector3d::Zero();    ///< [m/s]
  Eigen::Vector3d omega_imu = Eigen::Vector3d::Zero();  ///< [rad/s] angular velocity in the IMU frame
  /// [s] from `stamp` to this emission for a driver that delivers the frame at its end: the wait for
  /// the rest of the frame (frame end - stamp) plus the compute spent on the frame until now.
  double latency_seconds = 0.0;
};

}  // namespace asuka
