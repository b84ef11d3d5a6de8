#include <asuka_sim/trajectory.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace asuka::sim {

namespace {
constexpr double kPi = 3.14159265358979323846;
// The loop's half extents are this share of the free region's, and a random motion (motion_seed)
// scales each by a factor drawn from [kRandomLoopMin, 1].
constexpr double kLoopShare = 0.7;
constexpr double kRandomLoopMin = 0.75;

Eigen::Matrix3d rotation_from_euler(const Eigen::Vector3d& rpy) {
  return (Eigen::AngleAxisd(rpy.z(), Eigen::Vector3d::UnitZ()) * Eigen::AngleAxisd(rpy.y(), Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(rpy.x(), Eigen::Vector3d::UnitX()))
    .toRotationMatrix();
}

Eigen::Vector3d vee(const Eigen::Matrix3d& m) { return 0.5 * Eigen::Vector3d(m(2, 1) - m(1, 2), m(0, 2) - m(2, 0), m(1, 0) - m(0, 1)); }
}  // namespace

std::vector<std::string> profile_names() { return {"static", "handheld", "aggressive", "vehicle", "extreme"}; }

Trajectory::Trajectory(const TrajectoryParams& params, const Scene& scene) : params_(params) {
  center_ = Eigen::Vector3d(scene.free_center.x(), scene.free_center.y(), scene.sensor_height);
  half_ = kLoopShare * scene.free_half_size;
  straight_ = scene.straight;
  const auto& p = params.profile;
  if (p == "static") {
    speed_ = 0.0;
    yaw_amp_ = tilt_amp_ = bump_amp_ = 0.0;
  } else if (p == "handheld") {
    speed_ = 1.0;
    yaw_amp_ = 0.6, yaw_freq_ = 0.6;
    tilt_amp_ = 0.06, tilt_freq_ = 1.7;
    bump_amp_ = 0.04;
  } else if (p == "aggressive") {
    speed_ = 4.4;  // the figure-eight's peak speed comes out slightly below the nominal
    yaw_amp_ = 0.9, yaw_freq_ = 1.7;  // peak yaw rate ~ 1.5 rad/s = 88 deg/s plus the loop's turning
    tilt_amp_ = 0.15, tilt_freq_ = 2.5;
    bump_amp_ = 0.15;
  } else if (p == "vehicle") {
    speed_ = 5.5;
    yaw_amp_ = 0.0;
    tilt_amp_ = 0.01, tilt_freq_ = 3.0;
    bump_amp_ = 0.01;
    heading_yaw_ = true;
  } else if (p == "extreme") {
    speed_ = 2.0;
    yaw_amp_ = 1.2, yaw_freq_ = 1.0;
    tilt_amp_ = 0.3, tilt_freq_ = 2.0;
    bump_amp_ = 0.1;
    bursts_ = true;
  } else {
    throw std::invalid_argument("unknown profile '" + p + "'; expected one of: static, handheld, aggressive, vehicle, extreme");
  }
  if (params.motion_seed != 0) {
    // #17: a variation of the profile, drawn from the seed. The speed and the turn rates are never
    // below the profile's (their limits: aggressive >= 4 m/s and 80 deg/s, vehicle >= 5 m/s), the
    // loop stays inside the free region, and the start stays where it is.
    std::mt19937_64 rng(params.motion_seed * 0x9E3779B97F4A7C15ULL + 0x5151);
    const auto uniform = [&rng](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); };
    speed_ *= uniform(1.0, 1.25);
    const double yaw_freq = uniform(0.8, 1.25);
    const double yaw_rate = uniform(1.0, 1.25);  // the peak yaw rate (amplitude x frequency) 1-1.25x
    const double yaw_phase = uniform(0.0, 2.0 * kPi);
    if (!bursts_) {  // the extreme profile's 300 deg/s bursts add to the sway as drawn for it
      yaw_freq_ *= yaw_freq;
      yaw_amp_ *= yaw_rate / yaw_freq;
      yaw_phase_ = yaw_phase;
    }
    const double tilt_freq = uniform(0.8, 1.25);
    tilt_freq_ *= tilt_freq;
    tilt_amp_ *= uniform(0.7, 1.3);
    bump_amp_ *= uniform(0.5, 1.5);
    half_.x() *= uniform(kRandomLoopMin, 1.0);
    half_.y() *= uniform(kRandomLoopMin, 1.0);
    mirror_ = uniform(0.0, 1.0) < 0.5 ? -1.0 : 1.0;
    tilt_phase_ = uniform(0.0, 2.0 * kPi);
    bump_phase_ = uniform(0.0, 2.0 * kPi);
  }
  // Figure-eight x = a sin(w u), y = b sin(2 w u): peak speed ~ w sqrt(a^2 + 4 b^2) at the crossing.
  const double reach = std::sqrt(half_.x() * half_.x() + 4.0 * half_.y() * half_.y());
  omega_ = (straight_ || reach <= 0.0) ? 0.0 : speed_ / reach;
}

