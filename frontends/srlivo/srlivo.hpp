#pragma once
// srlivo: SR-LIVO (Yuan et al., "SR-LIVO: LiDAR-Inertial-Visual Odometry and Mapping with Sweep
// Reconstruction", RA-L 2024) in our own code. One iterated error-state Kalman filter, updated at each
// image time:
//   1. sweep reconstruction: the visual synchronizer (asuka/lio/visual_synchronizer.hpp) re-cuts the
//      LiDAR point stream so that every sweep ends at an image time, splitting and merging the
//      driver's scans; the LiDAR-inertial state is then estimated exactly at each image, whatever the
//      camera's rate and phase, without hardware synchronization;
//   2. the LiDAR point-to-plane update of that sweep: the code fastlio runs (asuka/lio/ieskf_frontend.hpp);
//   3. a frame-to-map photometric update of the same state (after_lidar_update): points of the
//      coloured map (asuka/visual/colour_map.hpp) that the recent sweeps hit, each with a radiance
//      fused from earlier images, are projected into the image; the difference between the pixel's
//      radiance (grey level times the image's inverse exposure) and the point's refines the pose, with
//      the point's colour variance and the image gradient in each residual's weight (R3LIVE's
//      frame-to-map model, which SR-LIVO's visual side follows);
//   4. colour fusion: the same points take the new image's radiance (a Kalman update per point) at
//      the refined pose; new points enter the map where the sweep hit an empty voxel.
// The inverse exposure of each image is a state, measured as the median ratio of map radiances to
// pixel values. Without images (none configured, none arriving, or unreadable) it is the
// LiDAR-inertial filter alone, and says so. docs/frontends/srlivo.md: the algorithm, keys and
// measurements; how it differs from fastlivo.
//
// Threads: the executor's worker thread only.

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <asuka/camera/camera_model.hpp>
#include <asuka/camera/image_pyramid.hpp>
#include <asuka/lio/ieskf_frontend.hpp>
#include <asuka/lio/livo_state.hpp>
#include <asuka/lio/visual_synchronizer.hpp>
#include <asuka/lio/voxel_map.hpp>
#include <asuka/util/warning_counter.hpp>
#include <asuka/visual/colour_map.hpp>
#include <asuka/visual/image_stream.hpp>
#include <asuka/visual/patch.hpp>

#include "srlivo_params.hpp"

namespace asuka::srlivo {

/// What the visual side did, for the report and the tests.
struct VisualStats {
  std::uint64_t images = 0;               ///< images that reached the visual side
  std::uint64_t visual_updates = 0;       ///< images whose photometric update moved the state
  std::uint64_t too_few_targets = 0;      ///< images with fewer than min_targets measurements
  std::uint64_t lidar_only_packages = 0;  ///< packages without an image
  std::uint64_t bad_images = 0;           ///< images of the wrong size or unreadable
  std::uint64_t image_gaps = 0;           ///< gaps between images of more than 1.5 periods
  std::uint64_t inconsistent_windows = 0; ///< windows of images where the images disagreed with the LiDAR
  std::uint64_t colour_fusions = 0;       ///< point colours fused
  double mean_targets = 0.0;              ///< photometric measurements per updated image
  double mean_nis = 0.0;                  ///< mean squared Mahalanobis norm of the visual pose corrections
  double last_tau = 1.0;                  ///< the latest inverse exposure
  /// [s] per stage over the run: sweep points into the map, measurement selection, the update, colouring
  double seconds_points = 0.0, seconds_select = 0.0, seconds_update = 0.0, seconds_colour = 0.0;
};

class SrLivo : public lio::IeskfFrontend<lio::VoxelMap, lio::LivoState, lio::VisualSynchronizer> {
public:
  explicit SrLivo(const SrlivoParams& params);
  ~SrLivo() override;

  /// Only with a camera configured (and visual.enable): the host then warns when no image arrives.
  bool uses_images() const override { return camera_ != nullptr; }

  /// The coloured map (x y z rgb, every point with at least one colour) when there is one, else the
  /// LiDAR map; with it, exposure.csv in the same folder.
  bool save_map(const std::string& path) override;

  const visual::ColourMap& colour_map() const { return colour_map_; }
  const VisualStats& visual_stats() const { return stats_; }
  const std::vector<std::pair<double, double>>& exposures() const { return exposures_; }

protected:
  void reset_filter() override;
  void after_lidar_update(const Package& package, bool register_scan, const std::vector<Eigen::Vector3d>& points_lidar, ScanOutput& out) override;

private:
  /// One photometric measurement: a coloured map point where the camera sees it now.
  struct Target {
    Eigen::Vector3d point = Eigen::Vector3d::Zero();
    float radiance = 0.0f;
    float variance = 0.0f;  ///< [grey^2] of the map's radiance now
    bool inlier = true;
  };

  /// A map point the camera sees: what the selection and the colour fusion read of it.
  struct Visible {
    std::size_t id = 0;
    Eigen::Vector3f position = Eigen::Vector3f::Zero();
    Eigen::Vector2d uv = Eigen::Vector2d::Zero();  ///< [px] level 0, at the post-LiDAR pose
    float radiance = 0.0f;
    float variance = 0.0f;  ///< [grey^2] of the radiance at the image time
    std::uint16_t observations = 0;
  };

  /// The map points of the recent sweeps, each once, that the camera at `pose` sees in front of
  /// what the current sweep hit (`depth_`, per cell), at image time `time`.
  void visible_points(const visual::CameraPose& pose, double time, std::vector<Visible>& visible) const;
  /// One target per grid cell among the visible points: the steepest with a confident colour.
  void select_targets(const std::vector<Visible>& visible, std::vector<Target>& targets) const;
  /// The median ratio of map radiance to pixel value at the current pose, fused into x_.tau.
  void update_exposure(const std::vector<Target>& targets);
  /// The iterated photometric update of x_ and P_ (tau held); false when it did not run.
  bool visual_update(std::vector<Target>& targets);
  /// Fuses the image's radiance into the visible points at the current pose.
  void fuse_colours(const Image& image, const std::vector<Visible>& visible, double time);
  /// The residual variance of a pixel of gradient `g` against a map radiance of variance `map_variance`.
  double residual_variance(double map_variance, double gradient_norm) const;

  SrlivoParams params_;
  std::unique_ptr<camera::CameraModel> camera_;
  visual::ColourMap colour_map_;
  visual::ImageMonitor images_;             ///< image_size, image_gap
  visual::ConsistencyMonitor consistency_;  ///< visual_inconsistent
  WarningCounter few_targets_;
  camera::GrayImage gray_;                    ///< the current image, its buffer reused
  std::deque<std::pair<std::uint32_t, std::vector<std::size_t>>> window_;  ///< (frame, map points its sweep hit), newest last
  std::vector<float> depth_;                  ///< [m] per depth cell: the nearest point of the current sweep
  int depth_cols_ = 0, depth_rows_ = 0;
  Eigen::Vector3d last_prune_ = Eigen::Vector3d::Zero();
  std::uint32_t frame_ = 0;
  VisualStats stats_;
  std::vector<std::pair<double, double>> exposures_;  ///< (image time, inverse exposure), for exposure.csv
};

}  // namespace asuka::srlivo
