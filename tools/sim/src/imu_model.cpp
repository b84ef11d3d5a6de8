#include <asuka_sim/imu_model.hpp>

#include <cmath>

namespace asuka::sim {

ImuGenerator::ImuGenerator(const Trajectory& trajectory, double duration, const ImuNoiseParams& params, std::uint64_t seed)
    : trajectory_(trajectory),
      params_(params),
      rng_(seed * 6364136223846793005ULL + 1442695040888963407ULL),
      dt_(1.0 / params.rate),
      count_(static_cast<std::size_t>(std::floor(duration * params.rate + 1e-9)) + 1) {
  bias_acc_ = params_.acc_bias_initial * gaussian();
  bias_gyro_ = params_.gyro_bias_initial * gaussian();
}

Eigen::Vector3d ImuGenerator::gaussian() {
  Eigen::Vector3d v;  // one draw after the other: the order is part of the determinism
  v.x() = normal_(rng_);
  v.y() = normal_(rng_);
  v.z() = normal_(rng_);
  return v;
}

ImuSample ImuGenerator::next() {
  const Eigen::Vector3d gravity(0.0, 0.0, -kGravity);
  const double t = stamp(next_++);
  const Eigen::Matrix3d R = trajectory_.pose(t).linear();
  ImuSample s;
  s.measured.stamp = t;
  s.bias_acc = bias_acc_;
  s.bias_gyro = bias_gyro_;
  // Specific force: what an accelerometer measures, f = R^T (a - g); at rest it reads +g on z.
  s.measured.acc = R.transpose() * (trajectory_.acceleration(t) - gravity) + bias_acc_ + params_.acc_noise_density * std::sqrt(params_.rate) * gaussian();
  s.measured.gyro = trajectory_.angular_velocity(t) + bias_gyro_ + params_.gyro_noise_density * std::sqrt(params_.rate) * gaussian();
  // A real sensor clips at the end of its range: the reading stays at the limit however fast the
  // motion (what Point-LIO's saturation handling, and batchlio's, is for).
  if (params_.gyro_range > 0.0) s.measured.gyro = s.measured.gyro.cwiseMax(-params_.gyro_range).cwiseMin(params_.gyro_range);
  if (params_.acc_range > 0.0) s.measured.acc = s.measured.acc.cwiseMax(-params_.acc_range).cwiseMin(params_.acc_range);
  // Random walk to the next sample: standard deviation density * sqrt(dt).
  bias_acc_ += params_.acc_bias_walk * std::sqrt(dt_) * gaussian();
  bias_gyro_ += params_.gyro_bias_walk * std::sqrt(dt_) * gaussian();
  return s;
}

std::vector<ImuSample> simulate_imu(const Trajectory& trajectory, double duration, const ImuNoiseParams& params, std::uint64_t seed) {
  ImuGenerator generator(trajectory, duration, params, seed);
  std::vector<ImuSample> samples;
  samples.reserve(generator.count());
  while (!generator.done()) samples.push_back(generator.next());
  return samples;
}

}  // namespace asuka::sim
