// #13: image decoding throughput (asuka/messages/image_decoder) on 640x512 images of the simulated
// camera's texture: raw mono8 with and without its owner (a view vs a copy), raw rgb8, JPEG mono and
// colour (libjpeg-turbo), PNG mono (libpng). Results: benchmarks/README.md.

#include <cmath>
#include <vector>

#include <benchmark/benchmark.h>
#include <png.h>
#include <turbojpeg.h>

#include <asuka/messages/image_decoder.hpp>

namespace {

constexpr int kWidth = 640;
constexpr int kHeight = 512;

/// A textured 640x512 image (smooth shading plus fine detail, like the simulator's).
std::vector<std::uint8_t> texture(int channels) {
  std::vector<std::uint8_t> p(static_cast<std::size_t>(kWidth * kHeight * channels));
  std::uint32_t h = 12345;
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kWidth; ++x) {
      for (int c = 0; c < channels; ++c) {
        h = h * 1664525u + 1013904223u;
        const double v = 120.0 + 60.0 * std::sin(x * 0.03 + c) * std::cos(y * 0.02) + static_cast<double>(h >> 28);
        p[static_cast<std::size_t>((y * kWidth + x) * channels + c)] = static_cast<std::uint8_t>(std::lround(std::min(255.0, std::max(0.0, v))));
      }
    }
  }
  return p;
}

std::vector<std::uint8_t> jpeg(int channels) {
  const auto pixels = texture(channels);
  tjhandle h = tjInitCompress();
  unsigned char* out = nullptr;
  unsigned long size = 0;
  tjCompress2(h, pixels.data(), kWidth, 0, kHeight, channels == 1 ? TJPF_GRAY : TJPF_RGB, &out, &size, channels == 1 ? TJSAMP_GRAY : TJSAMP_420, 90, 0);
  std::vector<std::uint8_t> bytes(out, out + size);
  tjFree(out);
  tjDestroy(h);
  return bytes;
}

std::vector<std::uint8_t> png_mono() {
  const auto pixels = texture(1);
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = kWidth;
  image.height = kHeight;
  image.format = PNG_FORMAT_GRAY;
  png_alloc_size_t size = 0;
  png_image_write_to_memory(&image, nullptr, &size, 0, pixels.data(), 0, nullptr);
  std::vector<std::uint8_t> out(size);
  png_image_write_to_memory(&image, out.data(), &size, 0, pixels.data(), 0, nullptr);
  out.resize(size);
  return out;
}

void BM_DecodeRaw(benchmark::State& state) {
  const int channels = static_cast<int>(state.range(0));
  const bool owner = state.range(1) != 0;
  const auto pixels = texture(channels);
  asuka::msg::Image m;
  m.width = kWidth;
  m.height = kHeight;
  m.encoding = channels == 1 ? "mono8" : "rgb8";
  m.step = static_cast<std::uint32_t>(kWidth * channels);
  m.data = asuka::msg::Span<std::uint8_t>(pixels);
  const auto keep = std::make_shared<int>(0);
  for (auto _ : state) {
    auto decoded = asuka::msg::decode_image(m, owner ? keep : nullptr);
    benchmark::DoNotOptimize(decoded.image->pixels.get());
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(pixels.size()));
}
BENCHMARK(BM_DecodeRaw)->Args({1, 1})->Args({1, 0})->Args({3, 0})->Unit(benchmark::kMicrosecond);

void BM_DecodeCompressed(benchmark::State& state) {
  const int kind = static_cast<int>(state.range(0));  // 0 JPEG mono, 1 JPEG colour, 2 PNG mono
  const auto bytes = kind == 2 ? png_mono() : jpeg(kind == 0 ? 1 : 3);
  asuka::msg::CompressedImage m;
  m.format = kind == 2 ? "png" : "jpeg";
  m.data = asuka::msg::Span<std::uint8_t>(bytes);
  for (auto _ : state) {
    auto decoded = asuka::msg::decode_compressed_image(m);
    if (!decoded.image) state.SkipWithError("decoding failed");
    benchmark::DoNotOptimize(decoded.image);
  }
  state.counters["compressed_kB"] = static_cast<double>(bytes.size()) / 1000.0;
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DecodeCompressed)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
