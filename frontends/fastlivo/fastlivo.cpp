#include "fastlivo.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include <Eigen/Cholesky>
#include <Eigen/LU>

#include <spdlog/spdlog.h>

#include <asuka/io/pcd_io.hpp>
#include <asuka/lio/plane_association.hpp>
#include <asuka/util/logging.hpp>
#include <asuka/visual/patch.hpp>

namespace asuka::fastlivo {

namespace {

constexpr double kMinDepth = 0.1;  // [m] map points closer to the camera are not used
// A colour keyframe: the camera moved or turned this much since the last one. Colouring costs about
// 0.3 us per scan point (a projection and a hash lookup that misses the cache); colours from nearly
// the same view add nothing to the map.
constexpr double kColourMinTranslation = 0.25;               // [m]
constexpr double kColourMinRotation = 5.0 * M_PI / 180.0;  // [rad]

/// Cells of `grid` px over a width x height image.
struct Grid {
  int cell = 32, cols = 0, rows = 0;
  Grid(int width, int height, int size) : cell(size), cols((width + size - 1) / size), rows((height + size - 1) / size) {}
  std::size_t count() const { return static_cast<std::size_t>(cols) * static_cast<std::size_t>(rows); }
  std::size_t index(const Eigen::Vector2d& uv) const {
    const int c = std::clamp(static_cast<int>(uv.x() / cell), 0, cols - 1);
    const int r = std::clamp(static_cast<int>(uv.y() / cell), 0, rows - 1);
    return static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c);
  }
};

}  // namespace

namespace {

lio::VisualSyncParams sync_params(const FastlivoParams& params) {
  lio::VisualSyncParams p = params.visual.sync;
  p.expect_images = params.camera.has_value() && params.visual.enable;
  return p;
}

}  // namespace

FastLivo::FastLivo(const FastlivoParams& params)
: IeskfFrontend(params.filter, "fastlivo", params.filter.common.map_params(), lio::VisualSynchronizer(sync_params(params), module_logger("fastlivo"))),
  params_(params),
  visual_map_(params.visual.map),
  images_(logger_),
  consistency_(params.visual.min_targets, logger_) {
  if (!params_.visual.enable) {
    logger_->warn("visual.enable is false: fastlivo runs as a LiDAR-inertial estimator and ignores images");
  } else if (!params_.camera) {
    logger_->warn("no sensor.camera block in the configuration: fastlivo runs as a LiDAR-inertial estimator; add the camera's "
                  "intrinsics and T_imu_camera (docs/camera.md) to use images");
  } else {
    camera_ = std::make_unique<camera::CameraModel>(params_.camera->intrinsics);
  }
  reset();
}

FastLivo::~FastLivo() {
  if (stats_.images == 0) return;
  const double n = static_cast<double>(stats_.images) * 1e-3;  // per image, in ms
  logger_->info("visual: {} images, {} visual updates ({:.0f} patches each), {} with too few patches, {} LiDAR-only packages, {} bad images; "
                "{} map points ({} added, {} dropped, {:.1f} MB); last inverse exposure {:.3f}; mean NIS of the visual corrections {:.1f}; per image: pyramid {:.2f} ms, selection {:.2f} ms, "
                "alignment {:.2f} ms, map {:.2f} ms, colour {:.2f} ms",
                stats_.images, stats_.visual_updates, stats_.mean_targets, stats_.too_few_targets, stats_.lidar_only_packages, stats_.bad_images,
                visual_map_.size(), stats_.points_added, stats_.points_dropped, static_cast<double>(visual_map_.memory_bytes()) / 1e6, stats_.last_tau, stats_.mean_nis,
                stats_.seconds_pyramid / n, stats_.seconds_select / n, stats_.seconds_align / n, stats_.seconds_maintain / n, stats_.seconds_colour / n);
}

