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

std::vector<std::string> lidar_names() {
  return {"avia", "mid360", "hap", "vlp16", "vlp32", "hdl32", "hdl64", "os0-64", "os1-64", "os2-64", "rs16", "rs32", "helios", "pandar40", "xt32"};
}

namespace {

// Spinning models: ring elevations [deg], columns per revolution, time between the rings of a column [s].
struct SpinningSpec {
  const char* name;
  CloudFormat format;
  int lines;
  double elevation_lo, elevation_hi;
  int columns;
  double ring_dt;
  double max_range;
};
// The sensors' vertical fields of view, with rings spaced evenly (real sensors space them unevenly);
// the models added for the sensor presets (#16) have fewer columns than the sensors, so that a
// simulated bag stays small.
constexpr SpinningSpec kSpinning[] = {
  {"vlp16", CloudFormat::VELODYNE, 16, -15.0, 15.0, 1800, 2.304e-6, 100.0},
  {"vlp32", CloudFormat::VELODYNE, 32, -25.0, 15.0, 1024, 1.152e-6, 200.0},
  {"hdl32", CloudFormat::VELODYNE, 32, -30.67, 10.67, 2170, 1.152e-6, 100.0},
  {"hdl64", CloudFormat::VELODYNE, 64, -24.9, 2.0, 1024, 0.5e-6, 120.0},
  {"os0-64", CloudFormat::OUSTER, 64, -45.0, 45.0, 1024, 0.0, 50.0},
  {"os1-64", CloudFormat::OUSTER, 64, -22.5, 22.5, 1024, 0.0, 120.0},
  {"os2-64", CloudFormat::OUSTER, 64, -11.25, 11.25, 1024, 0.0, 200.0},
  {"rs16", CloudFormat::ROBOSENSE, 16, -15.0, 15.0, 1800, 2.8e-6, 150.0},
  {"rs32", CloudFormat::ROBOSENSE, 32, -25.0, 15.0, 1024, 1.4e-6, 200.0},
  {"helios", CloudFormat::ROBOSENSE, 32, -55.0, 15.0, 1024, 1.4e-6, 150.0},
  {"pandar40", CloudFormat::HESAI, 40, -25.0, 15.0, 1024, 1.0e-6, 200.0},
  {"xt32", CloudFormat::HESAI, 32, -16.0, 15.0, 1000, 1.5e-6, 120.0},
};

const SpinningSpec* spinning_spec(const std::string& name) {
  for (const auto& s : kSpinning) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

}  // namespace

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
  } else if (name == "hap") {
    m.format = CloudFormat::LIVOX;
    m.lines = 6;
    m.max_range = 150.0;
    m.min_range = 0.5;
    m.T_imu_lidar = Eigen::Isometry3d::Identity();
  } else if (const SpinningSpec* spec = spinning_spec(name)) {
    m.format = spec->format;
    m.lines = spec->lines;
    m.max_range = spec->max_range;
    // External IMUs: a mount above the IMU, as on a vehicle's roof rack. An Ouster's cloud is in its
    // sensor frame (os_sensor), where the built-in IMU sits at (6.253, -11.775, 7.645) mm.
    if (name == "vlp16") m.T_imu_lidar = translation(0.0, 0.0, 0.12);
    else if (name == "hdl32") m.T_imu_lidar = translation(0.05, 0.0, 0.15);
    else if (name == "rs16") m.T_imu_lidar = translation(0.0, 0.0, 0.1);
    else if (spec->format == CloudFormat::OUSTER) m.T_imu_lidar = translation(-0.006253, 0.011775, -0.007645);
    else m.T_imu_lidar = translation(0.0, 0.0, 0.1);
  } else {
    std::string known;
    for (const auto& n : lidar_names()) known += (known.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown lidar '" + name + "'; expected one of: " + known);
  }
  return m;
}

std::vector<LidarBeam> LidarModel::beams(double frame_start) const {
  const double period = 1.0 / rate;
  if (name == "avia" || name == "mid360" || name == "hap") {
    // Non-repetitive patterns: the lasers fire in turn; their angles follow incommensurate
    // oscillations of absolute time, so successive frames cover new directions.
    const bool avia = name == "avia", hap = name == "hap";
    const int per_frame = avia || hap ? 24000 : 20000;
    std::vector<LidarBeam> beams(static_cast<std::size_t>(per_frame));
    for (int i = 0; i < per_frame; ++i) {
      const double offset = period * i / per_frame;
      const double T = frame_start + offset;
      const int line = i % lines;
      LidarBeam& b = beams[static_cast<std::size_t>(i)];
      b.offset = offset;
      b.ring = static_cast<std::uint16_t>(line);
      if (hap) {
        // A raster-like non-repetitive pattern in a 120 x 25 deg field of view.
        const double phi1 = 2.0 * kPi * 331.3 * T + line * kPi / 6.0;
        const double phi2 = 2.0 * kPi * 9.13 * T + line * 2.0 * kPi / 6.0;
        b.direction = direction(60.0 * kDeg * std::sin(phi2), 12.5 * kDeg * std::sin(phi1));
      } else if (avia) {
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
  const SpinningSpec* spec = spinning_spec(name);
  if (spec == nullptr) throw std::invalid_argument("no scan pattern for lidar '" + name + "'");
  return spinning(uniform(spec->elevation_lo, spec->elevation_hi, spec->lines), spec->columns, rate, spec->ring_dt);
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
