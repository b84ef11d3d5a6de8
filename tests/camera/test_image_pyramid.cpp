// Gray images, pyramids and bilinear sampling (asuka/camera/image_pyramid.hpp): every encoding with a
// padded stride, the 2x2 box pyramid on known patterns, and sampling exact where bilinear
// interpolation is exact.

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <asuka/camera/image_pyramid.hpp>

namespace asuka::camera {
namespace {

/// An image whose rows are `padding` bytes longer than the pixels, the padding filled with 0xAB so
/// that reading it (an ignored stride) shows in the values.
struct TestImage {
  std::shared_ptr<std::vector<std::uint8_t>> buffer;
  Image image;

  TestImage(int width, int height, ImageEncoding encoding, std::size_t padding) {
    image.width = width;
    image.height = height;
    image.encoding = encoding;
    image.stride = static_cast<std::size_t>(width) * bytes_per_pixel(encoding) + padding;
    buffer = std::make_shared<std::vector<std::uint8_t>>(image.stride * static_cast<std::size_t>(height), std::uint8_t{0xAB});
    image.pixels = std::shared_ptr<const std::uint8_t>(buffer, buffer->data());
  }
  std::uint8_t* pixel(int x, int y) {
    return buffer->data() + static_cast<std::size_t>(y) * image.stride + static_cast<std::size_t>(x) * bytes_per_pixel(image.encoding);
  }
};

TEST(ImagePyramidTest, ToGrayMono8HonoursTheStride) {
  TestImage t(5, 3, ImageEncoding::MONO8, 3);
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 5; ++x) *t.pixel(x, y) = static_cast<std::uint8_t>(50 * y + 10 * x + (x == 4 && y == 2 ? 115 : 0));
  }
  const GrayImage gray = to_gray(t.image);
  ASSERT_EQ(gray.width, 5);
  ASSERT_EQ(gray.height, 3);
  ASSERT_EQ(gray.data.size(), 15u);
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 5; ++x) EXPECT_EQ(gray.at(x, y), static_cast<float>(50 * y + 10 * x + (x == 4 && y == 2 ? 115 : 0))) << x << "," << y;
  }
  EXPECT_EQ(gray.at(4, 2), 255.0f);
}

TEST(ImagePyramidTest, ToGrayMono16ScalesToTheMono8RangeOnUnalignedRows) {
  TestImage t(4, 3, ImageEncoding::MONO16, 1);  // stride 9: odd rows start at odd addresses
  const std::uint16_t values[3][4] = {{0, 257, 514, 65535}, {1000, 2570, 25700, 65278}, {128, 1, 60000, 257 * 100}};
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 4; ++x) std::memcpy(t.pixel(x, y), &values[y][x], sizeof(std::uint16_t));  // host byte order
  }
  const GrayImage gray = to_gray(t.image);
  ASSERT_EQ(gray.width, 4);
  ASSERT_EQ(gray.height, 3);
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 4; ++x) EXPECT_FLOAT_EQ(gray.at(x, y), static_cast<float>(values[y][x]) / 257.0f) << x << "," << y;
  }
  EXPECT_EQ(gray.at(3, 0), 255.0f);  // 65535 / 257: full scale maps to mono8's full scale
  EXPECT_EQ(gray.at(1, 0), 1.0f);
  EXPECT_EQ(gray.at(3, 2), 100.0f);
}

