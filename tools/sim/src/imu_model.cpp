#include <asuka_sim/imu_model.hpp>

#include <cmath>

namespace asuka::sim {

std::vector<ImuSample> simulate_imu(const Trajectory& trajectory, double duration, const ImuNoiseParams& params, std::uint64_t seed) {
  std::mt19937_64 rng(seed * 6364136223846793005ULL + 1442695040888963407ULL);
  std::normal_distribution<double> n(0.0, 1.0);
  auto gaussian = [&] {
    Eigen::Vector3d v;  // one draw after the other: the order is part of the determinism
    v.x() = n(rng);
    v.y() = n(rng);
    v.z() = n(rng);
    return v;
  };

  const double dt = 1.0 / params.rate;
  Eigen::Vector3d bias_acc = params.acc_bias_initial * gaussian();
  Eigen::Vector3d bias_gyro = params.gyro_bias_initial * gaussian();
  const Eigen::Vector3d gravity(0.0, 0.0, -kGravity);

  const auto count = static_cast<std::size_t>(std::floor(duration * params.rate + 1e-9)) + 1;
  std::vector<ImuSample> samples;
  samples.reserve(count);
  for (std::size_t k = 0; k < count; ++k) {
    const double t = static_cast<double>(k) * dt;
    const Eigen::Matrix3d R = trajectory.pose(t).linear();
    ImuSample s;
    s.measured.stamp = t;
    s.bias_acc = bias_acc;
    s.bias_gyro = bias_gyro;
    // Specific force: what an accelerometer measures, f = R^T (a - g); at rest it reads +g on z.
    s.measured.acc = R.transpose() * (trajectory.acceleration(t) - gravity) + bias_acc + params.acc_noise_density * std::sqrt(params.rate) * gaussian();
    s.measured.gyro = trajectory.angular_velocity(t) + bias_gyro + params.gyro_noise_density * std::sqrt(params.rate) * gaussian();
    // A real sensor clips at the end of its range: the reading stays at the limit however fast the
    // motion (what Point-LIO's saturation handling, and batchlio's, is for).
    if (params.gyro_range > 0.0) s.measured.gyro = s.measured.gyro.cwiseMax(-params.gyro_range).cwiseMin(params.gyro_range);
    if (params.acc_range > 0.0) s.measured.acc = s.measured.acc.cwiseMax(-params.acc_range).cwiseMin(params.acc_range);
    samples.push_back(s);
    // Random walk to the next sample: standard deviation density * sqrt(dt).
    bias_acc += params.acc_bias_walk * std::sqrt(dt) * gaussian();
    bias_gyro += params.gyro_bias_walk * std::sqrt(dt) * gaussian();
  }
  return samples;
}

}  // namespace asuka::sim
