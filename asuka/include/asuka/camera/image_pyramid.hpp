#pragma once
// Grayscale float images, their pyramids and bilinear sampling: what the direct (photometric)
// visual frontends share. They align patches by intensity, coarse to fine, and need intensities and
// their gradients at sub-pixel positions. Float keeps the arithmetic simple and the same for every
// encoding; every encoding is brought to the mono8 range [0, 255].
//
// Conventions (as in camera_model.hpp): integer coordinates are pixel centres, (u, v) = (column, row),
// so pixel (x, y) covers [x - 0.5, x + 0.5] x [y - 0.5, y + 0.5]. A pixel (x', y') of level l + 1
// covers pixels 2x', 2x' + 1 (and rows 2y', 2y' + 1) of level l, so its centre lies at 2x' + 0.5 of
// level l: u_l = (u_0 + 0.5) / 2^l - 0.5 (to_pyramid_level). Scaling by 2^-l alone would shift every
// coarse-level position by a quarter pixel or more.

#include <vector>

#include <Eigen/Core>

#include <asuka/core/types.hpp>

namespace asuka::camera {

/// A row-major single-channel float image; value (x, y) is data[y * width + x].
struct GrayImage {
  int width = 0;   ///< [px]
  int height = 0;  ///< [px]
  std::vector<float> data;

  GrayImage() = default;
  GrayImage(int w, int h, float fill = 0.0f) : width(w), height(h), data(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), fill) {}

  bool empty() const { return width <= 0 || height <= 0; }
  /// The pixel at column x, row y (unchecked).
  float at(int x, int y) const { return data[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)]; }
  float& at(int x, int y) { return data[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)]; }
};

/// Converts an image to gray in the mono8 range, honouring its stride: mono8 as is (0..255), mono16
/// divided by 257 (65535 -> 255, so thresholds tuned on mono8 carry over), rgb8 / bgr8 as luminance
/// 0.299 R + 0.587 G + 0.114 B (ITU-R BT.601). An invalid image (Image::valid() false) gives an empty one.
GrayImage to_gray(const asuka::Image& image);
/// The same into `out`, reusing its storage (no allocation when the size is unchanged: a frontend
/// converting every image keeps one buffer). `out` is emptied for an invalid image.
void to_gray(const asuka::Image& image, GrayImage& out);

/// The pyramid of `level0`: element 0 is `level0`, each next level half the size (rounded down) with
/// each pixel the mean of a 2x2 block of the level below (a box filter: the cheapest anti-aliasing
/// that keeps the pixel-centre relation exact; an odd last row or column is dropped). At most
/// `levels` levels; fewer when a level would have zero width or height; none for levels < 1 or an
/// empty image.
std::vector<GrayImage> build_pyramid(const GrayImage& level0, int levels);
/// The same in place: `pyramid[0]` holds level 0; the coarser levels are (re)computed into the
/// following elements, reusing their storage; `pyramid` is resized to the levels built.
void build_pyramid(std::vector<GrayImage>& pyramid, int levels);

/// Level-0 pixel coordinates -> the same point in level `level`'s pixel coordinates (header comment).
inline Eigen::Vector2d to_pyramid_level(const Eigen::Vector2d& uv0, int level) {
  const double scale = 1.0 / static_cast<double>(1 << level);
  return {(uv0.x() + 0.5) * scale - 0.5, (uv0.y() + 0.5) * scale - 0.5};
}
/// The inverse of to_pyramid_level.
inline Eigen::Vector2d from_pyramid_level(const Eigen::Vector2d& uv, int level) {
  const double scale = static_cast<double>(1 << level);
  return {(uv.x() + 0.5) * scale - 0.5, (uv.y() + 0.5) * scale - 0.5};
}

/// Bilinear interpolation of `img` at (u, v) [px, pixel-centre convention]: the value, and if asked
/// the gradient (d/du, d/dv) [intensity/px] of the same bilinear interpolant (exact for it, so
/// constant along u within a cell and continuous in value, not in gradient, across cells). False
/// (value and gradient untouched) when (u, v) is outside [0, width - 1) x [0, height - 1), where the
/// 2x2 neighbourhood would leave the image, or not finite.
bool sample(const GrayImage& img, double u, double v, float& value, Eigen::Vector2f* gradient = nullptr);

}  // namespace asuka::camera