TEST(ImagePyramidTest, ToGrayColourIsLuminanceInEitherChannelOrder) {
  // 0.299 R + 0.587 G + 0.114 B for (R, G, B) per pixel; BGR8 stores the same colours reversed.
  const std::uint8_t colours[2][3][3] = {{{255, 0, 0}, {0, 255, 0}, {0, 0, 255}}, {{10, 20, 30}, {255, 255, 255}, {0, 0, 0}}};
  const float expected[2][3] = {{76.245f, 149.685f, 29.07f}, {0.299f * 10 + 0.587f * 20 + 0.114f * 30, 255.0f, 0.0f}};
  for (ImageEncoding encoding : {ImageEncoding::RGB8, ImageEncoding::BGR8}) {
    TestImage t(3, 2, encoding, 5);
    for (int y = 0; y < 2; ++y) {
      for (int x = 0; x < 3; ++x) {
        const auto& c = colours[y][x];
        std::uint8_t* p = t.pixel(x, y);
        const bool rgb = encoding == ImageEncoding::RGB8;
        p[0] = rgb ? c[0] : c[2];
        p[1] = c[1];
        p[2] = rgb ? c[2] : c[0];
      }
    }
    const GrayImage gray = to_gray(t.image);
    ASSERT_EQ(gray.width, 3);
    ASSERT_EQ(gray.height, 2);
    for (int y = 0; y < 2; ++y) {
      for (int x = 0; x < 3; ++x) EXPECT_NEAR(gray.at(x, y), expected[y][x], 1e-4) << to_string(encoding) << " " << x << "," << y;
    }
  }
  // The same bytes read in the other order are another colour: the order matters.
  TestImage t(1, 1, ImageEncoding::RGB8, 0);
  t.pixel(0, 0)[0] = 255, t.pixel(0, 0)[1] = 0, t.pixel(0, 0)[2] = 0;
  EXPECT_NEAR(to_gray(t.image).at(0, 0), 76.245f, 1e-4);
  t.image.encoding = ImageEncoding::BGR8;
  EXPECT_NEAR(to_gray(t.image).at(0, 0), 29.07f, 1e-4);
}

TEST(ImagePyramidTest, ToGrayOfAnInvalidImageIsEmpty) {
  TestImage t(4, 4, ImageEncoding::MONO16, 0);
  t.image.stride = 7;  // < 4 * 2
  EXPECT_TRUE(to_gray(t.image).empty());
  t.image.stride = 8;
  t.image.pixels.reset();
  EXPECT_TRUE(to_gray(t.image).empty());
}

GrayImage ramp(int width, int height, float a, float b, float c) {
  GrayImage image(width, height);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) image.at(x, y) = a * static_cast<float>(x) + b * static_cast<float>(y) + c;
  }
  return image;
}

TEST(ImagePyramidTest, PyramidSizesHalveRoundingDown) {
  const auto pyramid = build_pyramid(GrayImage(640, 480), 5);
  ASSERT_EQ(pyramid.size(), 5u);
  for (int l = 0; l < 5; ++l) {
    EXPECT_EQ(pyramid[static_cast<std::size_t>(l)].width, 640 >> l);
    EXPECT_EQ(pyramid[static_cast<std::size_t>(l)].height, 480 >> l);
    EXPECT_EQ(pyramid[static_cast<std::size_t>(l)].data.size(), static_cast<std::size_t>((640 >> l) * (480 >> l)));
  }
  // 13 x 7 -> 6 x 3 -> 3 x 1, then a zero height: three levels of the ten asked for.
  const auto odd = build_pyramid(GrayImage(13, 7), 10);
  ASSERT_EQ(odd.size(), 3u);
  EXPECT_EQ(odd[1].width, 6);
  EXPECT_EQ(odd[1].height, 3);
  EXPECT_EQ(odd[2].width, 3);
  EXPECT_EQ(odd[2].height, 1);
  EXPECT_TRUE(build_pyramid(GrayImage(8, 8), 0).empty());
  EXPECT_TRUE(build_pyramid(GrayImage(), 3).empty());
  EXPECT_EQ(build_pyramid(GrayImage(8, 8), 1).size(), 1u);
}

