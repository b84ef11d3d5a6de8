#pragma once
// Process-wide callback slots of the odometry subsystem (R-CB-1). Extensions and the ROS layer
// subscribe here; the executor and the frontends emit. All seven slots fire on the executor's
// worker thread, so their relative order is program order: for each input event,
// on_insert_imu / on_insert_frame / on_insert_image fires before the frontend sees the event, and every
// on_new_frame that event causes fires after it (R-EXEC-5). A callback must not block for long:
// it runs inside the estimation loop.

#include <asuka/core/callback_slot.hpp>
#include <asuka/core/types.hpp>

namespace asuka {

struct OdometryCallbacks {
  /// Fired by AsyncOdometryEstimation on the worker thread, just before the frontend's
  /// insert_imu() receives the same sample.
  static CallbackSlot<void(const ImuData&)> on_insert_imu;

  /// Fired by AsyncOdometryEstimation on the worker thread, just before the frontend's
  /// insert_frame() receives the same frame (already preprocessed: offsets in ms).
  static CallbackSlot<void(const LidarFrame::ConstPtr&)> on_insert_frame;

  /// Fired by AsyncOdometryEstimation on the worker thread, just before the frontend's
  /// insert_image() receives the same image.
  static CallbackSlot<void(const Image::ConstPtr&)> on_insert_image;

  /// Fired by a frontend on the worker thread after it has estimated a scan.
  static CallbackSlot<void(const EstimationFrame::ConstPtr&)> on_new_frame;

  /// Fired by a frontend on the worker thread when it creates a key frame.
  static CallbackSlot<void(const KeyFrame::ConstPtr&)> on_new_keyframe;

  /// Fired by the imu_prediction extension on the worker thread (inside on_insert_imu) with the
  /// body state predicted at each IMU sample's time from the latest estimate: the high-rate pose
  /// stream the ROS node publishes.
  static CallbackSlot<void(const PredictedState&)> on_imu_prediction;

  /// Fired by frontends that update their state within a scan (batchlio: once per batch window), on
  /// the worker thread, in time order, before that scan's on_new_frame: the estimator's own
  /// high-rate pose stream (R-CB-1's slots extended; docs/frontends/batchlio.md).
  static CallbackSlot<void(const HighRatePose&)> on_high_rate_pose;
};

}  // namespace asuka
