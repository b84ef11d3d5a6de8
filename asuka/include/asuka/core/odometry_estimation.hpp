#pragma once
// The plugin contract of an odometry frontend (R-PLUG-1..5).
//
// Threads: the host constructs a frontend on its main thread, then hands it to
// AsyncOdometryEstimation. From then on every method below except cloud_preprocessor() is called only
// on the executor's worker thread, one call at a time, so a frontend needs no locks of its own.
// save_map() is called after AsyncOdometryEstimation::stop() has joined the worker (R-ROS-5).
//
// Plugins export, with C linkage (see plugin_abi.hpp and docs/extending.md):
//   ASUKA_PLUGIN_EXPORT_ABI_VERSION()
//   extern "C" asuka::OdometryEstimation* create_odometry_estimation();
// The factory returns a new instance owned by the caller. The constructor reads the frontend's
// configuration from GlobalConfig and builds its own cloud and IMU preprocessors (R-PLUG-3).

#include <memory>
#include <string>

#include <asuka/core/cloud_preprocessor.hpp>
#include <asuka/core/imu_initialization.hpp>
#include <asuka/core/types.hpp>

namespace asuka {

class OdometryEstimation {
public:
  using Ptr = std::shared_ptr<OdometryEstimation>;

  virtual ~OdometryEstimation() = default;

  /// Receives one IMU sample (SI units, IMU frame). Worker thread.
  virtual void insert_imu(const ImuData& imu) = 0;

  /// Receives one preprocessed frame (offsets in ms from frame->stamp). Worker thread.
  virtual void insert_frame(const LidarFrame::ConstPtr& frame) = 0;

  /// Receives one camera image (stamped at the time it holds, docs/camera.md). Worker thread. The
  /// default ignores it: LiDAR-inertial frontends need no camera.
  virtual void insert_image(const Image::ConstPtr& image) { (void)image; }

  /// Whether this frontend uses images (the host warns when one that does runs without a camera).
  virtual bool uses_images() const { return false; }

  /// Does one step of pending work (for example estimates one synchronized scan). Returns true if
  /// it did something and should be called again, false when there is nothing to do. The executor
  /// calls it until it returns false after every input event. Worker thread.
  virtual bool process_once() { return false; }

  /// Work the frontend could still do without more input (for example scans whose IMU has fully
  /// arrived but that are not estimated yet). Input that waits for more input (a scan waiting for
  /// IMU up to its end, IMU samples after the last scan) must not count: the host waits for
  /// workload 0 at the end of a bag (R-ROS-6), and it would wait forever. Worker thread.
  virtual int workload() const { return 0; }

  /// #16: the map's points (world frame) for a live view, or false when the frontend has no map to
  /// show. Called on the worker thread between two scans (never while the frontend works).
  virtual bool map_points(std::vector<Eigen::Vector3f>& points) const {
    (void)points;
    return false;
  }

  /// Writes the map to `path` (binary PCD). Returns false with an error logged on failure.
  /// Called after the worker has stopped, and, with config_ros.map_save_every (#16), on the worker
  /// thread between two scans (from the host's on_new_frame handler): never while the frontend works.
  virtual bool save_map(const std::string& path) {
    (void)path;
    return false;
  }

  /// Drops all state and starts again from IMU initialization. Worker thread.
  virtual void reset() {}

  /// False when the frontend has failed (diverged, or hit an unrecoverable error). The executor's
  /// circuit breaker counts an event after which ok() is false as a failure (R-EXEC-9).
  virtual bool ok() const { return true; }

  /// The frontend's cloud preprocessor, shared with the host (R-PLUG-4). Called on the host's
  /// thread before the frontend is handed to the executor. May be null for frontends that take
  /// frames as they come.
  virtual CloudPreprocessor::Ptr cloud_preprocessor() const { return nullptr; }

  /// The frontend's IMU preprocessor, if it has one (for initialization monitoring).
  virtual ImuInitialization::Ptr imu_initialization() const { return nullptr; }

  /// Loads a frontend plugin: opens the library (once per process, never closed), checks its ABI
  /// version, calls create_odometry_estimation() and returns the instance. `so_name` is a path, a
  /// file name ("libasuka_odometry_fastlio.so") or a frontend name ("fastlio"). Returns nullptr
  /// and sets `error` (if given; the "odom" logger gets it too) when the file or symbol is
  /// missing, the ABI differs, or the factory fails.
  static Ptr load_module(const std::string& so_name, std::string* error = nullptr);
};

}  // namespace asuka

/// The factory every frontend plugin exports.
extern "C" {
typedef asuka::OdometryEstimation* (*AsukaCreateOdometryEstimationFn)();
}
