#pragma once
// Predicts the body state at IMU rate between estimates (R-CB-2): anchored on each estimated frame,
// propagated through the IMU samples that came after the anchor, re-anchored on the next estimate.
// Plain class, no threads or slots: the extension (create.cpp) wires it to the callback slots.

#include <deque>
#include <optional>

#include <asuka/core/types.hpp>

namespace asuka::imu_prediction {

struct ImuPredictorParams {
  double max_buffer_seconds = 2.0;  ///< [s] IMU history kept to re-propagate from a late anchor
  double max_gap_seconds = 0.1;     ///< [s] an IMU gap longer than this is not integrated across
};

class ImuPredictor {
public:
  explicit ImuPredictor(const ImuPredictorParams& params = ImuPredictorParams()) : params_(params) {}

  /// Adds an IMU sample; returns the state predicted at its stamp once an anchor exists.
  std::optional<PredictedState> add_imu(const ImuData& imu);

  /// Re-anchors on an estimate: the state at frame.pose_stamp, then re-propagates through the
  /// buffered samples after it. Returns the state at the newest sample (or at the anchor).
  std::optional<PredictedState> set_anchor(const EstimationFrame& frame);

  std::optional<PredictedState> current() const { return state_; }

private:
  /// Integrates from state_ (at state_->stamp) to `to`, using samples a (start) and b (end) with the
  /// trapezoid rule on the bias-corrected rates: exact for constant rates, second order otherwise.
  void propagate(const ImuData& a, const ImuData& b, double to);

  ImuPredictorParams params_;
  std::deque<ImuData> buffer_;
  std::optional<PredictedState> state_;
  Eigen::Vector3d bias_gyro_ = Eigen::Vector3d::Zero();
  Eigen::Vector3d bias_acc_ = Eigen::Vector3d::Zero();
  Eigen::Vector3d gravity_ = Eigen::Vector3d(0.0, 0.0, -9.80665);
  std::optional<ImuData> last_sample_;  ///< the sample state_ was last propagated with
};

}  // namespace asuka::imu_prediction
