#pragma once
// IMU measurements from a ground-truth trajectory: body rates and specific force (a static IMU reads
// +g on z), white noise, bias random walk and a random initial bias. Noise densities are continuous
// time (per sqrt(Hz)); at rate f the per-sample standard deviation is density * sqrt(f).

#include <cstdint>
#include <random>
#include <vector>

#include <asuka/core/types.hpp>
#include <asuka_sim/trajectory.hpp>

namespace asuka::sim {

constexpr double kGravity = 9.80665;  ///< [m/s^2]

struct ImuNoiseParams {
  double rate = 200.0;                 ///< [Hz]
  double acc_noise_density = 2.0e-3;   ///< [m/s^2/sqrt(Hz)] (consumer MEMS, e.g. BMI088 class)
  double gyro_noise_density = 2.0e-4;  ///< [rad/s/sqrt(Hz)]
  double acc_bias_walk = 4.0e-4;       ///< [m/s^3/sqrt(Hz)]
  double gyro_bias_walk = 2.0e-5;      ///< [rad/s^2/sqrt(Hz)]
  double acc_bias_initial = 0.05;      ///< [m/s^2] standard deviation of the random initial bias, per axis
  double gyro_bias_initial = 0.005;    ///< [rad/s] standard deviation of the random initial bias, per axis
  double gyro_range = 0.0;             ///< [rad/s] measurement range per axis: readings saturate here (0 = unlimited)
  double acc_range = 0.0;              ///< [m/s^2] measurement range per axis (0 = unlimited)
};

struct ImuSample {
  asuka::ImuData measured;  ///< what the sensor reports (SI units, true time)
  Eigen::Vector3d bias_acc = Eigen::Vector3d::Zero();   ///< the true bias in `measured`
  Eigen::Vector3d bias_gyro = Eigen::Vector3d::Zero();
};

/// The IMU samples one after the other (k / rate for k = 0 .. duration * rate), so that a long
/// recording never holds them all (#18). Deterministic for a given seed: the same samples, bit for
/// bit, as simulate_imu.
class ImuGenerator {
public:
  ImuGenerator(const Trajectory& trajectory, double duration, const ImuNoiseParams& params, std::uint64_t seed);
  std::size_t count() const { return count_; }
  bool done() const { return next_ >= count_; }
  /// [s] the true time of sample k.
  double stamp(std::size_t k) const { return static_cast<double>(k) * dt_; }
  /// The next sample; call only while !done().
  ImuSample next();

private:
  Eigen::Vector3d gaussian();

  const Trajectory& trajectory_;
  ImuNoiseParams params_;
  std::mt19937_64 rng_;
  std::normal_distribution<double> normal_{0.0, 1.0};
  double dt_;
  std::size_t count_;
  std::size_t next_ = 0;
  Eigen::Vector3d bias_acc_, bias_gyro_;
};

/// All samples at once (short simulations and tests).
std::vector<ImuSample> simulate_imu(const Trajectory& trajectory, double duration, const ImuNoiseParams& params, std::uint64_t seed);

}  // namespace asuka::sim
