#include <asuka/camera/image_pyramid.hpp>

#include <cmath>
#include <cstring>
#include <utility>

namespace asuka::camera {

namespace {

/// Sizes `img` to w x h, keeping its storage when it is large enough (the values are overwritten by
/// the caller).
void reshape(GrayImage& img, int w, int h) {
  img.width = w;
  img.height = h;
  img.data.resize(static_cast<std::size_t>(w) * static_cast<std::size_t>(h));
}

}  // namespace

GrayImage to_gray(const asuka::Image& image) {
  GrayImage gray;
  to_gray(image, gray);
  return gray;
}

void to_gray(const asuka::Image& image, GrayImage& gray) {
  if (!image.valid() || (image.encoding != ImageEncoding::MONO8 && image.encoding != ImageEncoding::MONO16 && image.encoding != ImageEncoding::RGB8 &&
                         image.encoding != ImageEncoding::BGR8)) {
    gray = GrayImage{};
    return;
  }
  reshape(gray, image.width, image.height);
  const int w = image.width;
  for (int y = 0; y < image.height; ++y) {
    const std::uint8_t* row = image.row(y);
    float* out = gray.data.data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(w);
    switch (image.encoding) {
      case ImageEncoding::MONO8:
        for (int x = 0; x < w; ++x) out[x] = static_cast<float>(row[x]);
        break;
      case ImageEncoding::MONO16:
        for (int x = 0; x < w; ++x) {
          std::uint16_t value = 0;  // memcpy: rows of an odd stride are not 2-byte aligned
          std::memcpy(&value, row + 2 * x, sizeof(value));
          out[x] = static_cast<float>(value) / 257.0f;
        }
        break;
      case ImageEncoding::RGB8:
      case ImageEncoding::BGR8: {
        const bool rgb = image.encoding == ImageEncoding::RGB8;
        for (int x = 0; x < w; ++x) {
          const std::uint8_t* px = row + 3 * x;
          const float r = static_cast<float>(px[rgb ? 0 : 2]);
          const float g = static_cast<float>(px[1]);
          const float b = static_cast<float>(px[rgb ? 2 : 0]);
          out[x] = 0.299f * r + 0.587f * g + 0.114f * b;
        }
        break;
      }
    }
  }
}

std::vector<GrayImage> build_pyramid(const GrayImage& level0, int levels) {
  std::vector<GrayImage> pyramid;
  if (levels < 1 || level0.empty()) return pyramid;
  pyramid.reserve(static_cast<std::size_t>(levels));
  pyramid.push_back(level0);
  build_pyramid(pyramid, levels);
  return pyramid;
}

void build_pyramid(std::vector<GrayImage>& pyramid, int levels) {
  if (levels < 1 || pyramid.empty() || pyramid[0].empty()) {
    pyramid.clear();
    return;
  }
  std::size_t built = 1;
  for (int l = 1; l < levels; ++l, ++built) {
    const int w = pyramid[built - 1].width / 2, h = pyramid[built - 1].height / 2;
    if (w == 0 || h == 0) break;
    if (pyramid.size() <= built) pyramid.emplace_back();
    GrayImage& coarse = pyramid[built];
    const GrayImage& fine = pyramid[built - 1];  // after emplace_back: the vector may have moved
    reshape(coarse, w, h);
    for (int y = 0; y < h; ++y) {
      const float* top = fine.data.data() + static_cast<std::size_t>(2 * y) * static_cast<std::size_t>(fine.width);
      const float* bottom = top + fine.width;
      float* out = coarse.data.data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(w);
      for (int x = 0; x < w; ++x) out[x] = 0.25f * (top[2 * x] + top[2 * x + 1] + bottom[2 * x] + bottom[2 * x + 1]);
    }
  }
  pyramid.resize(built);
}

bool sample(const GrayImage& img, double u, double v, float& value, Eigen::Vector2f* gradient) {
  // The negated form is false for NaN as well.
  if (!(u >= 0.0 && u < img.width - 1 && v >= 0.0 && v < img.height - 1)) return false;
  const int x = static_cast<int>(u);  // floor: u >= 0
  const int y = static_cast<int>(v);
  const float ax = static_cast<float>(u - x);  // weights of the right column and the lower row
  const float ay = static_cast<float>(v - y);
  const float i00 = img.at(x, y), i10 = img.at(x + 1, y);
  const float i01 = img.at(x, y + 1), i11 = img.at(x + 1, y + 1);
  const float top = i00 + ax * (i10 - i00);
  const float bottom = i01 + ax * (i11 - i01);
  value = top + ay * (bottom - top);
  if (gradient != nullptr) {
    const float du = (i10 - i00) + ay * ((i11 - i01) - (i10 - i00));
    const float dv = bottom - top;
    *gradient = Eigen::Vector2f(du, dv);
  }
  return true;
}

}  // namespace asuka::camera