void FastLivo::reset_filter() {
  IeskfFrontend::reset_filter();
  x_.tau = 1.0;
  // The first image fixes the gauge of the inverse exposure: tau = 1, known.
  P_(State::kExposure, State::kExposure) = 1e-8;
  visual_map_ = visual::VisualMap(params_.visual.map);
  coloured_ = lio::VoxelTable<ColouredVoxel>();
  last_prune_ = Eigen::Vector3d::Zero();
  last_colour_p_ = Eigen::Vector3d::Zero();
  last_colour_R_ = Eigen::Matrix3d::Identity();
  frame_ = 0;
  stats_ = VisualStats{};
  images_.reset();
  consistency_.reset();
  few_targets_.reset();
  exposures_.clear();
}

void FastLivo::after_lidar_update(const Package& package, bool register_scan, const std::vector<Eigen::Vector3d>& points_lidar, ScanOutput& out) {
  if (!package.image) {
    ++stats_.lidar_only_packages;
    return;
  }
  if (!camera_) return;
  const Image& image = *package.image;
  if (!images_.check_size(image, *camera_)) {
    ++stats_.bad_images;
    return;
  }
  using Clock = std::chrono::steady_clock;
  const auto seconds_since = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  auto t0 = Clock::now();
  const int levels = params_.visual.pyramid_levels;
  // One buffer per level, reused from image to image (a fresh 1.3 MB level 0 per image costs its
  // page faults every time).
  if (pyramid_.empty()) pyramid_.resize(1);
  camera::to_gray(image, pyramid_[0]);
  camera::build_pyramid(pyramid_, levels);
  const std::vector<camera::GrayImage>& pyramid = pyramid_;
  stats_.seconds_pyramid += seconds_since(t0);
  if (static_cast<int>(pyramid.size()) < levels) {
    ++stats_.bad_images;
    images_.reject(image, fmt::format("is too small for {} pyramid levels", levels));
    return;
  }
  ++frame_;
  ++stats_.images;
  images_.note_time(package.end);
  stats_.image_gaps = images_.gaps();
  if (params_.visual.estimate_exposure && frame_ > 1) {  // the first image is the gauge: tau = 1, known
    const double s = params_.visual.exposure_std * x_.tau;
    P_(State::kExposure, State::kExposure) += s * s;
  }
  std::vector<visual::PhotometricTarget> targets;
  if (register_scan && visual_map_.size() > 0) visual_update(pyramid, targets);  // times itself

  std::vector<Eigen::Vector3d> points_world;
  points_world.reserve(points_lidar.size());
  for (const auto& p_l : points_lidar) points_world.push_back(x_.R * (x_.R_il * p_l + x_.t_il) + x_.p);
  t0 = Clock::now();
  maintain_map(pyramid, targets, points_world);
  stats_.seconds_maintain += seconds_since(t0);
  t0 = Clock::now();
  // Colours from a view the map has nearly had already add nothing: colour when the camera has moved
  // by kColourMinTranslation or turned by kColourMinRotation since the last colouring.
  const bool accumulate = (x_.p - last_colour_p_).norm() > kColourMinTranslation ||
                          so3::log(last_colour_R_.transpose() * x_.R).norm() > kColourMinRotation || coloured_.size() == 0;
  if (accumulate) {
    last_colour_p_ = x_.p;
    last_colour_R_ = x_.R;
    colour_points(image, points_world, out.colours);  // the frame's colours (asuka_rosnode's /asuka/cloud_coloured) and the map's
  }
  // The local boxes, applied when the sensor has moved a tenth of their half size: a full pass over
  // both maps is not worth doing for a few metres.
  const double h = common_.local_map_half_size;
  if ((x_.p - last_prune_).norm() > 0.1 * h) {
    last_prune_ = x_.p;
    const std::size_t before = visual_map_.size();
    visual_map_.remove_outside(x_.p);
    stats_.points_dropped += before - visual_map_.size();
    coloured_.remove_outside(x_.p, h, params_.visual.colour_voxel_size, [](const ColouredVoxel&) {});
  }
  stats_.seconds_colour += seconds_since(t0);
  stats_.last_tau = x_.tau;
  exposures_.emplace_back(package.end, x_.tau);
  std::size_t outliers = 0;
  for (const auto& t : targets) outliers += !t.inlier || !(t.error <= params_.visual.outlier_error) ? 1 : 0;
  consistency_.end_image(targets.size(), outliers, package.end);
  stats_.inconsistent_windows = consistency_.inconsistent_windows();
}

