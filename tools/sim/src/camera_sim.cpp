#include <asuka_sim/camera_sim.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>

namespace asuka::sim {

namespace {

/// A 64-bit mix (splitmix64's finalizer): deterministic pseudo-randomness from integers.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

double lattice(std::int64_t x, std::int64_t y, std::int64_t z, std::uint64_t octave) {
  const std::uint64_t h = mix(static_cast<std::uint64_t>(x) * 0x8CB92BA72F3D8DD7ULL ^ mix(static_cast<std::uint64_t>(y) * 0xD6E8FEB86659FD93ULL ^
                                                                                        mix(static_cast<std::uint64_t>(z) + octave * 0x2545F4914F6CDD1DULL)));
  return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
}

/// Value noise: trilinear (smoothstepped) interpolation of lattice values, in [0, 1).
double value_noise(const Eigen::Vector3d& p, double scale, std::uint64_t octave) {
  const Eigen::Vector3d q = p / scale;
  const double fx = std::floor(q.x()), fy = std::floor(q.y()), fz = std::floor(q.z());
  const auto ix = static_cast<std::int64_t>(fx), iy = static_cast<std::int64_t>(fy), iz = static_cast<std::int64_t>(fz);
  auto smooth = [](double t) { return t * t * (3.0 - 2.0 * t); };
  const double tx = smooth(q.x() - fx), ty = smooth(q.y() - fy), tz = smooth(q.z() - fz);
  double v = 0.0;
  for (int c = 0; c < 8; ++c) {
    const int dx = c & 1, dy = (c >> 1) & 1, dz = (c >> 2) & 1;
    const double w = (dx ? tx : 1.0 - tx) * (dy ? ty : 1.0 - ty) * (dz ? tz : 1.0 - tz);
    v += w * lattice(ix + dx, iy + dy, iz + dz, octave);
  }
  return v;
}

constexpr double kScales[] = {1.6, 0.4, 0.1, 0.025};
constexpr double kAmplitudes[] = {0.35, 0.3, 0.2, 0.15};

/// Normal-ish noise from a hash (sum of four uniforms, centred, unit variance).
double pixel_noise(std::uint64_t key) {
  double sum = 0.0;
  for (int i = 0; i < 4; ++i) {
    key = mix(key);
    sum += static_cast<double>(key >> 11) * (1.0 / 9007199254740992.0);
  }
  return (sum - 2.0) * std::sqrt(3.0);
}

}  // namespace

double texture_albedo(const Eigen::Vector3d& p) {
  double v = 0.0;
  for (int o = 0; o < 4; ++o) v += kAmplitudes[o] * value_noise(p, kScales[o], static_cast<std::uint64_t>(o));
  // The octaves average towards 0.5: stretch so that the texture spans most of the range.
  return 0.05 + 0.9 * std::clamp(0.5 + 2.2 * (v - 0.5), 0.0, 1.0);
}

Eigen::Vector3d texture_rgb(const Eigen::Vector3d& p) {
  const double albedo = texture_albedo(p);
  // A slowly varying tint (4 m), normalized so that the mean of the channels is the albedo.
  Eigen::Vector3d tint(0.6 + 0.8 * value_noise(p, 4.0, 11), 0.6 + 0.8 * value_noise(p, 4.0, 12), 0.6 + 0.8 * value_noise(p, 4.0, 13));
  tint /= tint.mean();
  return (albedo * tint).cwiseMin(1.0);
}

std::vector<std::string> camera_names() { return {"pinhole", "fisheye"}; }

SimCamera make_camera(const std::string& name) {
  SimCamera c;
  c.name = name;
  auto& k = c.intrinsics;
  k.width = 640;
  k.height = 512;
  k.cx = 319.5;
  k.cy = 255.5;
  if (name == "pinhole") {
    k.fx = k.fy = 420.0;  // 75 deg horizontal field of view
    k.distortion = camera::Distortion::RADTAN;
    k.coeffs = {-0.12, 0.03, 2e-4, -1e-4};
  } else if (name == "fisheye") {
    k.fx = k.fy = 165.0;  // about 190 deg across the width
    k.distortion = camera::Distortion::EQUIDISTANT;
    k.coeffs = {-0.012, 0.0018, -0.0002, 0.0};
  } else {
    throw std::invalid_argument("unknown camera '" + name + "'; expected pinhole or fisheye");
  }
  // Looking forward along the IMU's x axis, 6 cm ahead of the IMU and 3 cm above it.
  Eigen::Matrix3d R;
  R.col(0) = Eigen::Vector3d(0.0, -1.0, 0.0);  // camera x (right) = IMU -y
  R.col(1) = Eigen::Vector3d(0.0, 0.0, -1.0);  // camera y (down)  = IMU -z
  R.col(2) = Eigen::Vector3d(1.0, 0.0, 0.0);   // camera z (ahead) = IMU x
  c.T_imu_camera.linear() = R;
  c.T_imu_camera.translation() = Eigen::Vector3d(0.06, 0.0, 0.03);
  return c;
}

CameraRenderer::CameraRenderer(const SimCamera& camera, const Scene& scene, std::uint64_t seed)
    : model_(camera.intrinsics), scene_(scene), seed_(seed) {
  const int w = model_.width(), h = model_.height();
  rays_.resize(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), Eigen::Vector3f::Zero());
  for (int v = 0; v < h; ++v) {
    for (int u = 0; u < w; ++u) {
      Eigen::Vector3d ray;
      if (model_.unproject(Eigen::Vector2d(u, v), ray)) rays_[static_cast<std::size_t>(v * w + u)] = ray.cast<float>();
    }
  }
}

