// #13: camera messages -> asuka::Image. Raw encodings (stride, big-endian mono16, aliases), no copy
// when the owner is given, JPEG and PNG (written here with libjpeg-turbo and libpng), and clear
// errors for everything else.

#include <cstring>
#include <vector>

#include <gtest/gtest.h>
#include <png.h>
#include <turbojpeg.h>

#include <asuka/messages/image_decoder.hpp>

namespace asuka::msg {
namespace {

struct OwnedImage {
  Image msg;
  std::vector<std::uint8_t> data;
};

/// A `width` x `height` image of `encoding` with rows padded to `step`; pixel (x, y), channel c =
/// (x * 7 + y * 13 + c * 31) % 256.
OwnedImage raw(std::uint32_t width, std::uint32_t height, const std::string& encoding, std::size_t bytes_per_pixel, std::uint32_t step) {
  OwnedImage o;
  o.msg.header.stamp = {1700000000, 500000000};
  o.msg.header.frame_id = "cam";
  o.msg.width = width;
  o.msg.height = height;
  o.msg.encoding = encoding;
  o.msg.step = step;
  o.data.assign(static_cast<std::size_t>(step) * height, 0xEE);
  for (std::uint32_t y = 0; y < height; ++y) {
    for (std::uint32_t x = 0; x < width; ++x) {
      for (std::size_t c = 0; c < bytes_per_pixel; ++c) o.data[y * step + x * bytes_per_pixel + c] = static_cast<std::uint8_t>((x * 7 + y * 13 + c * 31) % 256);
    }
  }
  o.msg.data = Span<std::uint8_t>(o.data);
  return o;
}

TEST(ImageDecoderTest, RawMono8KeepsStrideAndSharesThePixelsWithTheOwner) {
  auto o = raw(5, 3, "mono8", 1, 8);
  auto owner = std::make_shared<int>(0);
  const auto decoded = decode_image(o.msg, owner);
  ASSERT_TRUE(decoded.image) << decoded.error->message;
  const auto& image = *decoded.image;
  EXPECT_DOUBLE_EQ(image.stamp, 1700000000.5);
  EXPECT_EQ(image.width, 5);
  EXPECT_EQ(image.height, 3);
  EXPECT_EQ(image.encoding, asuka::ImageEncoding::MONO8);
  EXPECT_EQ(image.stride, 8u);
  EXPECT_TRUE(image.valid());
  EXPECT_EQ(image.pixels.get(), o.data.data());  // no copy
  EXPECT_EQ(owner.use_count(), 2);               // the image holds the owner
  EXPECT_EQ(image.row(2)[4], (4 * 7 + 2 * 13) % 256);
}

TEST(ImageDecoderTest, WithoutAnOwnerThePixelsAreCopied) {
  auto o = raw(4, 2, "rgb8", 3, 12);
  const auto decoded = decode_image(o.msg);
  ASSERT_TRUE(decoded.image);
  EXPECT_NE(decoded.image->pixels.get(), o.data.data());
  EXPECT_EQ(std::memcmp(decoded.image->pixels.get(), o.data.data(), o.data.size()), 0);
  o.data.assign(o.data.size(), 0);  // the message goes away: the image keeps its own
  EXPECT_EQ(decoded.image->row(1)[3 * 2 + 1], (2 * 7 + 13 + 31) % 256);
}

TEST(ImageDecoderTest, EncodingsAndTheirAliases) {
  const std::vector<std::tuple<std::string, std::size_t, asuka::ImageEncoding>> cases = {
    {"mono8", 1, asuka::ImageEncoding::MONO8}, {"mono16", 2, asuka::ImageEncoding::MONO16}, {"rgb8", 3, asuka::ImageEncoding::RGB8},
    {"bgr8", 3, asuka::ImageEncoding::BGR8},   {"8UC1", 1, asuka::ImageEncoding::MONO8},    {"16UC1", 2, asuka::ImageEncoding::MONO16},
    {"8UC3", 3, asuka::ImageEncoding::BGR8}};
  for (const auto& [name, bytes, encoding] : cases) {
    auto o = raw(6, 2, name, bytes, static_cast<std::uint32_t>(6 * bytes));
    const auto decoded = decode_image(o.msg);
    ASSERT_TRUE(decoded.image) << name;
    EXPECT_EQ(decoded.image->encoding, encoding) << name;
  }
}

TEST(ImageDecoderTest, BigEndianMono16IsSwappedToHostOrder) {
  auto o = raw(3, 2, "mono16", 2, 6);
  o.msg.is_bigendian = true;
  const std::uint16_t value = 0x1234;
  o.data[0] = 0x12;  // big endian
  o.data[1] = 0x34;
  const auto decoded = decode_image(o.msg, std::make_shared<int>(0));
  ASSERT_TRUE(decoded.image);
  std::uint16_t first;
  std::memcpy(&first, decoded.image->pixels.get(), 2);
  EXPECT_EQ(first, value);
  EXPECT_NE(decoded.image->pixels.get(), o.data.data());  // swapped into a copy
}

TEST(ImageDecoderTest, BadRawImagesAreErrorsThatSayWhy) {
  auto yuv = raw(4, 2, "yuv422", 2, 8);
  auto e = decode_image(yuv.msg);
  ASSERT_FALSE(e.image);
  EXPECT_EQ(e.error->kind, "image_encoding");
  EXPECT_NE(e.error->message.find("'yuv422'"), std::string::npos) << e.error->message;

  auto narrow = raw(4, 2, "rgb8", 3, 12);
  narrow.msg.step = 10;
  e = decode_image(narrow.msg);
  ASSERT_FALSE(e.image);
  EXPECT_EQ(e.error->kind, "image_layout");
  EXPECT_NE(e.error->message.find("step 10"), std::string::npos) << e.error->message;

  auto short_data = raw(4, 2, "mono8", 1, 4);
  short_data.msg.data = Span<std::uint8_t>(short_data.data.data(), 5);
  e = decode_image(short_data.msg);
  ASSERT_FALSE(e.image);
  EXPECT_NE(e.error->message.find("data holds 5 bytes"), std::string::npos) << e.error->message;
}

/// Encodes `pixels` (width x height, gray or rgb) as JPEG with libjpeg-turbo.
std::vector<std::uint8_t> jpeg(const std::vector<std::uint8_t>& pixels, int width, int height, bool gray) {
  tjhandle h = tjInitCompress();
  unsigned char* out = nullptr;
  unsigned long size = 0;
  const int rc = tjCompress2(h, pixels.data(), width, 0, height, gray ? TJPF_GRAY : TJPF_RGB, &out, &size, gray ? TJSAMP_GRAY : TJSAMP_444, 95, 0);
  EXPECT_EQ(rc, 0);
  std::vector<std::uint8_t> bytes(out, out + size);
  tjFree(out);
  tjDestroy(h);
  return bytes;
}

std::vector<std::uint8_t> smooth(int width, int height, int channels) {
  std::vector<std::uint8_t> p(static_cast<std::size_t>(width * height * channels));
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < channels; ++c) p[static_cast<std::size_t>((y * width + x) * channels + c)] = static_cast<std::uint8_t>(40 + x * 2 + y + c * 30);
    }
  }
  return p;
}

