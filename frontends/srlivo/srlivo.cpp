#include "srlivo.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>

#include <Eigen/Cholesky>
#include <Eigen/LU>

#include <spdlog/spdlog.h>

#include <asuka/io/pcd_io.hpp>
#include <asuka/util/logging.hpp>
#include <asuka/visual/photometric.hpp>

namespace asuka::srlivo {

namespace {

constexpr double kMinDepth = 0.1;   // [m] map points closer to the camera are not used
constexpr int kDepthCell = 16;      // [px] cells of the occlusion test
constexpr double kBorder = 2.0;     // [px] a measured pixel's bilinear neighbourhood stays inside the image

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

lio::VisualSyncParams sync_params(const SrlivoParams& params) {
  lio::VisualSyncParams p = params.visual.sync;
  p.expect_images = params.camera.has_value() && params.visual.enable;
  return p;
}

}  // namespace

SrLivo::SrLivo(const SrlivoParams& params)
: IeskfFrontend(params.filter, "srlivo", params.filter.common.map_params(), lio::VisualSynchronizer(sync_params(params), module_logger("srlivo"))),
  params_(params),
  colour_map_(params.visual.map),
  images_(logger_),
  consistency_(params.visual.min_targets, logger_) {
  if (!params_.visual.enable) {
    logger_->warn("visual.enable is false: srlivo runs as a LiDAR-inertial estimator and ignores images");
  } else if (!params_.camera) {
    logger_->warn("no sensor.camera block in the configuration: srlivo runs as a LiDAR-inertial estimator; add the camera's "
                  "intrinsics and T_imu_camera (docs/camera.md) to use images");
  } else {
    camera_ = std::make_unique<camera::CameraModel>(params_.camera->intrinsics);
  }
  reset();
}

SrLivo::~SrLivo() {
  if (stats_.images == 0) return;
  const double n = static_cast<double>(stats_.images) * 1e-3;  // per image, in ms
  logger_->info("visual: {} images, {} visual updates ({:.0f} measurements each), {} with too few measurements, {} LiDAR-only packages, {} bad "
                "images; {} coloured-map points ({:.1f} MB), {} colour fusions; last inverse exposure {:.3f}; mean NIS of the visual corrections "
                "{:.1f}; per image: sweep points {:.2f} ms, selection {:.2f} ms, update {:.2f} ms, colour {:.2f} ms",
                stats_.images, stats_.visual_updates, stats_.mean_targets, stats_.too_few_targets, stats_.lidar_only_packages, stats_.bad_images,
                colour_map_.size(), static_cast<double>(colour_map_.memory_bytes()) / 1e6, stats_.colour_fusions, stats_.last_tau, stats_.mean_nis,
                stats_.seconds_points / n, stats_.seconds_select / n, stats_.seconds_update / n, stats_.seconds_colour / n);
}

void SrLivo::reset_filter() {
  IeskfFrontend::reset_filter();
  x_.tau = 1.0;
  // The first image fixes the gauge of the inverse exposure: tau = 1, known.
  P_(State::kExposure, State::kExposure) = 1e-8;
  colour_map_ = visual::ColourMap(params_.visual.map);
  images_.reset();
  consistency_.reset();
  few_targets_.reset();
  window_.clear();
  last_prune_ = Eigen::Vector3d::Zero();
  frame_ = 0;
  stats_ = VisualStats{};
  exposures_.clear();
}

double SrLivo::residual_variance(double map_variance, double gradient_norm) const {
  const auto& v = params_.visual;
  const double pixel = x_.tau * v.photometric_std;
  const double position = x_.tau * gradient_norm * v.position_std_px;
  return map_variance + pixel * pixel + position * position;
}

void SrLivo::after_lidar_update(const Package& package, bool register_scan, const std::vector<Eigen::Vector3d>& points_lidar, ScanOutput& out) {
  if (!package.image) {
    ++stats_.lidar_only_packages;
    return;
  }
  if (!camera_) return;
  const Image& image = *package.image;
  if (!images_.check_size(image, *camera_)) {
    stats_.bad_images = images_.bad_images();
    return;
  }
  camera::to_gray(image, gray_);
  ++frame_;
  ++stats_.images;
  images_.note_time(package.end);
  stats_.image_gaps = images_.gaps();
  const auto& v = params_.visual;
  const Eigen::Isometry3d& T_ic = params_.camera->T_imu_camera;
  if (v.estimate_exposure && frame_ > 1) {  // the first image is the gauge: tau = 1, known
    const double s = v.exposure_std * x_.tau;
    P_(State::kExposure, State::kExposure) += s * s;
  }

  // The reconstructed sweep at the map's spacing, de-skewed to the image time, into the map: these
  // are the surfaces the sensor sees now.
  auto t0 = Clock::now();
  const std::vector<Eigen::Vector3d> sweep = deskew(package, v.map.point_spacing);
  std::vector<Eigen::Vector3d> sweep_world;
  sweep_world.reserve(sweep.size());
  for (const auto& p_l : sweep) sweep_world.push_back(x_.R * (x_.R_il * p_l + x_.t_il) + x_.p);
  std::vector<std::size_t> touched;
  colour_map_.insert(sweep_world, frame_, touched);
  window_.emplace_back(frame_, std::move(touched));
  while (window_.size() > static_cast<std::size_t>(v.window_frames)) window_.pop_front();
  // The occlusion test: per cell, the nearest point of this sweep.
  const visual::CameraPose pose0 = visual::CameraPose::from_imu(x_.R, x_.p, T_ic);
  depth_cols_ = (camera_->width() + kDepthCell - 1) / kDepthCell;
  depth_rows_ = (camera_->height() + kDepthCell - 1) / kDepthCell;
  depth_.assign(static_cast<std::size_t>(depth_cols_) * static_cast<std::size_t>(depth_rows_), std::numeric_limits<float>::infinity());
  for (const auto& pw : sweep_world) {
    const Eigen::Vector3d pc = pose0.to_camera(pw);
    Eigen::Vector2d uv;
    if (pc.z() < kMinDepth || !camera_->project(pc, uv) || !camera_->in_image(uv)) continue;
    float& d = depth_[static_cast<std::size_t>(static_cast<int>(uv.y()) / kDepthCell * depth_cols_ + static_cast<int>(uv.x()) / kDepthCell)];
    d = std::min(d, static_cast<float>(pc.norm()));
  }
  stats_.seconds_points += seconds_since(t0);

  t0 = Clock::now();
  std::vector<Visible> visible;
  visible_points(pose0, package.end, visible);
  std::vector<Target> targets;
  if (register_scan && frame_ > 1) select_targets(visible, targets);
  stats_.seconds_select += seconds_since(t0);

  t0 = Clock::now();
  update_exposure(targets);
  std::size_t outliers = 0;
  if (targets.size() >= v.min_targets) {
    visual_update(targets);
    for (const auto& t : targets) outliers += t.inlier ? 0 : 1;
  } else if (register_scan && frame_ > static_cast<std::uint32_t>(v.min_observations) + 1) {
    // (Before that the map's colours cannot have min_observations images yet.)
    ++stats_.too_few_targets;
    if (few_targets_.add()) {
      logger_->warn("too_few_colour_points: only {} coloured map points could be measured in the image at {:.6f} (at least {} needed; {} such "
                    "images so far): too little texture, the map's colours not yet settled, or a dark image; the LiDAR update alone carries "
                    "the state there",
                    targets.size(), package.end, v.min_targets, few_targets_.count());
    }
  }
  stats_.seconds_update += seconds_since(t0);

  t0 = Clock::now();
  const visual::CameraPose pose = visual::CameraPose::from_imu(x_.R, x_.p, T_ic);
  fuse_colours(image, visible, package.end);
  // The frame's colours for asuka_rosnode's /asuka/cloud_coloured, in the order of points_lidar.
  const bool mono = image.encoding == ImageEncoding::MONO8 || image.encoding == ImageEncoding::MONO16;
  out.colours.assign(points_lidar.size(), {0, 0, 0, 0});
  for (std::size_t i = 0; i < points_lidar.size(); ++i) {
    const Eigen::Vector3d pc = pose.to_camera(x_.R * (x_.R_il * points_lidar[i] + x_.t_il) + x_.p);
    Eigen::Vector2d uv;
    if (pc.z() < kMinDepth || !camera_->project(pc, uv) || !camera_->in_image(uv)) continue;
    const int px = static_cast<int>(std::lround(uv.x())), py = static_cast<int>(std::lround(uv.y()));
    const Eigen::Vector3f rgb = ((mono ? Eigen::Vector3f::Constant(gray_.at(px, py)) : visual::pixel_rgb(image, px, py)) * static_cast<float>(x_.tau))
                                  .cwiseMax(0.0f)
                                  .cwiseMin(255.0f);
    out.colours[i] = {static_cast<std::uint8_t>(std::lround(rgb.x())), static_cast<std::uint8_t>(std::lround(rgb.y())),
                      static_cast<std::uint8_t>(std::lround(rgb.z())), 255};
  }
  // The local box, applied when the sensor has moved a tenth of its half size.
  if ((x_.p - last_prune_).norm() > 0.1 * common_.local_map_half_size) {
    last_prune_ = x_.p;
    if (colour_map_.remove_outside(x_.p) > 0) window_.clear();  // its ids are no longer valid
  }
  stats_.seconds_colour += seconds_since(t0);
  stats_.last_tau = x_.tau;
  exposures_.emplace_back(package.end, x_.tau);
  consistency_.end_image(targets.size(), outliers, package.end);
  stats_.inconsistent_windows = consistency_.inconsistent_windows();
}

void SrLivo::visible_points(const visual::CameraPose& pose, double time, std::vector<Visible>& visible) const {
  const double max_depth = params_.visual.max_depth;
  // Newest sweep first; a point counts with the sweep that touched it last (its `frame`), so once.
  for (auto it = window_.rbegin(); it != window_.rend(); ++it) {
    for (const std::size_t id : it->second) {
      const visual::ColourPoint& point = colour_map_.at(id);
      if (point.frame != it->first) continue;
      const Eigen::Vector3d pc = pose.to_camera(point.position.cast<double>());
      const double depth = pc.norm();
      Eigen::Vector2d uv;
      if (pc.z() < kMinDepth || depth > max_depth || !camera_->project(pc, uv) || !camera_->in_image(uv, kBorder)) continue;
      // Hidden behind what the current sweep hit in its cell (10 % and 0.2 m of slack: the cell's
      // nearest point may lie on the same surface, nearer by the surface's slope across the cell).
      const float nearest = depth_[static_cast<std::size_t>(static_cast<int>(uv.y()) / kDepthCell * depth_cols_ + static_cast<int>(uv.x()) / kDepthCell)];
      if (std::isfinite(nearest) && depth > 1.1 * static_cast<double>(nearest) + 0.2) continue;
      // What the selection and the fusion need, copied once: the map is far larger than the cache, and
      // reading each point again per stage cost a cache miss each time.
      visible.push_back(Visible{id, point.position, uv, point.radiance, colour_map_.variance_at(point, time), point.observations});
    }
  }
}

void SrLivo::select_targets(const std::vector<Visible>& visible, std::vector<Target>& targets) const {
  const auto& v = params_.visual;
  const int cols = (camera_->width() + v.grid_size - 1) / v.grid_size;
  const int rows = (camera_->height() + v.grid_size - 1) / v.grid_size;
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> best(static_cast<std::size_t>(cols) * static_cast<std::size_t>(rows), kNone);
  std::vector<float> steepest(best.size(), static_cast<float>(v.min_gradient * v.min_gradient));
  const float max_variance = static_cast<float>(v.max_colour_std * v.max_colour_std);
  for (std::size_t i = 0; i < visible.size(); ++i) {
    const Visible& point = visible[i];
    if (point.observations < v.min_observations || point.variance > max_variance) continue;
    float value = 0.0f;
    Eigen::Vector2f g;
    if (!camera::sample(gray_, point.uv.x(), point.uv.y(), value, &g)) continue;
    const std::size_t cell = static_cast<std::size_t>(static_cast<int>(point.uv.y()) / v.grid_size * cols + static_cast<int>(point.uv.x()) / v.grid_size);
    if (g.squaredNorm() > steepest[cell]) {
      steepest[cell] = g.squaredNorm();
      best[cell] = i;
    }
  }
  for (const std::size_t i : best) {
    if (i == kNone) continue;
    const Visible& point = visible[i];
    targets.push_back(Target{point.position.cast<double>(), point.radiance, point.variance, true});
  }
}

void SrLivo::update_exposure(const std::vector<Target>& targets) {
  if (!params_.visual.estimate_exposure || targets.empty()) return;
  std::vector<double> ratios;
  ratios.reserve(targets.size());
  for (const auto& t : targets) {
    Eigen::Vector2d uv;
    float value = 0.0f;
    // Dark pixels give unstable ratios (and would divide by zero).
    if (!visual::project_point(*camera_, x_.R, x_.p, params_.camera->T_imu_camera, t.point, uv) || !camera::sample(gray_, uv.x(), uv.y(), value) ||
        value < 10.0f || t.radiance < 10.0f) {
      continue;
    }
    ratios.push_back(static_cast<double>(t.radiance) / static_cast<double>(value));
  }
  double tau = 0.0, variance = 0.0;
  if (visual::median_ratio(ratios, tau, variance)) lio::fuse_inverse_exposure(x_, P_, tau, variance);
}

bool SrLivo::visual_update(std::vector<Target>& targets) {
  const auto& v = params_.visual;
  const Eigen::Isometry3d& T_ic = params_.camera->T_imu_camera;
  const int n = State::active_dim(ieskf_params().extrinsic_est_en);
  const State prior = x_;
  const double tau = x_.tau;
  const Eigen::MatrixXd P_inv = P_.topLeftCorner(n, n).inverse();
  State x = prior;
  Eigen::MatrixXd A = P_inv;
  bool moved = false;
  std::size_t used = 0;
  for (int iteration = 0; iteration < v.max_iterations; ++iteration) {
    Eigen::Matrix<double, 6, 6> HtWH = Eigen::Matrix<double, 6, 6>::Zero();
    Eigen::Matrix<double, 6, 1> HtWr = Eigen::Matrix<double, 6, 1>::Zero();
    used = 0;
    for (auto& t : targets) {
      if (!t.inlier) continue;
      Eigen::Vector2d uv;
      Eigen::Matrix<double, 2, 6> J;
      float value = 0.0f;
      Eigen::Vector2f g;
      if (!visual::project_point(*camera_, x.R, x.p, T_ic, t.point, uv, &J) || !camera::sample(gray_, uv.x(), uv.y(), value, &g)) {
        t.inlier = false;  // left the image
        continue;
      }
      const double r = tau * static_cast<double>(value) - static_cast<double>(t.radiance);
      const double variance = residual_variance(static_cast<double>(t.variance), static_cast<double>(g.norm()));
      const double z = std::abs(r) / std::sqrt(variance);
      // After the first step the pose is close: a residual still far off is an occlusion, a moving
      // object or a colour that has changed.
      if (iteration > 0 && z > v.outlier_sigmas) {
        t.inlier = false;
        continue;
      }
      const double w = (z <= v.huber ? 1.0 : v.huber / z) / variance;
      const Eigen::Matrix<double, 1, 6> h = tau * g.cast<double>().transpose() * J;
      HtWH.noalias() += w * h.transpose() * h;
      HtWr.noalias() += w * h.transpose() * r;
      ++used;
    }
    if (used < v.min_targets) break;
    A = P_inv;
    Eigen::VectorXd b = -P_inv * x.minus(prior).head(n);
    // Element by element: GCC 12 sees a possible null in the vectorized form of these dynamic blocks.
    for (int i = 0; i < 6; ++i) {
      for (int j = 0; j < 6; ++j) A(i, j) += HtWH(i, j);
      b[i] -= HtWr(i);
    }
    typename State::Tangent dx = State::Tangent::Zero();
    dx.head(n) = A.ldlt().solve(b);
    dx[State::kExposure] = 0.0;  // held: measured by update_exposure()
    x = x.plus(dx, n);
    moved = true;
    if (dx.segment<3>(State::kRot).norm() < 1e-5 && dx.segment<3>(State::kPos).norm() < 1e-4) break;
  }
  if (!moved || used < v.min_targets || !x.R.allFinite() || !x.p.allFinite()) {
    x_ = prior;
    return false;
  }
  const Eigen::Matrix<double, 6, 1> correction = x.minus(prior).head<6>();
  const double nis = correction.dot(P_.topLeftCorner<6, 6>().ldlt().solve(correction));
  consistency_.add_update(nis);
  x_ = x;
  const Eigen::MatrixXd P = A.inverse();
  P_.topLeftCorner(n, n) = 0.5 * (P + P.transpose());
  ++stats_.visual_updates;
  stats_.mean_nis += (nis - stats_.mean_nis) / static_cast<double>(stats_.visual_updates);
  stats_.mean_targets += (static_cast<double>(used) - stats_.mean_targets) / static_cast<double>(stats_.visual_updates);
  return true;
}

void SrLivo::fuse_colours(const Image& image, const std::vector<Visible>& visible, double time) {
  const visual::CameraPose pose = visual::CameraPose::from_imu(x_.R, x_.p, params_.camera->T_imu_camera);
  const bool mono = image.encoding == ImageEncoding::MONO8 || image.encoding == ImageEncoding::MONO16;
  const float tau = static_cast<float>(x_.tau);
  for (const Visible& seen : visible) {
    const Eigen::Vector3d pc = pose.to_camera(seen.position.cast<double>());
    Eigen::Vector2d uv;
    if (pc.z() < kMinDepth || !camera_->project(pc, uv) || !camera_->in_image(uv, kBorder)) continue;
    float value = 0.0f;
    Eigen::Vector2f g;
    if (!camera::sample(gray_, uv.x(), uv.y(), value, &g)) continue;
    if (value >= 254.0f) continue;  // saturated: the radiance is unknown
    const float radiance = tau * value;
    const Eigen::Vector3f rgb =
      mono ? Eigen::Vector3f::Constant(radiance)
           : Eigen::Vector3f(visual::pixel_rgb(image, static_cast<int>(std::lround(uv.x())), static_cast<int>(std::lround(uv.y()))) * tau);
    colour_map_.fuse(colour_map_.at(seen.id), radiance, rgb, static_cast<float>(residual_variance(0.0, static_cast<double>(g.norm()))), time);
    ++stats_.colour_fusions;
  }
}

bool SrLivo::save_map(const std::string& path) {
  std::vector<Eigen::Vector3f> points;
  std::vector<std::array<std::uint8_t, 3>> rgb;
  for (const auto& point : colour_map_.points()) {
    if (point.observations == 0) continue;
    points.push_back(point.position);
    const Eigen::Vector3f c = point.rgb.cwiseMax(0.0f).cwiseMin(255.0f);
    rgb.push_back({static_cast<std::uint8_t>(std::lround(c.x())), static_cast<std::uint8_t>(std::lround(c.y())),
                   static_cast<std::uint8_t>(std::lround(c.z()))});
  }
  if (points.empty()) return IeskfFrontend::save_map(path);
  std::string error;
  if (!write_pcd_rgb(path, points, rgb, &error)) {
    logger_->error("cannot save the coloured map: {}", error);
    return false;
  }
  logger_->info("saved the coloured map ({} points, x y z rgb) to {}", points.size(), path);
  const auto csv = std::filesystem::path(path).parent_path() / "exposure.csv";
  if (!visual::write_exposure_csv(csv.string(), exposures_)) logger_->warn("cannot write {}", csv.string());
  return true;
}

}  // namespace asuka::srlivo
