#include <asuka/messages/image_decoder.hpp>

#include <cstring>
#include <vector>

#include <fmt/format.h>
#include <png.h>
#include <turbojpeg.h>

namespace asuka::msg {

namespace {

std::string where(const Header& header) { return fmt::format("stamp {:.6f}, frame_id '{}'", header.stamp.seconds(), header.frame_id); }

/// Larger images are refused before anything is allocated (a corrupt header must not allocate GBs).
constexpr std::uint64_t kMaxPixels = 64ull * 1024 * 1024;

DecodedImage fail(const char* what, const Header& header, const std::string& kind, const std::string& text) {
  DecodedImage out;
  out.error = DecodeIssue{kind, fmt::format("{} at {}: {}; skipped", what, where(header), text)};
  return out;
}

/// An Image owning `buffer`.
asuka::Image::Ptr owned_image(const Header& header, int width, int height, asuka::ImageEncoding encoding, std::size_t stride,
                              std::shared_ptr<std::vector<std::uint8_t>> buffer) {
  auto image = std::make_shared<asuka::Image>();
  image->stamp = header.stamp.seconds();
  image->width = width;
  image->height = height;
  image->encoding = encoding;
  image->stride = stride;
  image->pixels = std::shared_ptr<const std::uint8_t>(buffer, buffer->data());  // aliasing: the vector owns
  return image;
}

bool encoding_of(const std::string& name, asuka::ImageEncoding& encoding) {
  if (asuka::image_encoding_from_string(name, encoding)) return true;
  if (name == "8UC1") encoding = asuka::ImageEncoding::MONO8;
  else if (name == "16UC1") encoding = asuka::ImageEncoding::MONO16;
  else if (name == "8UC3") encoding = asuka::ImageEncoding::BGR8;
  else return false;
  return true;
}

DecodedImage decode_jpeg(const CompressedImage& msg) {
  tjhandle handle = tjInitDecompress();
  if (handle == nullptr) return fail("CompressedImage", msg.header, "image_data", "cannot start the JPEG decoder");
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  auto* data = const_cast<unsigned char*>(msg.data.data());  // the TurboJPEG API is not const-correct; it only reads
  const auto size = static_cast<unsigned long>(msg.data.size());
  if (tjDecompressHeader3(handle, data, size, &width, &height, &subsampling, &colorspace) != 0 || width <= 0 || height <= 0 ||
      static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height) > kMaxPixels) {
    const std::string why = tjGetErrorStr2(handle);
    tjDestroy(handle);
    return fail("CompressedImage", msg.header, "image_data", fmt::format("format '{}': not a readable JPEG ({})", msg.format, why));
  }
  const bool gray = colorspace == TJCS_GRAY;
  const auto encoding = gray ? asuka::ImageEncoding::MONO8 : asuka::ImageEncoding::RGB8;
  const std::size_t stride = static_cast<std::size_t>(width) * (gray ? 1 : 3);
  auto buffer = std::make_shared<std::vector<std::uint8_t>>(stride * static_cast<std::size_t>(height));
  // Stop on warnings too: a truncated JPEG decodes "successfully" with grey rows, which must not reach
  // a photometric frontend.
  const int rc = tjDecompress2(handle, data, size, buffer->data(), width, static_cast<int>(stride), height, gray ? TJPF_GRAY : TJPF_RGB,
                               TJFLAG_ACCURATEDCT | TJFLAG_STOPONWARNING);
  const std::string why = rc != 0 ? tjGetErrorStr2(handle) : "";
  tjDestroy(handle);
  if (rc != 0) return fail("CompressedImage", msg.header, "image_data", fmt::format("format '{}': the JPEG data is corrupt ({})", msg.format, why));
  DecodedImage out;
  out.image = owned_image(msg.header, width, height, encoding, stride, std::move(buffer));
  return out;
}

DecodedImage decode_png(const CompressedImage& msg) {
  // libpng's simplified API: no setjmp/longjmp crossing C++ objects.
  png_image png;
  std::memset(&png, 0, sizeof(png));
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&png, msg.data.data(), msg.data.size())) {
    const std::string why = png.message;
    png_image_free(&png);
    return fail("CompressedImage", msg.header, "image_data", fmt::format("format '{}': not a readable PNG ({})", msg.format, why));
  }
  if (png.width == 0 || png.height == 0 || static_cast<std::uint64_t>(png.width) * png.height > kMaxPixels) {
    png_image_free(&png);
    return fail("CompressedImage", msg.header, "image_data", fmt::format("format '{}': a PNG of {}x{} is not an image asuka reads", msg.format, png.width, png.height));
  }
  const bool gray = (png.format & PNG_FORMAT_FLAG_COLOR) == 0;
  const bool mono16 = gray && (png.format & PNG_FORMAT_FLAG_LINEAR) != 0;  // a 16-bit gray file (depth images): kept 16-bit
  png.format = mono16 ? PNG_FORMAT_LINEAR_Y : gray ? PNG_FORMAT_GRAY : PNG_FORMAT_RGB;  // alpha composited away, palette expanded
  const auto encoding = mono16 ? asuka::ImageEncoding::MONO16 : gray ? asuka::ImageEncoding::MONO8 : asuka::ImageEncoding::RGB8;
  const std::size_t stride = static_cast<std::size_t>(png.width) * asuka::bytes_per_pixel(encoding);
  auto buffer = std::make_shared<std::vector<std::uint8_t>>(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, buffer->data(), 0, nullptr)) {
    const std::string why = png.message;
    png_image_free(&png);
    return fail("CompressedImage", msg.header, "image_data", fmt::format("format '{}': the PNG data is corrupt or truncated ({})", msg.format, why));
  }
  DecodedImage out;
  out.image = owned_image(msg.header, static_cast<int>(png.width), static_cast<int>(png.height), encoding, stride, std::move(buffer));
  return out;
}

}  // namespace