void FastLivo::select_targets(const visual::CameraPose& pose, std::vector<visual::PhotometricTarget>& targets) const {
  const auto& v = params_.visual;
  const int half = v.photometric.half;
  const Grid grid(camera_->width(), camera_->height(), v.grid_size);
  // A patch at the coarsest level must stay inside it (level-0 pixels).
  const double border = static_cast<double>((half + 1) * (1 << (v.pyramid_levels - 1)) + 1);
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::vector<double> best_depth(grid.count(), std::numeric_limits<double>::infinity());
  std::vector<std::size_t> best(grid.count(), kNone);
  for (std::size_t id = 0; id < visual_map_.slots(); ++id) {
    if (!visual_map_.alive(id)) continue;
    const Eigen::Vector3d pc = pose.to_camera(visual_map_.at(id).position);
    const double depth = pc.norm();
    if (pc.z() < kMinDepth || depth > v.max_depth) continue;
    Eigen::Vector2d uv;
    if (!camera_->project(pc, uv) || !camera_->in_image(uv, border)) continue;
    const std::size_t cell = grid.index(uv);
    if (depth < best_depth[cell]) {
      best_depth[cell] = depth;
      best[cell] = id;
    }
  }
  const Eigen::Vector3d centre = pose.centre();
  std::vector<std::pair<double, std::size_t>> order;
  for (const std::size_t id : best) {
    if (id == kNone) continue;
    const visual::VisualPoint& point = visual_map_.at(id);
    const Eigen::Vector3d view = (point.position - centre).normalized();
    // The reference seen from the most similar direction first: its warp is the smallest.
    order.clear();
    for (std::size_t r = 0; r < point.refs.size(); ++r) {
      order.emplace_back(-view.dot((point.position - point.refs[r].pose.centre()).normalized()), r);
    }
    std::sort(order.begin(), order.end());
    visual::PhotometricTarget target;
    target.point_world = point.position;
    target.id = id;
    for (const auto& [unused, r] : order) {
      const visual::RefPatch& ref = point.refs[r];
      Eigen::Matrix2d A;
      if (!visual::affine_warp(*camera_, ref.pose, pose, point.position, point.normal, A)) continue;
      bool fits = true;
      for (int level = 0; level < v.pyramid_levels && fits; ++level) {
        fits = ref.warp(level, half, A, target.reference[static_cast<std::size_t>(level)]);
      }
      if (fits) {
        targets.push_back(std::move(target));
        break;
      }
    }
  }
}