CompressedImage compressed(const std::vector<std::uint8_t>& bytes, const std::string& format) {
  CompressedImage m;
  m.header.stamp = {1700000001, 0};
  m.format = format;
  m.data = Span<std::uint8_t>(bytes);
  return m;
}

TEST(ImageDecoderTest, JpegGrayAndColour) {
  for (const bool gray : {true, false}) {
    const int channels = gray ? 1 : 3;
    const auto pixels = smooth(32, 24, channels);
    const auto bytes = jpeg(pixels, 32, 24, gray);
    const auto decoded = decode_compressed_image(compressed(bytes, "jpeg"));
    ASSERT_TRUE(decoded.image) << decoded.error->message;
    const auto& image = *decoded.image;
    EXPECT_EQ(image.encoding, gray ? asuka::ImageEncoding::MONO8 : asuka::ImageEncoding::RGB8);
    EXPECT_EQ(image.width, 32);
    EXPECT_EQ(image.height, 24);
    EXPECT_DOUBLE_EQ(image.stamp, 1700000001.0);
    int worst = 0;
    for (int y = 0; y < 24; ++y) {
      for (int i = 0; i < 32 * channels; ++i) worst = std::max(worst, std::abs(int{image.row(y)[i]} - int{pixels[static_cast<std::size_t>(y * 32 * channels + i)]}));
    }
    EXPECT_LE(worst, 4);  // quality 95 on a smooth ramp
  }
}

