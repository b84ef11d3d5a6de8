#pragma once
// Static IMU initialization (R-IMU-1..4). Lives behind the executor: called on the worker thread.

#include <memory>

#include <Eigen/Core>

namespace asuka {

class ImuInitialization {
public:
  using Ptr = std::shared_ptr<ImuInitialization>;

  virtual ~ImuInitialization() = default;

  /// True once the static initialization has seen enough samples.
  virtual bool is_initialized() const = 0;
  /// Mean specific force over the initialization window [m/s^2].
  virtual Eigen::Vector3d get_mean_acceleration() const = 0;
  /// Mean angular rate over the initialization window [rad/s].
  virtual Eigen::Vector3d get_mean_gyroscope() const = 0;
  /// Restarts initialization and re-applies the configuration.
  virtual void reset() = 0;
};

}  // namespace asuka
