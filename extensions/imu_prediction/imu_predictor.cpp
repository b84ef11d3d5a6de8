#include "imu_predictor.hpp"

#include <cmath>

namespace asuka::imu_prediction {

namespace {

Eigen::Matrix3d exp_so3(const Eigen::Vector3d& w) {
  const double angle = w.norm();
  if (angle < 1e-12) return Eigen::Matrix3d::Identity();
  return Eigen::AngleAxisd(angle, w / angle).toRotationMatrix();
}

ImuData interpolate(const ImuData& a, const ImuData& b, double t) {
  const double span = b.stamp - a.stamp;
  const double s = span > 0.0 ? (t - a.stamp) / span : 0.0;
  ImuData out;
  out.stamp = t;
  out.acc = (1.0 - s) * a.acc + s * b.acc;
  out.gyro = (1.0 - s) * a.gyro + s * b.gyro;
  return out;
}

}  // namespace

void ImuPredictor::propagate(const ImuData& a, const ImuData& b, double to) {
  const double from = state_->stamp;
  const double dt = to - from;
  if (!(dt > 0.0)) return;
  // Rates at the ends of [from, to], linearly interpolated between the two samples.
  const ImuData start = interpolate(a, b, from);
  const ImuData end = interpolate(a, b, to);
  const Eigen::Vector3d w0 = start.gyro - bias_gyro_;
  const Eigen::Vector3d w1 = end.gyro - bias_gyro_;
  const Eigen::Matrix3d R0 = state_->T_world_imu.linear();
  const Eigen::Matrix3d R1 = R0 * exp_so3(0.5 * (w0 + w1) * dt);
  const Eigen::Vector3d a0 = R0 * (start.acc - bias_acc_) + gravity_;
  const Eigen::Vector3d a1 = R1 * (end.acc - bias_acc_) + gravity_;
  const Eigen::Vector3d p0 = state_->T_world_imu.translation();
  const Eigen::Vector3d v0 = state_->v_world;
  state_->v_world = v0 + 0.5 * (a0 + a1) * dt;
  state_->T_world_imu.translation() = p0 + v0 * dt + (a0 / 3.0 + a1 / 6.0) * dt * dt;  // linear acceleration over dt
  state_->T_world_imu.linear() = R1;
  state_->stamp = to;
}

std::optional<PredictedState> ImuPredictor::add_imu(const ImuData& imu) {
  if (!buffer_.empty() && imu.stamp <= buffer_.back().stamp) return std::nullopt;  // out of order: ignored
  buffer_.push_back(imu);
  while (!buffer_.empty() && buffer_.front().stamp < imu.stamp - params_.max_buffer_seconds) buffer_.pop_front();

  if (!state_) return std::nullopt;
  if (last_sample_ && imu.stamp - last_sample_->stamp <= params_.max_gap_seconds && imu.stamp > state_->stamp) {
    propagate(*last_sample_, imu, imu.stamp);
  } else if (imu.stamp > state_->stamp && imu.stamp - state_->stamp <= params_.max_gap_seconds) {
    propagate(imu, imu, imu.stamp);  // first sample after the anchor: constant rates
  }
  last_sample_ = imu;
  return state_;
}

std::optional<PredictedState> ImuPredictor::set_anchor(const EstimationFrame& frame) {
  PredictedState anchor;
  anchor.stamp = frame.pose_stamp;
  anchor.T_world_imu = frame.T_world_imu;
  anchor.v_world = frame.v_world;
  state_ = anchor;
  bias_gyro_ = frame.bias_gyro;
  bias_acc_ = frame.bias_acc;
  gravity_ = frame.gravity_world;
  last_sample_.reset();

  // Re-propagate through the samples that arrived after the anchor's time.
  const ImuData* previous = nullptr;
  for (const auto& sample : buffer_) {
    if (sample.stamp <= anchor.stamp) {
      previous = &sample;
      continue;
    }
    if (previous && sample.stamp - previous->stamp <= params_.max_gap_seconds) {
      propagate(*previous, sample, sample.stamp);
    } else if (sample.stamp - state_->stamp <= params_.max_gap_seconds) {
      propagate(sample, sample, sample.stamp);
    }
    previous = &sample;
  }
  if (previous) last_sample_ = *previous;
  return state_;
}

}  // namespace asuka::imu_prediction