TEST(ImagePyramidTest, PyramidIsTheTwoByTwoMean) {
  // Level 1 pixel (x, y) = mean of level-0 pixels (2x, 2y), (2x+1, 2y), (2x, 2y+1), (2x+1, 2y+1);
  // the odd last column and row (1000) are dropped.
  GrayImage image(5, 5, 1000.0f);
  const float block[4][4] = {{1, 2, 10, 20}, {3, 4, 30, 40}, {0, 0, 8, 8}, {0, 4, 8, 0}};
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 4; ++x) image.at(x, y) = block[y][x];
  }
  const auto pyramid = build_pyramid(image, 3);
  ASSERT_EQ(pyramid.size(), 3u);
  EXPECT_EQ(pyramid[0].data, image.data);
  EXPECT_EQ(pyramid[1].at(0, 0), 2.5f);    // (1 + 2 + 3 + 4) / 4
  EXPECT_EQ(pyramid[1].at(1, 0), 25.0f);   // (10 + 20 + 30 + 40) / 4
  EXPECT_EQ(pyramid[1].at(0, 1), 1.0f);    // (0 + 0 + 0 + 4) / 4
  EXPECT_EQ(pyramid[1].at(1, 1), 6.0f);    // (8 + 8 + 8 + 0) / 4
  EXPECT_EQ(pyramid[2].at(0, 0), 8.625f);  // (2.5 + 25 + 1 + 6) / 4

  // A one-pixel checkerboard averages to a flat grey at every coarser level.
  GrayImage checker(16, 16);
  for (int y = 0; y < 16; ++y) {
    for (int x = 0; x < 16; ++x) checker.at(x, y) = (x + y) % 2 == 0 ? 0.0f : 200.0f;
  }
  const auto checker_pyramid = build_pyramid(checker, 4);
  ASSERT_EQ(checker_pyramid.size(), 4u);
  for (std::size_t l = 1; l < checker_pyramid.size(); ++l) {
    for (float value : checker_pyramid[l].data) EXPECT_EQ(value, 100.0f) << "level " << l;
  }
}

TEST(ImagePyramidTest, ARampStaysARampAtThePixelCentres) {
  // I0(u, v) = 2 u + 3 v + 1. The mean of a 2x2 block of a linear function is its value at the block
  // centre, so level l holds I0 at the level-0 position of each of its pixel centres:
  // I_l(x, y) = I0(from_pyramid_level((x, y), l)) = I0(2^l x + (2^l - 1) / 2, 2^l y + (2^l - 1) / 2).
  const GrayImage level0 = ramp(64, 48, 2.0f, 3.0f, 1.0f);
  const auto pyramid = build_pyramid(level0, 4);
  ASSERT_EQ(pyramid.size(), 4u);
  for (int l = 0; l < 4; ++l) {
    const GrayImage& level = pyramid[static_cast<std::size_t>(l)];
    const double s = static_cast<double>(1 << l);
    for (int y = 0; y < level.height; ++y) {
      for (int x = 0; x < level.width; ++x) {
        const Eigen::Vector2d uv0 = from_pyramid_level(Eigen::Vector2d(x, y), l);
        EXPECT_DOUBLE_EQ(uv0.x(), s * x + (s - 1.0) / 2.0);
        EXPECT_EQ(static_cast<double>(level.at(x, y)), 2.0 * uv0.x() + 3.0 * uv0.y() + 1.0) << "level " << l << " at " << x << "," << y;
      }
    }
  }
  // Sampling a coarse level at to_pyramid_level(uv0) gives the ramp at uv0; the gradient scales by 2^l.
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> u(3.5, 56.0), v(3.5, 40.0);  // inside every level's interpolable area
  for (int i = 0; i < 200; ++i) {
    const Eigen::Vector2d uv0(u(rng), v(rng));
    for (int l = 0; l < 4; ++l) {
      const Eigen::Vector2d uvl = to_pyramid_level(uv0, l);
      EXPECT_LT((from_pyramid_level(uvl, l) - uv0).norm(), 1e-12);
      float value = 0.0f;
      Eigen::Vector2f gradient;
      ASSERT_TRUE(sample(pyramid[static_cast<std::size_t>(l)], uvl.x(), uvl.y(), value, &gradient)) << uv0.transpose() << " level " << l;
      EXPECT_NEAR(value, 2.0 * uv0.x() + 3.0 * uv0.y() + 1.0, 1e-4) << uv0.transpose() << " level " << l;
      EXPECT_NEAR(gradient.x(), 2.0 * (1 << l), 1e-4);
      EXPECT_NEAR(gradient.y(), 3.0 * (1 << l), 1e-4);
    }
  }
}