double exposure_gain(double t, bool auto_exposure) {
  if (!auto_exposure) return 1.0;
  constexpr double kTwoPi = 6.283185307179586;
  return 1.0 + 0.3 * std::sin(kTwoPi * t / 6.1) + 0.1 * std::sin(kTwoPi * t / 1.7);
}

Eigen::Vector3d surface_radiance(const Scene& scene, const Hit& hit, const Eigen::Vector3d& p, const Eigen::Vector3d& origin, bool rgb) {
  static const Eigen::Vector3d sun = Eigen::Vector3d(0.55, 0.35, 0.75).normalized();
  const Eigen::Vector3d n = scene.normal(hit, p, origin);
  const double shade = 0.45 + 0.55 * std::max(0.0, n.dot(sun));
  const double texture = texture_albedo(p);
  const double albedo = scene.albedo(p, texture);  // a decal (the textured corridor) or the texture
  return rgb && albedo == texture ? Eigen::Vector3d(shade * texture_rgb(p)) : Eigen::Vector3d::Constant(shade * albedo);
}

void CameraRenderer::render(const Eigen::Isometry3d& T_world_camera, double gain, bool rgb, double noise, SimImage& image, int threads) const {
  const int w = model_.width(), h = model_.height();
  const int channels = rgb ? 3 : 1;
  image.width = w;
  image.height = h;
  image.channels = channels;
  image.pixels.assign(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * static_cast<std::size_t>(channels), 0);
  const Eigen::Matrix3d R = T_world_camera.linear();
  const Eigen::Vector3d o = T_world_camera.translation();
  const std::uint64_t image_key = mix(seed_ ^ mix(static_cast<std::uint64_t>(image.index) + 0x51ED270B27D1ULL));

  auto render_rows = [&](int row_begin, int row_end) {
    for (int v = row_begin; v < row_end; ++v) {
      for (int u = 0; u < w; ++u) {
        const std::size_t i = static_cast<std::size_t>(v * w + u);
        const Eigen::Vector3f& ray = rays_[i];
        Eigen::Vector3d radiance = Eigen::Vector3d::Zero();  // outside the lens's field: black
        if (ray.squaredNorm() > 0.5f) {
          const Eigen::Vector3d d = R * ray.cast<double>();
          if (const auto hit = scene_.cast(o, d, 0.02, 200.0)) {
            radiance = surface_radiance(scene_, *hit, o + hit->range * d, o, rgb);
          } else {
            radiance = Eigen::Vector3d::Constant(0.75 + 0.2 * std::max(0.0, d.z()));  // sky, brighter upwards
          }
        }
        for (int c = 0; c < channels; ++c) {
          const double value = 255.0 * 0.9 * gain * radiance[c] + noise * pixel_noise(image_key ^ mix(i * 4 + static_cast<std::uint64_t>(c)));
          image.pixels[i * static_cast<std::size_t>(channels) + static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(std::clamp(std::lround(value), 0L, 255L));
        }
      }
    }
  };
  const int n = std::max(1, threads);
  std::vector<std::thread> workers;
  for (int t = 1; t < n; ++t) workers.emplace_back(render_rows, h * t / n, h * (t + 1) / n);
  render_rows(0, h / n);
  for (auto& worker : workers) worker.join();
}

}  // namespace asuka::sim
