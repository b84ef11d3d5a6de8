#include <asuka/core/callbacks.hpp>

namespace asuka {

// Defined once in libasuka.so, so the host and every plugin share the same slots.
CallbackSlot<void(const ImuData&)> OdometryCallbacks::on_insert_imu;
CallbackSlot<void(const LidarFrame::ConstPtr&)> OdometryCallbacks::on_insert_frame;
CallbackSlot<void(const Image::ConstPtr&)> OdometryCallbacks::on_insert_image;
CallbackSlot<void(const EstimationFrame::ConstPtr&)> OdometryCallbacks::on_new_frame;
CallbackSlot<void(const KeyFrame::ConstPtr&)> OdometryCallbacks::on_new_keyframe;
CallbackSlot<void(const PredictedState&)> OdometryCallbacks::on_imu_prediction;
CallbackSlot<void(const HighRatePose&)> OdometryCallbacks::on_high_rate_pose;

}  // namespace asuka