TEST(ImagePyramidTest, BilinearSamplingIsExactOnBilinearFunctions) {
  // Bilinear interpolation reproduces a + b u + c v + d u v exactly, and so does its derivative:
  // d/du = b + d v, d/dv = c + d u.
  const double a = 10.0, b = 1.5, c = -0.75, d = 0.125;
  GrayImage image(20, 15);
  for (int y = 0; y < 15; ++y) {
    for (int x = 0; x < 20; ++x) image.at(x, y) = static_cast<float>(a + b * x + c * y + d * x * y);
  }
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> u(0.0, 19.0), v(0.0, 14.0);
  for (int i = 0; i < 1000; ++i) {
    const double su = u(rng), sv = v(rng);
    float value = 0.0f;
    Eigen::Vector2f gradient;
    ASSERT_TRUE(sample(image, su, sv, value, &gradient)) << su << "," << sv;
    EXPECT_NEAR(value, a + b * su + c * sv + d * su * sv, 1e-4) << su << "," << sv;
    EXPECT_NEAR(gradient.x(), b + d * sv, 1e-5) << su << "," << sv;
    EXPECT_NEAR(gradient.y(), c + d * su, 1e-5) << su << "," << sv;
    float plain = 0.0f;
    ASSERT_TRUE(sample(image, su, sv, plain));
    EXPECT_EQ(plain, value);
  }
  // At pixel centres the sample is the pixel.
  float value = 0.0f;
  ASSERT_TRUE(sample(image, 7.0, 3.0, value));
  EXPECT_EQ(value, image.at(7, 3));
}

TEST(ImagePyramidTest, GradientIsTheDerivativeOfTheInterpolant) {
  // On an arbitrary image the gradient is the derivative of the sampled values inside a cell.
  GrayImage image(12, 9);
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> intensity(0.0f, 255.0f);
  for (float& p : image.data) p = intensity(rng);
  std::uniform_real_distribution<double> cell(0.1, 0.9);
  for (int i = 0; i < 300; ++i) {
    const double su = std::floor(cell(rng) * 10.0) + cell(rng), sv = std::floor(cell(rng) * 7.0) + cell(rng);
    float value = 0.0f, plus = 0.0f, minus = 0.0f;
    Eigen::Vector2f gradient;
    ASSERT_TRUE(sample(image, su, sv, value, &gradient));
    const double h = 0.05;  // stays in the cell: the interpolant is linear along u there
    ASSERT_TRUE(sample(image, su + h, sv, plus) && sample(image, su - h, sv, minus));
    EXPECT_NEAR(gradient.x(), static_cast<double>(plus - minus) / (2.0 * h), 2e-3) << su << "," << sv;
    ASSERT_TRUE(sample(image, su, sv + h, plus) && sample(image, su, sv - h, minus));
    EXPECT_NEAR(gradient.y(), static_cast<double>(plus - minus) / (2.0 * h), 2e-3) << su << "," << sv;
  }
}

TEST(ImagePyramidTest, SamplingOutsideTheInterpolableAreaFails) {
  const GrayImage image = ramp(10, 8, 1.0f, 1.0f, 0.0f);
  float value = -1.0f;
  Eigen::Vector2f gradient(-1.0f, -1.0f);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  const std::vector<std::pair<double, double>> outside = {{-1e-9, 3.0}, {3.0, -1e-9}, {9.0, 3.0}, {3.0, 7.0}, {9.5, 3.0},
                                                          {-0.5, -0.5}, {1e9, 3.0},   {nan, 3.0}, {3.0, nan}, {-inf, 3.0}};
  for (const auto& [u, v] : outside) {
    EXPECT_FALSE(sample(image, u, v, value, &gradient)) << u << "," << v;
  }
  EXPECT_EQ(value, -1.0f);  // untouched
  EXPECT_EQ(gradient, Eigen::Vector2f(-1.0f, -1.0f));
  EXPECT_TRUE(sample(image, 0.0, 0.0, value));
  EXPECT_TRUE(sample(image, 9.0 - 1e-9, 7.0 - 1e-9, value));
  EXPECT_NEAR(value, 16.0, 1e-6);
  EXPECT_FALSE(sample(GrayImage(1, 5, 1.0f), 0.0, 1.0, value));  // one column: nothing to interpolate between
  EXPECT_FALSE(sample(GrayImage(), 0.0, 0.0, value));
}

}  // namespace
}  // namespace asuka::camera
