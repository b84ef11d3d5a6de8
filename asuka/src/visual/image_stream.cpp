#include <asuka/visual/image_stream.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>

#include <spdlog/spdlog.h>

namespace asuka::visual {

bool ImageMonitor::check_size(const Image& image, const camera::CameraModel& camera) {
  if (image.valid() && image.width == camera.width() && image.height == camera.height()) return true;
  if (bad_.add()) {
    logger_->warn("image_size: the image at {:.6f} is {}x{} but sensor.camera says {}x{}; skipped ({} so far). Check the camera topic "
                  "and the calibration's resolution",
                  image.stamp, image.width, image.height, camera.width(), camera.height(), bad_.count());
  }
  return false;
}

void ImageMonitor::reject(const Image& image, const std::string& why) {
  if (bad_.add()) logger_->warn("image_size: the image at {:.6f} {}; skipped ({} so far)", image.stamp, why, bad_.count());
}

void ImageMonitor::note_time(double stamp) {
  constexpr std::size_t kGaps = 16;
  if (last_ >= 0.0 && stamp > last_) {
    const double gap = stamp - last_;
    double period = 0.0;
    if (recent_gaps_.size() >= 4) {
      std::vector<double> sorted = recent_gaps_;
      std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 4), sorted.end());
      period = sorted[sorted.size() / 4];
    }
    if (period > 0.0 && gap > 1.5 * period && gaps_.add()) {
      logger_->warn("image_gap: no image for {:.3f} s before {:.6f} (about {:.0f} images at {:.1f} Hz missing; {} gaps so far): dropped by the "
                    "camera driver, the transport or the recording; the LiDAR-inertial update carried the state",
                    gap, stamp, std::round(gap / period) - 1.0, 1.0 / period, gaps_.count());
    }
    recent_gaps_.push_back(gap);
    if (recent_gaps_.size() > kGaps) recent_gaps_.erase(recent_gaps_.begin());
  }
  last_ = stamp;
}

void ImageMonitor::reset() {
  bad_.reset();
  gaps_.reset();
  last_ = -1.0;
  recent_gaps_.clear();
}

bool ConsistencyMonitor::end_image(std::size_t measurements, std::size_t outliers, double stamp) {
  constexpr std::size_t kWindow = 20;  // images
  constexpr double kMaxMeanNis = 15.0;
  window_measurements_ += measurements;
  window_outliers_ += outliers;
  if (++window_images_ < kWindow) return false;
  const double fraction = window_measurements_ > 0 ? static_cast<double>(window_outliers_) / static_cast<double>(window_measurements_) : 0.0;
  const double nis = window_updates_ > 0 ? window_nis_ / static_cast<double>(window_updates_) : 0.0;
  const bool many_outliers = window_measurements_ >= kWindow * min_measurements_ && fraction > 0.5;
  const bool pulled = window_updates_ >= kWindow / 2 && nis > kMaxMeanNis;
  window_measurements_ = window_outliers_ = window_images_ = window_updates_ = 0;
  window_nis_ = 0.0;
  if (!many_outliers && !pulled) return false;
  if (warnings_.add()) {
    logger_->warn("visual_inconsistent: over the {} images up to {:.6f} the images disagree with the LiDAR-inertial poses ({:.0f} % of the "
                  "photometric measurements were outliers; the visual corrections averaged {:.1f} in squared Mahalanobis norm, about 3 when "
                  "they agree). Check the image time offset (config_ros time_offset_camera_to_imu), the camera's extrinsic and intrinsics "
                  "(sensor.camera) and that the image topic is this camera's",
                  kWindow, stamp, 100.0 * fraction, nis);
  }
  return true;
}

void ConsistencyMonitor::reset() {
  warnings_.reset();
  window_nis_ = 0.0;
  window_updates_ = window_measurements_ = window_outliers_ = window_images_ = 0;
}

Eigen::Vector3f pixel_rgb(const Image& image, int x, int y) {
  const std::uint8_t* px = image.row(y) + static_cast<std::size_t>(x) * bytes_per_pixel(image.encoding);
  switch (image.encoding) {
    case ImageEncoding::MONO8: return Eigen::Vector3f::Constant(static_cast<float>(px[0]));
    case ImageEncoding::MONO16: {
      std::uint16_t value;
      std::memcpy(&value, px, sizeof(value));
      return Eigen::Vector3f::Constant(static_cast<float>(value) / 257.0f);
    }
    case ImageEncoding::RGB8: return Eigen::Vector3f(px[0], px[1], px[2]);
    case ImageEncoding::BGR8: return Eigen::Vector3f(px[2], px[1], px[0]);
  }
  return Eigen::Vector3f::Zero();
}

bool write_exposure_csv(const std::string& path, const std::vector<std::pair<double, double>>& exposures) {
  std::ofstream out(path);
  out << "# image time [s], inverse exposure relative to the first image\n";
  for (const auto& [t, tau] : exposures) out << fmt::format("{:.6f},{:.6f}\n", t, tau);
  return static_cast<bool>(out);
}

}  // namespace asuka::visual