void FastLivo::visual_update(const std::vector<camera::GrayImage>& pyramid, std::vector<visual::PhotometricTarget>& targets) {
  const auto& v = params_.visual;
  const Eigen::Isometry3d& T_ic = params_.camera->T_imu_camera;
  auto t0 = std::chrono::steady_clock::now();
  select_targets(visual::CameraPose::from_imu(x_.R, x_.p, T_ic), targets);
  stats_.seconds_select += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t0 = std::chrono::steady_clock::now();
  struct AlignTimer {
    double& sum;
    std::chrono::steady_clock::time_point t0;
    ~AlignTimer() { sum += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
  } align_timer{stats_.seconds_align, t0};
  if (targets.size() < v.min_targets) {
    update_exposure(pyramid, targets);  // the median brightness ratio needs only a few patches
    targets.clear();                    // not aligned: neither successes nor failures of their points
    ++stats_.too_few_targets;
    if (few_targets_.add()) {
      logger_->warn("too_few_patches: only {} visual map points could be aligned in the image at {:.6f} (at least {} needed; {} such images "
                    "so far); the LiDAR update alone carries the state there",
                    targets.size(), t_, v.min_targets, few_targets_.count());
    }
    return;
  }
  const int n = State::active_dim(ieskf_params().extrinsic_est_en);
  const int half = v.photometric.half;
  const State prior = x_;
  // The exposure first, from the patches' brightness at the predicted pose (the ratio estimator of
  // asuka/visual/photometric.hpp, not least squares: that one is biased low and drifts); the pose
  // update below holds it.
  double tau = x_.tau;
  double tau_variance = 0.0;
  if (v.estimate_exposure) {
    double estimate = 0.0;
    if (visual::estimate_inverse_exposure(pyramid, *camera_, x_.R, x_.p, T_ic, v.pyramid_levels - 1, half, targets, estimate, tau_variance)) tau = estimate;
  }
  const Eigen::MatrixXd P_inv = P_.topLeftCorner(n, n).inverse();
  State x = prior;
  Eigen::MatrixXd A = P_inv;
  visual::PhotometricSystem system;
  bool moved = false;
  bool first = true;
  for (int level = v.pyramid_levels - 1; level >= 0; --level) {
    for (int iteration = 0; iteration < v.max_iterations; ++iteration) {
      visual::accumulate_photometric(pyramid, *camera_, x.R, x.p, T_ic, tau, level, v.photometric, targets, system);
      if (!first) {
        // After the first step the pose is roughly right: a patch still far off is occluded, on a
        // moving object or on a wrong plane.
        bool dropped = false;
        for (auto& t : targets) {
          if (t.inlier && !(t.error <= v.outlier_error)) {
            t.inlier = false;
            dropped = true;
          }
        }
        if (dropped) visual::accumulate_photometric(pyramid, *camera_, x.R, x.p, T_ic, tau, level, v.photometric, targets, system);
      }
      first = false;
      if (system.targets < v.min_targets) break;
      // The pose rows only (the system's first six columns); the exposure is held.
      A = P_inv;
      Eigen::VectorXd b = -P_inv * x.minus(prior).head(n);
      // Element by element: GCC 12 sees a possible null in the vectorized form of these dynamic blocks.
      for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 6; ++j) A(i, j) += system.HtWH(i, j);
        b[i] -= system.HtWr(i);
      }
      typename State::Tangent dx = State::Tangent::Zero();
      dx.head(n) = A.ldlt().solve(b);
      dx[State::kExposure] = 0.0;
      x = x.plus(dx, n);
      moved = true;
      if (dx.segment<3>(State::kRot).norm() < 1e-4 && dx.segment<3>(State::kPos).norm() < 1e-4) break;
    }
    if (system.targets < v.min_targets) break;
  }
  if (!moved || !x.R.allFinite() || !x.p.allFinite()) {
    x_ = prior;
    update_exposure(pyramid, targets);
    targets.clear();
    return;
  }
  // How far the images moved the pose, in units of the LiDAR-inertial uncertainty: about 3 on
  // average when the two agree (check_consistency), far more when they do not (a time offset, a
  // wrong extrinsic).
  const Eigen::Matrix<double, 6, 1> correction = x.minus(prior).head<6>();
  const double nis = correction.dot(P_.topLeftCorner<6, 6>().ldlt().solve(correction));
  consistency_.add_update(nis);
  x_ = x;
  const Eigen::MatrixXd P = A.inverse();
  P_.topLeftCorner(n, n) = 0.5 * (P + P.transpose());
  update_exposure(pyramid, targets);  // at the aligned pose
  ++stats_.visual_updates;
  stats_.mean_nis += (nis - stats_.mean_nis) / static_cast<double>(stats_.visual_updates);
  stats_.mean_targets += (static_cast<double>(system.targets) - stats_.mean_targets) / static_cast<double>(stats_.visual_updates);
}

void FastLivo::update_exposure(const std::vector<camera::GrayImage>& pyramid, const std::vector<visual::PhotometricTarget>& targets) {
  if (!params_.visual.estimate_exposure) return;
  double tau = 0.0, variance = 0.0;
  if (!visual::estimate_inverse_exposure(pyramid, *camera_, x_.R, x_.p, params_.camera->T_imu_camera, 0, params_.visual.photometric.half, targets, tau,
                                         variance) ||
      !(variance > 0.0) || !std::isfinite(tau)) {
    return;
  }
  lio::fuse_inverse_exposure(x_, P_, tau, variance);
}