std::vector<Eigen::Vector2d> loop_samples(const Eigen::Vector2d& free_center, const Eigen::Vector2d& free_half_size, double spacing) {
  // The figure-eight of position_at(): x = a sin(v), y = +-b sin(2 v), with a and b anywhere in
  // [kRandomLoopMin, 1] times the loop's half extents. Adjacent loops of the family lie at most
  // `spacing` apart (the scale steps), and points along each at most `spacing` apart, so every point
  // of every loop lies within about `spacing` of a sample.
  const Eigen::Vector2d half = kLoopShare * free_half_size;
  const double span = (1.0 - kRandomLoopMin) * half.maxCoeff();
  const int steps = std::max(1, static_cast<int>(std::ceil(span / spacing)));
  const double length = 2.0 * kPi * std::sqrt(half.x() * half.x() + 4.0 * half.y() * half.y());  // an upper bound of the loop's length
  const int points = std::max(16, static_cast<int>(std::ceil(length / spacing)));
  std::vector<Eigen::Vector2d> out;
  out.reserve(static_cast<std::size_t>((steps + 1) * (steps + 1) * points * 2));
  for (int i = 0; i <= steps; ++i) {
    const double a = half.x() * (kRandomLoopMin + (1.0 - kRandomLoopMin) * i / steps);
    for (int j = 0; j <= steps; ++j) {
      const double b = half.y() * (kRandomLoopMin + (1.0 - kRandomLoopMin) * j / steps);
      for (int k = 0; k < points; ++k) {
        const double v = 2.0 * kPi * k / points;
        for (double mirror : {1.0, -1.0}) out.emplace_back(free_center.x() + a * std::sin(v), free_center.y() + mirror * b * std::sin(2.0 * v));
      }
    }
  }
  return out;
}

double Trajectory::warp(double t) const {
  // u(t) = integral of a C2 (quintic smoothstep) speed factor: 0 while static, then ramps to 1.
  const double t0 = params_.static_duration;
  const double T = params_.ramp_duration;
  // Already moving when the recording starts (--static 0 --ramp 0): the motion began before t = 0, so
  // there is no kink there (one made the first IMU sample read an acceleration of v / h, 5500 m/s^2).
  if (t0 <= 0.0 && T <= 0.0) return t;
  if (t <= t0) return 0.0;
  if (T <= 0.0) return t - t0;
  const double x = (t - t0) / T;
  if (x >= 1.0) return 0.5 * T + (t - t0 - T);
  return T * (x * x * x * x * x * x - 3.0 * x * x * x * x * x + 2.5 * x * x * x * x);
}

Eigen::Vector3d Trajectory::position_at(double u) const {
  if (straight_) {
    // Along the corridor: constant speed in x, a gentle weave in y and a bump in z.
    return center_ + Eigen::Vector3d(speed_ * u, mirror_ * half_.y() * std::sin(0.4 * u), bump_amp_ * std::sin(1.1 * u + bump_phase_));
  }
  return center_ + Eigen::Vector3d(half_.x() * std::sin(omega_ * u), mirror_ * half_.y() * std::sin(2.0 * omega_ * u),
                                   bump_amp_ * std::sin(1.1 * u + bump_phase_));
}

Eigen::Vector3d Trajectory::euler_at(double u) const {
  const double tilt_roll = params_.tilted_start ? 8.0 * kPi / 180.0 : 0.0;
  const double tilt_pitch = params_.tilted_start ? -5.0 * kPi / 180.0 : 0.0;
  double yaw = yaw_amp_ * std::sin(yaw_freq_ * u + yaw_phase_);
  if (heading_yaw_) {
    // Yaw along the direction of travel (a vehicle); smooth because the path's speed never vanishes
    // once u > 0, and at u = 0 the path starts moving along +x.
    const double h = 1e-3;
    const Eigen::Vector3d v = position_at(u + h) - position_at(u - h);
    yaw = std::atan2(v.y(), v.x());
  }
  if (bursts_) {
    // Rotation bursts: a full extra turn every 6 s, over 2 s with the C2 profile
    // x - sin(2 pi x) / (2 pi); its peak rate is 2 turns / 2 s = 2 pi rad/s = 360 deg/s.
    const double cycle = std::floor(u / 6.0);
    const double x = std::min(std::max((u - 6.0 * cycle - 2.0) / 2.0, 0.0), 1.0);
    yaw += 2.0 * kPi * (cycle + x - std::sin(2.0 * kPi * x) / (2.0 * kPi));
  }
  return Eigen::Vector3d(tilt_roll + tilt_amp_ * std::sin(tilt_freq_ * u + tilt_phase_), tilt_pitch + 0.8 * tilt_amp_ * std::sin(0.7 * tilt_freq_ * u + 1.0 + tilt_phase_),
                         yaw);
}

Eigen::Isometry3d Trajectory::pose(double t) const {
  const double u = warp(t);
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.linear() = rotation_from_euler(euler_at(u));
  T.translation() = position_at(u);
  return T;
}

Eigen::Vector3d Trajectory::velocity(double t) const {
  const double h = 1e-4;
  return (pose(t + h).translation() - pose(t - h).translation()) / (2.0 * h);
}

Eigen::Vector3d Trajectory::acceleration(double t) const {
  const double h = 1e-3;
  return (pose(t + h).translation() - 2.0 * pose(t).translation() + pose(t - h).translation()) / (h * h);
}

Eigen::Vector3d Trajectory::angular_velocity(double t) const {
  const double h = 1e-5;
  const Eigen::Matrix3d R = pose(t).linear();
  const Eigen::Matrix3d dR = (pose(t + h).linear() - pose(t - h).linear()) / (2.0 * h);
  return vee(R.transpose() * dR);
}

Eigen::Vector2d Trajectory::peaks(double duration) const {
  Eigen::Vector2d out = Eigen::Vector2d::Zero();
  for (double t = 0.0; t <= duration; t += 0.01) {
    out.x() = std::max(out.x(), velocity(t).norm());
    const Eigen::Vector3d w_world = pose(t).linear() * angular_velocity(t);
    out.y() = std::max(out.y(), std::fabs(w_world.z()));
  }
  return out;
}

}  // namespace asuka::sim
