#include <asuka_sim/lidar_model.hpp>

#include <cmath>
#include <stdexcept>

namespace asuka::sim {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kDeg = kPi / 180.0;

Eigen::Vector3d direction(double azimuth, double elevation) {
  return {std::cos(elevation) * std::cos(azimuth), std::cos(elevation) * std::sin(azimuth), std::sin(elevation)};
}

Eigen::Isometry3d translation(double x, double y, double z) {
  Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
  T.translation() = Eigen::Vector3d(x, y, z);
  return T;
}

/// A spinning lidar: `columns` firings per revolution, all rings of a column `ring_dt` apart.
std::vector<LidarBeam> spinning(const std::vector<double>& elevations_deg, int columns, double rate, double ring_dt) {
  std::vector<LidarBeam> beams;
  beams.reserve(elevations_deg.size() * static_cast<std::size_t>(columns));
  const double column_dt = 1.0 / (rate * columns);
  for (int c = 0; c < columns; ++c) {
    const double azimuth = 2.0 * kPi * c / columns;
    for (std::size_t r = 0; r < elevations_deg.size(); ++r) {
      LidarBeam b;
      b.offset = c * column_dt + static_cast<double>(r) * ring_dt;
      b.direction = direction(azimuth, elevations_deg[r] * kDeg);
      b.ring = static_cast<std::uint16_t>(r);
      beams.push_back(b);
    }
  }
  return beams;
}

std::vector<double> uniform(double lo, double hi, int n) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(n == 1 ? lo : lo + (hi - lo) * i / (n - 1));
  return out;
}

}  // namespace

std::vector<std::string> lidar_names() { return {"avia", "mid360", "vlp16", "hdl32", "os1-64", "rs16"}; }

LidarModel make_lidar(const std::string& name) {
  LidarModel m;
  m.name = name;
  if (name == "avia") {
    m.format = CloudFormat::LIVOX;
    m.lines = 6;
    m.max_range = 150.0;
    m.min_range = 0.5;
    // The Avia's lidar origin in the frame of its built-in IMU; rotation identity.
    m.T_imu_lidar = translation(0.04165, 0.02326, -0.0284);
  } else if (name == "mid360") {
    m.format = CloudFormat::LIVOX;
    m.lines = 4;
    m.max_range = 70.0;
    m.min_range = 0.3;
    m.T_imu_lidar = translation(-0.011, -0.02329, 0.04412);
  } else if (name == "vlp16") {
    m.format = CloudFormat::VELODYNE;
    m.lines = 16;
    m.max_range = 100.0;
    m.T_imu_lidar = translation(0.0, 0.0, 0.12);
  } else if (name == "hdl32") {
    m.format = CloudFormat::VELODYNE;
    m.lines = 32;
    m.max_range = 100.0;
    m.T_imu_lidar = translation(0.05, 0.0, 0.15);
  } else if (name == "os1-64") {
    m.format = CloudFormat::OUSTER;
    m.lines = 64;
    m.max_range = 120.0;
    m.T_imu_lidar = translation(0.006, -0.012, 0.0298);  // lidar origin above the built-in IMU
  } else if (name == "rs16") {
    m.format = CloudFormat::ROBOSENSE;
    m.lines = 16;
    m.max_range = 150.0;
    m.T_imu_lidar = translation(0.0, 0.0, 0.1);
  } else {
    throw std::invalid_argument("unknown lidar '" + name + "'; expected one of: avia, mid360, vlp16, hdl32, os1-64, rs16");
  }
  return m;
}