void FastLivo::maintain_map(const std::vector<camera::GrayImage>& pyramid, const std::vector<visual::PhotometricTarget>& targets,
                            const std::vector<Eigen::Vector3d>& points_world) {
  const auto& v = params_.visual;
  const int half = v.photometric.half;
  const visual::CameraPose pose = visual::CameraPose::from_imu(x_.R, x_.p, params_.camera->T_imu_camera);
  const Eigen::Vector3d centre = pose.centre();
  const Grid grid(camera_->width(), camera_->height(), v.grid_size);
  std::vector<bool> occupied(grid.count(), false);
  const double cos_min_angle = std::cos(v.ref_min_angle_deg * M_PI / 180.0);
  const double border = static_cast<double>((half + v.patch_margin + 1) * (1 << (v.pyramid_levels - 1)) + 1);

  auto new_ref = [&](const Eigen::Vector2d& uv, visual::RefPatch& ref) {
    ref.pose = pose;
    ref.inverse_exposure = static_cast<float>(x_.tau);
    ref.frame = frame_;
    return ref.cut(pyramid, uv, v.pyramid_levels, half, v.patch_margin);
  };

  for (const auto& t : targets) {
    if (!visual_map_.alive(t.id)) continue;
    visual::VisualPoint& point = visual_map_.at(t.id);
    if (!t.inlier || !(t.error <= v.outlier_error)) {
      if (++point.failures >= v.max_failures) {
        visual_map_.erase(t.id);
        ++stats_.points_dropped;
      }
      continue;
    }
    point.failures = 0;
    point.last_seen = frame_;
    Eigen::Vector2d uv;
    if (!camera_->project(pose.to_camera(point.position), uv) || !camera_->in_image(uv)) continue;
    occupied[grid.index(uv)] = true;
    // A new reference when this view differs in direction or distance from every stored one.
    const Eigen::Vector3d ray = point.position - centre;
    bool novel = true;
    for (const auto& ref : point.refs) {
      const Eigen::Vector3d ref_ray = point.position - ref.pose.centre();
      const double ratio = ray.norm() / ref_ray.norm();
      if (ray.normalized().dot(ref_ray.normalized()) > cos_min_angle && ratio < v.ref_min_scale && ratio > 1.0 / v.ref_min_scale) {
        novel = false;
        break;
      }
    }
    if (!novel || !camera_->in_image(uv, border)) continue;
    visual::RefPatch ref;
    if (new_ref(uv, ref)) visual_map_.add_ref(t.id, std::move(ref));
  }

  // New points: in each empty cell, the scan point with the strongest corner.
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::vector<double> best_score(grid.count(), 0.0);
  std::vector<std::size_t> best(grid.count(), kNone);
  std::vector<Eigen::Vector2d> best_uv(grid.count());
  for (std::size_t i = 0; i < points_world.size(); ++i) {
    const Eigen::Vector3d pc = pose.to_camera(points_world[i]);
    if (pc.z() < kMinDepth || pc.norm() > v.max_depth) continue;
    Eigen::Vector2d uv;
    if (!camera_->project(pc, uv) || !camera_->in_image(uv, border)) continue;
    const std::size_t cell = grid.index(uv);
    if (occupied[cell] || visual_map_.occupied(points_world[i])) continue;
    // Per cell, the candidate with the steepest gradient first (one sample); its corner score below.
    float value = 0.0f;
    Eigen::Vector2f g;
    if (!camera::sample(pyramid[0], uv.x(), uv.y(), value, &g)) continue;
    const double steepness = g.cast<double>().squaredNorm();
    if (steepness > best_score[cell]) {
      best_score[cell] = steepness;
      best[cell] = i;
      best_uv[cell] = uv;
    }
  }
  const auto association = common_.association_params();
  for (std::size_t cell = 0; cell < grid.count(); ++cell) {
    if (best[cell] == kNone || visual::corner_score(pyramid[0], best_uv[cell]) < v.min_corner_score) continue;
    const Eigen::Vector3d& pw = points_world[best[cell]];
    lio::Plane plane;
    if (!lio::find_plane(map_, pw, association, neighbours_, plane)) continue;  // no plane, no warp
    // The point must lie on that plane: the current scan is not in the map yet, so a new object or a
    // point at a depth edge (where corners are strongest) would otherwise take the wall behind it.
    // The point must lie near that plane: the current scan is not in the map yet, so a new object or
    // a point at a depth edge would otherwise take the wall behind it (up to search_distance away).
    const double residual = plane.normal.dot(pw) + plane.d;
    if (!(std::abs(residual) <= 3.0 * common_.max_residual)) continue;
    visual::VisualPoint point;
    // Onto the plane along its normal (the LiDAR's noise off the surface), the patch cut at the
    // LiDAR point's pixel: what the camera saw there. (Cutting it where the moved point projects, or
    // moving the point along the camera ray instead, made the 30 s textured corridor worse: 0.5 ->
    // 1.2 and 2.0 cm ATE.)
    point.position = pw - residual * plane.normal;
    point.normal = plane.normal.dot(centre - point.position) >= 0.0 ? plane.normal : Eigen::Vector3d(-plane.normal);
    point.last_seen = frame_;
    visual::RefPatch ref;
    if (!new_ref(best_uv[cell], ref)) continue;
    point.refs.push_back(std::move(ref));
    if (visual_map_.add(std::move(point))) ++stats_.points_added;
  }
}

