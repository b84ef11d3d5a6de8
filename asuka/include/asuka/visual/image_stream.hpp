#pragma once
// What every visual frontend (fastlivo, srlivo) checks and logs about its image stream, in one place
// so that the warnings read the same whichever frontend runs:
//   ImageMonitor        image_size (an image the calibration does not describe) and image_gap (images
//                       missing from the stream: the camera's period is learnt from the stream itself)
//   ConsistencyMonitor  visual_inconsistent: over windows of images, most photometric measurements are
//                       outliers, or the visual corrections are far larger than the LiDAR-inertial
//                       covariance allows (a time offset, a wrong extrinsic or intrinsics, another
//                       camera's topic)
//   pixel_rgb           the colour of a pixel of any encoding asuka reads
//   write_exposure_csv  each image's estimated inverse exposure, next to the coloured map
// Threads: one frontend's worker thread.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include <asuka/camera/camera_model.hpp>
#include <asuka/core/types.hpp>
#include <asuka/util/warning_counter.hpp>

namespace spdlog {
class logger;
}

namespace asuka::visual {

class ImageMonitor {
public:
  explicit ImageMonitor(std::shared_ptr<spdlog::logger> logger) : logger_(std::move(logger)) {}

  /// True when `image` is readable and has the camera's size; otherwise counts it and warns
  /// (image_size, rate-limited), naming both sizes.
  bool check_size(const Image& image, const camera::CameraModel& camera);
  /// Counts and warns (image_size) about an image the frontend cannot use for another reason `why`.
  void reject(const Image& image, const std::string& why);
  /// Notes an image at `stamp` [s]; warns (image_gap) when the gap since the previous one exceeds 1.5
  /// camera periods. The period is the lower quartile of the last 16 gaps, which dropped images do not
  /// move while fewer than three in four gaps are long.
  void note_time(double stamp);

  std::uint64_t bad_images() const { return bad_.count(); }
  std::uint64_t gaps() const { return gaps_.count(); }
  void reset();

private:
  std::shared_ptr<spdlog::logger> logger_;
  WarningCounter bad_;
  WarningCounter gaps_;
  double last_ = -1.0;              ///< [s] the previous image's stamp (-1: none yet)
  std::vector<double> recent_gaps_;  ///< [s] the last gaps, oldest first
};

class ConsistencyMonitor {
public:
  /// `min_measurements` per image: windows with fewer on average are not judged by their outliers.
  ConsistencyMonitor(std::size_t min_measurements, std::shared_ptr<spdlog::logger> logger)
  : min_measurements_(min_measurements), logger_(std::move(logger)) {}

  /// One visual update's pose correction in squared Mahalanobis norm under the prior covariance. On
  /// consistent data its mean is about the number of directions the images constrain beyond the
  /// LiDAR (3 measured in fastlivo, docs/frontends/fastlivo.md); far more when the images disagree.
  void add_update(double nis) {
    window_nis_ += nis;
    ++window_updates_;
  }
  /// Ends one image with its measurement and outlier counts; every 20 images judges the window and
  /// warns (visual_inconsistent) when more than half the measurements were outliers or the mean NIS
  /// exceeds 15. True when this image closed an inconsistent window.
  bool end_image(std::size_t measurements, std::size_t outliers, double stamp);

  std::uint64_t inconsistent_windows() const { return warnings_.count(); }
  void reset();

private:
  std::size_t min_measurements_;
  std::shared_ptr<spdlog::logger> logger_;
  WarningCounter warnings_;
  double window_nis_ = 0.0;
  std::size_t window_updates_ = 0, window_measurements_ = 0, window_outliers_ = 0, window_images_ = 0;
};

/// The colour (r, g, b in [0, 255]) of pixel (x, y) of `image` (in range, unchecked): mono8 and
/// mono16 (/257) as grey.
Eigen::Vector3f pixel_rgb(const Image& image, int x, int y);

/// Writes "time,inverse exposure" per line with a header; false when the file cannot be written.
bool write_exposure_csv(const std::string& path, const std::vector<std::pair<double, double>>& exposures);

}  // namespace asuka::visual