DecodedImage decode_image(const Image& msg, std::shared_ptr<const void> owner) {
  asuka::ImageEncoding encoding;
  if (!encoding_of(msg.encoding, encoding)) {
    return fail("Image", msg.header, "image_encoding",
                fmt::format("encoding '{}' is not read (expected mono8, mono16, rgb8 or bgr8; 8UC1, 16UC1, 8UC3)", msg.encoding));
  }
  const std::size_t row = static_cast<std::size_t>(msg.width) * asuka::bytes_per_pixel(encoding);
  if (msg.width == 0 || msg.height == 0) return fail("Image", msg.header, "image_layout", fmt::format("size {}x{} is empty", msg.width, msg.height));
  if (msg.step < row) {
    return fail("Image", msg.header, "image_layout", fmt::format("step {} is smaller than a row of {} {} pixels ({} bytes)", msg.step, msg.width, msg.encoding, row));
  }
  const std::size_t needed = static_cast<std::size_t>(msg.step) * (msg.height - 1) + row;
  if (msg.data.size() < needed) {
    return fail("Image", msg.header, "image_layout",
                fmt::format("data holds {} bytes but {} rows of step {} need {}", msg.data.size(), msg.height, msg.step, needed));
  }
  DecodedImage out;
  const bool swap = msg.is_bigendian && encoding == asuka::ImageEncoding::MONO16;
  if (owner && !swap) {
    auto image = std::make_shared<asuka::Image>();
    image->stamp = msg.header.stamp.seconds();
    image->width = static_cast<int>(msg.width);
    image->height = static_cast<int>(msg.height);
    image->encoding = encoding;
    image->stride = msg.step;
    image->pixels = std::shared_ptr<const std::uint8_t>(owner, msg.data.data());  // aliasing: the message owns
    out.image = std::move(image);
    return out;
  }
  auto buffer = std::make_shared<std::vector<std::uint8_t>>(msg.data.begin(), msg.data.begin() + static_cast<std::ptrdiff_t>(needed));
  if (swap) {
    for (std::uint32_t y = 0; y < msg.height; ++y) {
      std::uint8_t* p = buffer->data() + static_cast<std::size_t>(y) * msg.step;
      for (std::uint32_t x = 0; x < msg.width; ++x) std::swap(p[2 * x], p[2 * x + 1]);
    }
  }
  out.image = owned_image(msg.header, static_cast<int>(msg.width), static_cast<int>(msg.height), encoding, msg.step, std::move(buffer));
  return out;
}

DecodedImage decode_compressed_image(const CompressedImage& msg) {
  const auto& d = msg.data;
  if (d.size() >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) return decode_jpeg(msg);
  if (d.size() >= 8 && d[0] == 0x89 && d[1] == 'P' && d[2] == 'N' && d[3] == 'G') return decode_png(msg);
  return fail("CompressedImage", msg.header, "image_data",
              fmt::format("format '{}', {} bytes: neither JPEG nor PNG by its first bytes (expected FF D8 FF or 89 'PNG')", msg.format, d.size()));
}

}  // namespace asuka::msg
