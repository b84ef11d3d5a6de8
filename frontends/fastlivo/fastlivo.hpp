#pragma once
// fastlivo: FAST-LIVO2 (Zheng et al., "FAST-LIVO2: Fast, Direct LiDAR-Inertial-Visual Odometry",
// T-RO 2024) in our own code. One iterated error-state Kalman filter, updated at each image time:
//   1. the LiDAR point-to-plane update of the points up to the image time: the same code fastlio runs
//      (asuka/lio/ieskf_frontend.hpp), fed by the visual synchronizer (asuka/lio/visual_synchronizer.hpp),
//      which re-cuts the point stream at image times;
//   2. a direct photometric update of the same state (after_lidar_update): visual map points (LiDAR
//      points chosen for texture, asuka/visual/visual_map.hpp) are projected into the image, their
//      reference patches warped through the local plane (asuka/visual/patch.hpp), and the patch
//      intensities aligned coarse to fine over the pyramid (asuka/visual/photometric.hpp), with the
//      image's inverse exposure as a state;
//   3. map maintenance: reference patches added when the view changes, new points where a grid cell
//      has none, points dropped after repeated failures, a coloured map for save_map().
// Without images (none configured, none arriving, or unreadable) it is the LiDAR-inertial filter
// alone, and says so. docs/frontends/fastlivo.md: the algorithm, keys and measurements.
//
// Threads: the executor's worker thread only.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <asuka/camera/camera_model.hpp>
#include <asuka/camera/image_pyramid.hpp>
#include <asuka/lio/ieskf_frontend.hpp>
#include <asuka/lio/livo_state.hpp>
#include <asuka/lio/visual_synchronizer.hpp>
#include <asuka/lio/voxel_map.hpp>
#include <asuka/lio/voxel_table.hpp>
#include <asuka/util/warning_counter.hpp>
#include <asuka/visual/image_stream.hpp>
#include <asuka/visual/photometric.hpp>
#include <asuka/visual/visual_map.hpp>

#include "fastlivo_params.hpp"

namespace asuka::fastlivo {

using lio::LivoState;

/// What the visual side did, for the report and the tests.
struct VisualStats {
  std::uint64_t images = 0;               ///< images that reached the visual update
  std::uint64_t visual_updates = 0;       ///< images whose update moved the state
  std::uint64_t too_few_targets = 0;      ///< images with fewer than min_targets aligned patches
  std::uint64_t lidar_only_packages = 0;  ///< packages without an image
  std::uint64_t bad_images = 0;           ///< images of the wrong size or unreadable
  std::uint64_t image_gaps = 0;           ///< gaps between images of more than 1.5 periods
  std::uint64_t inconsistent_windows = 0; ///< windows of images where most patches were outliers
  std::uint64_t points_added = 0;
  std::uint64_t points_dropped = 0;
  double mean_targets = 0.0;              ///< aligned patches per updated image
  double last_tau = 1.0;                  ///< the latest inverse exposure estimate
  double mean_nis = 0.0;                  ///< mean squared Mahalanobis norm of the visual pose corrections under the post-LiDAR covariance
  /// [s] time spent per stage over the run: image to pyramid, target selection and warps, the
  /// photometric update, map maintenance, colouring
  double seconds_pyramid = 0.0, seconds_select = 0.0, seconds_align = 0.0, seconds_maintain = 0.0, seconds_colour = 0.0;
};

class FastLivo : public lio::IeskfFrontend<lio::VoxelMap, LivoState, lio::VisualSynchronizer> {
public:
  explicit FastLivo(const FastlivoParams& params);
  ~FastLivo() override;

  /// Only with a camera configured (and visual.enable): the host then warns when no image arrives.
  bool uses_images() const override { return camera_ != nullptr; }

  /// The coloured map (x y z rgb) when there is one, else the LiDAR map; with it, exposure.csv in the
  /// same folder: each image's time and estimated inverse exposure (relative to the first image).
  bool save_map(const std::string& path) override;

  const visual::VisualMap& visual_map() const { return visual_map_; }
  const VisualStats& visual_stats() const { return stats_; }
  const std::vector<std::pair<double, double>>& exposures() const { return exposures_; }

protected:
  void reset_filter() override;
  void after_lidar_update(const Package& package, bool register_scan, const std::vector<Eigen::Vector3d>& points_lidar, ScanOutput& out) override;

private:
  struct ColouredVoxel {
    lio::VoxelKey key{0, 0, 0};
    Eigen::Vector3f position_sum = Eigen::Vector3f::Zero();
    Eigen::Vector3f rgb_sum = Eigen::Vector3f::Zero();
    std::uint32_t count = 0;
  };

  /// The scalar Kalman update of the inverse exposure from the targets' brightness at the pose x_.
  void update_exposure(const std::vector<camera::GrayImage>& pyramid, const std::vector<visual::PhotometricTarget>& targets);
  /// The photometric update of x_ and P_ against `pyramid`; leaves in `targets` the aligned ones
  /// (none when the update did not run).
  void visual_update(const std::vector<camera::GrayImage>& pyramid, std::vector<visual::PhotometricTarget>& targets);
  /// One target per grid cell: the nearest visible map point, with its best-fitting reference warped.
  void select_targets(const visual::CameraPose& pose, std::vector<visual::PhotometricTarget>& targets) const;
  /// Reference patches for the tracked points, new points in empty cells, failures counted.
  void maintain_map(const std::vector<camera::GrayImage>& pyramid, const std::vector<visual::PhotometricTarget>& targets,
                    const std::vector<Eigen::Vector3d>& points_world);
  /// The colour of each point in `image` (alpha 0 where the camera does not see it), in radiance
  /// (times the inverse exposure), accumulated into the coloured map.
  void colour_points(const Image& image, const std::vector<Eigen::Vector3d>& points_world, std::vector<std::array<std::uint8_t, 4>>& colours);

  FastlivoParams params_;
  std::unique_ptr<camera::CameraModel> camera_;
  visual::VisualMap visual_map_;
  lio::VoxelTable<ColouredVoxel> coloured_;
  Eigen::Vector3d last_prune_ = Eigen::Vector3d::Zero();  ///< where the local boxes were last applied
  Eigen::Vector3d last_colour_p_ = Eigen::Vector3d::Zero();  ///< the pose of the last colouring
  Eigen::Matrix3d last_colour_R_ = Eigen::Matrix3d::Identity();
  std::uint32_t frame_ = 0;
  VisualStats stats_;
  visual::ImageMonitor images_;            ///< image_size, image_gap
  visual::ConsistencyMonitor consistency_;  ///< visual_inconsistent
  std::vector<std::pair<double, double>> exposures_;  ///< (image time, inverse exposure) per image, for exposure.csv
  WarningCounter few_targets_;
  std::vector<Eigen::Vector3f> neighbours_;
  std::vector<camera::GrayImage> pyramid_;  ///< the current image's pyramid, its buffers reused
};

}  // namespace asuka::fastlivo
