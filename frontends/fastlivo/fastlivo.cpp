#include "fastlivo.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include <Eigen/Cholesky>
#include <Eigen/LU>

#include <asuka/io/pcd_io.hpp>
#include <asuka/lio/plane_association.hpp>
#include <asuka/util/logging.hpp>
#include <asuka/visual/patch.hpp>

namespace asuka::fastlivo {

namespace {

constexpr double kMinDepth = 0.1;  // [m] map points closer to the camera are not used
constexpr double kColourMinRotation = 2.0 * M_PI / 180.0;  // [rad]

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

FastLivo::FastLivo(const FastlivoParams& params)
: IeskfFrontend(params.filter, "fastlivo", params.filter.common.map_params(), lio::VisualSynchronizer(params.visual.sync, module_logger("fastlivo"))),
  params_(params),
  visual_map_(params.visual.map) {
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
                "{} map points ({} added, {} dropped, {:.1f} MB); last inverse exposure {:.3f}; per image: pyramid {:.2f} ms, selection {:.2f} ms, "
                "alignment {:.2f} ms, map {:.2f} ms, colour {:.2f} ms",
                stats_.images, stats_.visual_updates, stats_.mean_targets, stats_.too_few_targets, stats_.lidar_only_packages, stats_.bad_images,
                visual_map_.size(), stats_.points_added, stats_.points_dropped, static_cast<double>(visual_map_.memory_bytes()) / 1e6, stats_.last_tau,
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
}

void FastLivo::after_lidar_update(const Package& package, bool register_scan, const std::vector<Eigen::Vector3d>& points_lidar) {
  if (!package.image) {
    ++stats_.lidar_only_packages;
    return;
  }
  if (!camera_) return;
  const Image& image = *package.image;
  if (!image.valid() || image.width != camera_->width() || image.height != camera_->height()) {
    ++stats_.bad_images;
    if (bad_images_.add()) {
      logger_->warn("image_size: the image at {:.6f} is {}x{} but sensor.camera says {}x{}; skipped ({} so far). Check the camera topic "
                    "and the calibration's resolution",
                    image.stamp, image.width, image.height, camera_->width(), camera_->height(), bad_images_.count());
    }
    return;
  }
  using Clock = std::chrono::steady_clock;
  const auto seconds_since = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  auto t0 = Clock::now();
  const int levels = params_.visual.pyramid_levels;
  const auto pyramid = camera::build_pyramid(camera::to_gray(image), levels);
  stats_.seconds_pyramid += seconds_since(t0);
  if (static_cast<int>(pyramid.size()) < levels) {
    ++stats_.bad_images;
    if (bad_images_.add()) logger_->warn("image_size: the image at {:.6f} is too small for {} pyramid levels; skipped", image.stamp, levels);
    return;
  }
  ++frame_;
  ++stats_.images;
  if (params_.visual.estimate_exposure) {
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
  // by a colour voxel or turned by kColourMinRotation since the last colouring.
  if ((x_.p - last_colour_p_).norm() > params_.visual.colour_voxel_size || so3::log(last_colour_R_.transpose() * x_.R).norm() > kColourMinRotation ||
      coloured_.size() == 0) {
    last_colour_p_ = x_.p;
    last_colour_R_ = x_.R;
    colour_points(image, points_world);
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
    ++stats_.too_few_targets;
    if (few_targets_.add()) {
      logger_->warn("too_few_patches: only {} visual map points could be aligned in the image at {:.6f} (at least {} needed; {} such images "
                    "so far); the LiDAR update alone carries the state there",
                    targets.size(), t_, v.min_targets, few_targets_.count());
    }
    return;
  }
  const int n = State::active_dim(ieskf_params().extrinsic_est_en);
  const int m = v.estimate_exposure ? 7 : 6;
  const int index[7] = {0, 1, 2, 3, 4, 5, State::kExposure};
  const State prior = x_;
  const Eigen::MatrixXd P_inv = P_.topLeftCorner(n, n).inverse();
  State x = prior;
  Eigen::MatrixXd A = P_inv;
  visual::PhotometricSystem system;
  bool moved = false;
  bool first = true;
  for (int level = v.pyramid_levels - 1; level >= 0; --level) {
    for (int iteration = 0; iteration < v.max_iterations; ++iteration) {
      visual::accumulate_photometric(pyramid, *camera_, x.R, x.p, T_ic, x.tau, level, v.photometric, targets, system);
      if (!first) {
        // After the first step the exposure and the pose are roughly right: a patch still far off is
        // occluded, on a moving object or a wrong plane.
        bool dropped = false;
        for (auto& t : targets) {
          if (t.inlier && !(t.error <= v.outlier_error)) {
            t.inlier = false;
            dropped = true;
          }
        }
        if (dropped) visual::accumulate_photometric(pyramid, *camera_, x.R, x.p, T_ic, x.tau, level, v.photometric, targets, system);
      }
      first = false;
      if (system.targets < v.min_targets) break;
      A = P_inv;
      Eigen::VectorXd b = -P_inv * x.minus(prior).head(n);
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < m; ++j) A(index[i], index[j]) += system.HtWH(i, j);
        b(index[i]) -= system.HtWr(i);
      }
      typename State::Tangent dx = State::Tangent::Zero();
      dx.head(n) = A.ldlt().solve(b);
      x = x.plus(dx, n);
      moved = true;
      if (dx.segment<3>(State::kRot).norm() < 1e-4 && dx.segment<3>(State::kPos).norm() < 1e-4) break;
    }
    if (system.targets < v.min_targets) break;
  }
  if (!moved || !x.R.allFinite() || !x.p.allFinite() || !(x.tau > 0.0)) {
    x_ = prior;
    return;
  }
  x_ = x;
  const Eigen::MatrixXd P = A.inverse();
  P_.topLeftCorner(n, n) = 0.5 * (P + P.transpose());
  ++stats_.visual_updates;
  stats_.mean_targets += (static_cast<double>(system.targets) - stats_.mean_targets) / static_cast<double>(stats_.visual_updates);
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
    if (!camera_->project(pose.to_camera(point.position), uv)) continue;
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
  std::vector<double> best_score(grid.count(), v.min_corner_score);
  std::vector<std::size_t> best(grid.count(), kNone);
  std::vector<Eigen::Vector2d> best_uv(grid.count());
  for (std::size_t i = 0; i < points_world.size(); ++i) {
    const Eigen::Vector3d pc = pose.to_camera(points_world[i]);
    if (pc.z() < kMinDepth || pc.norm() > v.max_depth) continue;
    Eigen::Vector2d uv;
    if (!camera_->project(pc, uv) || !camera_->in_image(uv, border)) continue;
    const std::size_t cell = grid.index(uv);
    if (occupied[cell] || visual_map_.occupied(points_world[i])) continue;
    const double score = visual::corner_score(pyramid[0], uv);
    if (score > best_score[cell]) {
      best_score[cell] = score;
      best[cell] = i;
      best_uv[cell] = uv;
    }
  }
  const auto association = common_.association_params();
  for (std::size_t cell = 0; cell < grid.count(); ++cell) {
    if (best[cell] == kNone) continue;
    const Eigen::Vector3d& pw = points_world[best[cell]];
    lio::Plane plane;
    if (!lio::find_plane(map_, pw, association, neighbours_, plane)) continue;  // no plane, no warp
    visual::VisualPoint point;
    // On the plane: the LiDAR's range noise along the ray would shift the patch in every other view.
    point.position = pw - (plane.normal.dot(pw) + plane.d) * plane.normal;
    point.normal = plane.normal.dot(centre - point.position) >= 0.0 ? plane.normal : Eigen::Vector3d(-plane.normal);
    point.last_seen = frame_;
    visual::RefPatch ref;
    if (!new_ref(best_uv[cell], ref)) continue;
    point.refs.push_back(std::move(ref));
    if (visual_map_.add(std::move(point))) ++stats_.points_added;
  }
}

void FastLivo::colour_points(const Image& image, const std::vector<Eigen::Vector3d>& points_world) {
  const visual::CameraPose pose = visual::CameraPose::from_imu(x_.R, x_.p, params_.camera->T_imu_camera);
  const float inv_voxel = static_cast<float>(1.0 / params_.visual.colour_voxel_size);
  const std::size_t bpp = bytes_per_pixel(image.encoding);
  for (const auto& pw : points_world) {
    const Eigen::Vector3d pc = pose.to_camera(pw);
    Eigen::Vector2d uv;
    if (pc.z() < kMinDepth || !camera_->project(pc, uv) || !camera_->in_image(uv)) continue;
    const int x = static_cast<int>(std::lround(uv.x())), y = static_cast<int>(std::lround(uv.y()));
    const std::uint8_t* px = image.row(y) + static_cast<std::size_t>(x) * bpp;
    Eigen::Vector3f rgb = Eigen::Vector3f::Zero();
    switch (image.encoding) {
      case ImageEncoding::MONO8: rgb.setConstant(px[0]); break;
      case ImageEncoding::MONO16: {
        std::uint16_t value;
        std::memcpy(&value, px, sizeof(value));
        rgb.setConstant(static_cast<float>(value) / 257.0f);
        break;
      }
      case ImageEncoding::RGB8: rgb = Eigen::Vector3f(px[0], px[1], px[2]); break;
      case ImageEncoding::BGR8: rgb = Eigen::Vector3f(px[2], px[1], px[0]); break;
    }
    // The radiance, not the grey level: images of different exposures agree on a surface's colour.
    rgb *= static_cast<float>(x_.tau);
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
  return true;
}

}  // namespace asuka::fastlivo