void FastLivo::colour_points(const Image& image, const std::vector<Eigen::Vector3d>& points_world, std::vector<std::array<std::uint8_t, 4>>& colours) {
  const visual::CameraPose pose = visual::CameraPose::from_imu(x_.R, x_.p, params_.camera->T_imu_camera);
  const float inv_voxel = static_cast<float>(1.0 / params_.visual.colour_voxel_size);
  colours.assign(points_world.size(), {0, 0, 0, 0});
  for (std::size_t i = 0; i < points_world.size(); ++i) {
    const Eigen::Vector3d& pw = points_world[i];
    const Eigen::Vector3d pc = pose.to_camera(pw);
    Eigen::Vector2d uv;
    if (pc.z() < kMinDepth || !camera_->project(pc, uv) || !camera_->in_image(uv)) continue;
    Eigen::Vector3f rgb = visual::pixel_rgb(image, static_cast<int>(std::lround(uv.x())), static_cast<int>(std::lround(uv.y())));
    // The radiance, not the grey level: images of different exposures agree on a surface's colour.
    rgb *= static_cast<float>(x_.tau);
    const Eigen::Vector3f c = rgb.cwiseMax(0.0f).cwiseMin(255.0f);
    colours[i] = {static_cast<std::uint8_t>(std::lround(c.x())), static_cast<std::uint8_t>(std::lround(c.y())),
                  static_cast<std::uint8_t>(std::lround(c.z())), 255};
    auto& voxel = coloured_.find_or_add(lio::voxel_key(pw.cast<float>(), inv_voxel));
    voxel.position_sum += pw.cast<float>();
    voxel.rgb_sum += rgb;
    ++voxel.count;
  }
}

bool FastLivo::save_map(const std::string& path) {
  if (coloured_.size() == 0) return IeskfFrontend::save_map(path);
  std::vector<Eigen::Vector3f> points;
  std::vector<std::array<std::uint8_t, 3>> rgb;
  points.reserve(coloured_.size());
  rgb.reserve(coloured_.size());
  for (const auto& voxel : coloured_.voxels()) {
    const float inv = 1.0f / static_cast<float>(voxel.count);
    points.push_back(voxel.position_sum * inv);
    const Eigen::Vector3f c = (voxel.rgb_sum * inv).cwiseMax(0.0f).cwiseMin(255.0f);
    rgb.push_back({static_cast<std::uint8_t>(std::lround(c.x())), static_cast<std::uint8_t>(std::lround(c.y())),
                   static_cast<std::uint8_t>(std::lround(c.z()))});
  }
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

}  // namespace asuka::fastlivo