std::vector<LidarBeam> LidarModel::beams(double frame_start) const {
  const double period = 1.0 / rate;
  if (name == "avia" || name == "mid360") {
    // Non-repetitive patterns: the lasers fire in turn; their angles follow incommensurate
    // oscillations of absolute time, so successive frames cover new directions.
    const bool avia = name == "avia";
    const int per_frame = avia ? 24000 : 20000;
    std::vector<LidarBeam> beams(static_cast<std::size_t>(per_frame));
    for (int i = 0; i < per_frame; ++i) {
      const double offset = period * i / per_frame;
      const double T = frame_start + offset;
      const int line = i % lines;
      LidarBeam& b = beams[static_cast<std::size_t>(i)];
      b.offset = offset;
      b.ring = static_cast<std::uint16_t>(line);
      if (avia) {
        // Rosette in a 70.4 x 77.2 deg field of view: radius cos(phi1), angle phi2.
        const double phi1 = 2.0 * kPi * 331.3 * T + line * kPi / 6.0;
        const double phi2 = 2.0 * kPi * 17.17 * T + line * 2.0 * kPi / 6.0;
        const double r = std::cos(phi1);
        b.direction = direction(35.2 * kDeg * r * std::cos(phi2), 38.6 * kDeg * r * std::sin(phi2));
      } else {
        // 360 deg azimuth sweep per frame, elevation oscillating over [-7, 52] deg.
        const double azimuth = 2.0 * kPi * (offset / period) + line * kPi / 2.0;
        const double elevation = (22.5 + 29.5 * std::sin(2.0 * kPi * 1531.7 * T + line * kPi / 4.0)) * kDeg;
        b.direction = direction(azimuth, elevation);
      }
    }
    return beams;
  }
  if (name == "vlp16") return spinning(uniform(-15.0, 15.0, 16), 1800, rate, 2.304e-6);
  if (name == "hdl32") return spinning(uniform(-30.67, 10.67, 32), 2170, rate, 1.152e-6);
  if (name == "os1-64") return spinning(uniform(-16.6, 16.6, 64), 1024, rate, 0.0);  // a column fires at once
  return spinning(uniform(-15.0, 15.0, 16), 1800, rate, 2.8e-6);                    // rs16
}

std::vector<SimPoint> cast_frame(const LidarModel& model, const Scene& scene, const Trajectory& trajectory, const Eigen::Isometry3d& T_imu_lidar,
                                 double frame_start, const LidarNoiseParams& noise, bool instantaneous, std::mt19937_64& rng,
                                 std::vector<SurfaceSample>* surfaces) {
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::uniform_real_distribution<double> uniform01(0.0, 1.0);
  const auto beams = model.beams(frame_start);
  std::vector<SimPoint> points;
  points.reserve(beams.size());

  // The pose changes smoothly; spinning lidars share one time per column, so cache the last one.
  double cached_time = -1.0;
  Eigen::Isometry3d T_world_lidar = Eigen::Isometry3d::Identity();
  for (const auto& beam : beams) {
    const double offset = instantaneous ? 0.0 : beam.offset;
    const double t = frame_start + offset;
    if (t != cached_time) {
      T_world_lidar = trajectory.pose(t) * T_imu_lidar;
      cached_time = t;
    }
    const Eigen::Vector3d origin = T_world_lidar.translation();
    const Eigen::Vector3d dir = T_world_lidar.linear() * beam.direction;
    const auto hit = scene.cast(origin, dir, model.min_range, model.max_range);
    // Draw the noise for every beam (hit or not) so one change does not shift all later draws.
    const double range_noise = noise.range_noise * gauss(rng);
    const double drop = uniform01(rng);
    if (!hit || drop < noise.dropout) continue;
    const double range = hit->range + range_noise;
    if (range < model.min_range || range > model.max_range) continue;
    SimPoint p;
    p.offset = offset;
    p.p_lidar = (beam.direction * range).cast<float>();
    p.ring = beam.ring;
    // A plausible reflectivity: per surface, falling with the incidence angle.
    p.intensity = static_cast<float>(20 + (hit->primitive < 0 ? 60 : (hit->primitive * 37) % 180));
    points.push_back(p);
    if (surfaces) {
      const Eigen::Vector3d hit_point = origin + dir * hit->range;
      surfaces->push_back(SurfaceSample{hit_point, scene.normal(*hit, hit_point, origin)});
    }
  }
  return points;
}

}  // namespace asuka::sim