TEST(ImageDecoderTest, CorruptOrTruncatedJpegIsAnErrorNotAGreyImage) {
  auto bytes = jpeg(smooth(64, 48, 3), 64, 48, false);
  bytes.resize(bytes.size() / 2);
  const auto decoded = decode_compressed_image(compressed(bytes, "jpeg"));
  ASSERT_FALSE(decoded.image);
  EXPECT_EQ(decoded.error->kind, "image_data");
  EXPECT_NE(decoded.error->message.find("corrupt"), std::string::npos) << decoded.error->message;
}

std::vector<std::uint8_t> png(const std::vector<std::uint8_t>& pixels, int width, int height, png_uint_32 format) {
  png_image image;
  std::memset(&image, 0, sizeof(image));
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = format;
  png_alloc_size_t size = 0;
  EXPECT_TRUE(png_image_write_to_memory(&image, nullptr, &size, 0, pixels.data(), 0, nullptr));
  std::vector<std::uint8_t> out(size);
  EXPECT_TRUE(png_image_write_to_memory(&image, out.data(), &size, 0, pixels.data(), 0, nullptr));
  out.resize(size);
  return out;
}

TEST(ImageDecoderTest, PngGray8Gray16RgbAndRgba) {
  const auto gray = smooth(10, 7, 1);
  auto decoded = decode_compressed_image(compressed(png(gray, 10, 7, PNG_FORMAT_GRAY), "png"));
  ASSERT_TRUE(decoded.image) << decoded.error->message;
  EXPECT_EQ(decoded.image->encoding, asuka::ImageEncoding::MONO8);
  EXPECT_EQ(std::memcmp(decoded.image->pixels.get(), gray.data(), gray.size()), 0);  // lossless

  std::vector<std::uint16_t> depth(10 * 7);
  for (std::size_t i = 0; i < depth.size(); ++i) depth[i] = static_cast<std::uint16_t>(1000 + 97 * i);
  std::vector<std::uint8_t> depth_bytes(depth.size() * 2);
  std::memcpy(depth_bytes.data(), depth.data(), depth_bytes.size());
  decoded = decode_compressed_image(compressed(png(depth_bytes, 10, 7, PNG_FORMAT_LINEAR_Y), "png"));
  ASSERT_TRUE(decoded.image) << decoded.error->message;
  EXPECT_EQ(decoded.image->encoding, asuka::ImageEncoding::MONO16);
  std::vector<std::uint16_t> back(depth.size());
  std::memcpy(back.data(), decoded.image->pixels.get(), back.size() * 2);
  EXPECT_EQ(back, depth);

  const auto rgb = smooth(10, 7, 3);
  decoded = decode_compressed_image(compressed(png(rgb, 10, 7, PNG_FORMAT_RGB), "png"));
  ASSERT_TRUE(decoded.image);
  EXPECT_EQ(decoded.image->encoding, asuka::ImageEncoding::RGB8);
  EXPECT_EQ(std::memcmp(decoded.image->pixels.get(), rgb.data(), rgb.size()), 0);

  auto rgba = smooth(10, 7, 4);
  for (std::size_t i = 3; i < rgba.size(); i += 4) rgba[i] = 255;  // opaque: compositing changes nothing
  decoded = decode_compressed_image(compressed(png(rgba, 10, 7, PNG_FORMAT_RGBA), "png"));
  ASSERT_TRUE(decoded.image);
  EXPECT_EQ(decoded.image->encoding, asuka::ImageEncoding::RGB8);
  EXPECT_EQ(decoded.image->row(0)[3], rgba[4]);  // second pixel's red
}

TEST(ImageDecoderTest, TruncatedPngAndUnknownBytesAreErrors) {
  auto bytes = png(smooth(40, 30, 3), 40, 30, PNG_FORMAT_RGB);
  bytes.resize(bytes.size() - 20);
  auto decoded = decode_compressed_image(compressed(bytes, "png"));
  ASSERT_FALSE(decoded.image);
  EXPECT_EQ(decoded.error->kind, "image_data");

  const std::vector<std::uint8_t> junk = {'B', 'M', 1, 2, 3, 4, 5, 6, 7, 8};
  decoded = decode_compressed_image(compressed(junk, "bmp"));
  ASSERT_FALSE(decoded.image);
  EXPECT_NE(decoded.error->message.find("format 'bmp'"), std::string::npos) << decoded.error->message;
  EXPECT_NE(decoded.error->message.find("neither JPEG nor PNG"), std::string::npos);
}

}  // namespace
}  // namespace asuka::msg
