#include <asuka/lio/camera_config.hpp>

#include <vector>

#include <asuka/config/config.hpp>
#include <asuka/lio/extrinsic.hpp>

namespace asuka::lio {

std::optional<CameraConfig> CameraConfig::from_config(const Config& c, const std::string& key) {
  if (!c.has(key)) return std::nullopt;
  CameraConfig out;
  auto& k = out.intrinsics;
  k.width = c.get_required<int>(key + ".width");
  k.height = c.get_required<int>(key + ".height");
  k.fx = c.get_required<double>(key + ".fx");
  k.fy = c.get_required<double>(key + ".fy");
  k.cx = c.get_required<double>(key + ".cx");
  k.cy = c.get_required<double>(key + ".cy");
  const auto distortion = c.get_enum(key + ".distortion", "none", {"none", "radtan", "plumb_bob", "equidistant", "fisheye"});
  camera::distortion_from_string(distortion, k.distortion);
  k.coeffs = c.get<std::vector<double>>(key + ".coeffs", {});
  if (const std::string problem = camera::CameraModel::check(k); !problem.empty()) {
    throw ConfigError(c.name() + ": key '" + key + "': " + problem);
  }
  out.T_imu_camera = rigid_from_config(c, key + ".extrinsic_t", key + ".extrinsic_R", Eigen::Isometry3d::Identity());
  return out;
}

}  // namespace asuka::lio
