// Writes small seed inputs for the bag fuzzers (scripts/fuzz_bag):
//   make_seeds CDR_DIR MCAP_DIR [BAG.mcap...]
// CDR_DIR gets one message of each type (the fuzz_cdr selector byte, then the CDR bytes), a
// big-endian variant of the IMU, and each type's definition text (for check_definition); MCAP_DIR
// gets small bags holding every type, in each layout the reader handles (zstd, lz4 and uncompressed
// chunks, unchunked, with and without a summary). Each BAG.mcap given (a simulated or independently
// written bag, possibly megabytes) is shrunk into a small seed: its first messages of each topic,
// their bulk data cut to a few points or bytes, rewritten as a zstd-chunked MCAP; and those messages
// become CDR seeds too.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <asuka/bag/cdr.hpp>
#include <asuka/bag/mcap.hpp>

#include "fuzz_support.hpp"

namespace {

using namespace asuka;
using namespace asuka::bag;

void write_file(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "make_seeds: cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

msg::Header header(int i, const char* frame) {
  msg::Header h;
  h.stamp.sec = 1700000000 + i;
  h.stamp.nanosec = static_cast<std::uint32_t>(i) * 1000u;
  h.frame_id = frame;
  return h;
}

/// One serialized message of each type (index as fuzz::kTypes), `i` varying the contents.
struct Messages {
  std::vector<std::uint8_t> bytes[fuzz::kTypeCount];
};

Messages messages(int i) {
  Messages out;
  msg::Imu imu;
  imu.header = header(i, "imu");
  imu.angular_velocity = {0.1 * i, 0.2, 0.3};
  imu.linear_acceleration = {0.0, 0.0, 9.81};
  out.bytes[0] = write_imu(imu);

  std::vector<std::uint8_t> records(3 * 16, static_cast<std::uint8_t>(i));
  msg::PointCloud2 cloud;
  cloud.header = header(i, "lidar");
  cloud.height = 1;
  cloud.width = 3;
  cloud.fields = {{"x", 0, msg::PointField::FLOAT32, 1}, {"y", 4, msg::PointField::FLOAT32, 1}, {"z", 8, msg::PointField::FLOAT32, 1},
                  {"t", 12, msg::PointField::FLOAT32, 1}};
  cloud.point_step = 16;
  cloud.row_step = 48;
  cloud.data = msg::Span<std::uint8_t>(records);
  cloud.is_dense = true;
  out.bytes[1] = write_point_cloud2(cloud);

  std::vector<msg::LivoxPoint> points = {{0, 1.0f, 2.0f, 3.0f, 10, 0x10, 0}, {1000, 4.0f, 5.0f, 6.0f, 20, 0x10, 1}};
  msg::LivoxCustomMsg livox;
  livox.header = header(i, "livox");
  livox.timebase = 1700000000000000000ull + static_cast<std::uint64_t>(i);
  livox.point_num = 2;
  livox.lidar_id = 1;
  livox.points = msg::Span<msg::LivoxPoint>(points);
  out.bytes[2] = write_livox_custom_msg(livox);

  std::vector<std::uint8_t> pixels(2 * 3, 7);
  msg::Image image;
  image.header = header(i, "camera");
  image.height = 2;
  image.width = 3;
  image.encoding = "mono8";
  image.step = 3;
  image.data = msg::Span<std::uint8_t>(pixels);
  out.bytes[3] = write_image(image);

  std::vector<std::uint8_t> jpeg = {0xff, 0xd8, 0xff, 0xd9};
  msg::CompressedImage compressed;
  compressed.header = header(i, "camera");
  compressed.format = "jpeg";
  compressed.data = msg::Span<std::uint8_t>(jpeg);
  out.bytes[4] = write_compressed_image(compressed);
  return out;
}

/// The IMU of messages(0) re-encoded big endian (encapsulation 00 00, every primitive swapped).
std::vector<std::uint8_t> big_endian_imu() {
  const auto le = messages(0).bytes[0];
  std::vector<std::uint8_t> be = le;
  be[1] = 0x00;
  // sec, nanosec, frame_id length: three u32 at 4, 8, 12; the doubles start 8-aligned after the string.
  auto swap = [&](std::size_t at, std::size_t n) {
    for (std::size_t k = 0; k < n / 2; ++k) std::swap(be[at + k], be[at + n - 1 - k]);
  };
  swap(4, 4);
  swap(8, 4);
  std::uint32_t len;
  std::memcpy(&len, le.data() + 12, 4);
  swap(12, 4);
  std::size_t at = 12 + 4 + len;
  at = 4 + (at - 4 + 7) / 8 * 8;
  for (; at + 8 <= be.size(); at += 8) swap(at, 8);
  return be;
}

void write_bag(const std::string& path, const McapWriterOptions& options, int count) {
  McapWriter w(path, options);
  const char* topics[fuzz::kTypeCount] = {"/imu", "/points", "/livox", "/image", "/image/compressed"};
  for (std::size_t t = 0; t < fuzz::kTypeCount; ++t) w.add_topic(topics[t], fuzz::kTypes[t], definition_of(fuzz::kTypes[t]));
  for (int i = 0; i < count; ++i) {
    const auto m = messages(i);
    for (std::size_t t = 0; t < fuzz::kTypeCount; ++t) {
      // Out of order across topics, so the merge has something to do.
      w.write(topics[t], 1000000000ull + static_cast<std::uint64_t>(i) * 1000 + (fuzz::kTypeCount - t) * 10, m.bytes[t]);
    }
  }
  w.close();
}

int type_index(const std::string& type) {
  for (std::size_t t = 0; t < fuzz::kTypeCount; ++t) {
    if (type == fuzz::kTypes[t]) return static_cast<int>(t);
  }
  return -1;
}

/// `cdr` of type index `t` with its bulk data cut to at most a few points or bytes.
std::vector<std::uint8_t> shrink(int t, msg::Span<std::uint8_t> cdr) {
  constexpr std::size_t kKeep = 4;
  switch (t) {
    case 0: return write_imu(read_imu(cdr));
    case 1: {
      auto m = read_point_cloud2(cdr);
      const std::size_t n = std::min<std::size_t>(kKeep, m.point_step ? m.data.size() / m.point_step : 0);
      m.height = 1;
      m.width = static_cast<std::uint32_t>(n);
      m.row_step = static_cast<std::uint32_t>(n * m.point_step);
      m.data = msg::Span<std::uint8_t>(m.data.data(), std::min<std::size_t>(m.data.size(), n * m.point_step));
      return write_point_cloud2(m);
    }
    case 2: {
      std::vector<msg::LivoxPoint> points;
      auto m = read_livox_custom_msg(cdr, points);
      points.resize(std::min(points.size(), kKeep));
      m.point_num = static_cast<std::uint32_t>(points.size());
      m.points = msg::Span<msg::LivoxPoint>(points);
      return write_livox_custom_msg(m);
    }
    case 3: {
      auto m = read_image(cdr);
      m.data = msg::Span<std::uint8_t>(m.data.data(), std::min<std::size_t>(m.data.size(), 16));
      return write_image(m);
    }
    case 4: {
      auto m = read_compressed_image(cdr);
      m.data = msg::Span<std::uint8_t>(m.data.data(), std::min<std::size_t>(m.data.size(), 16));
      return write_compressed_image(m);
    }
    default: return std::vector<std::uint8_t>(cdr.begin(), cdr.end());
  }
}

/// Rewrites the first `per_topic` messages of each topic of `in` into `out` (small), and writes the
/// first message of each known type as a CDR seed into `cdr_dir`.
void shrink_bag(const std::string& in, const std::string& out, const std::string& cdr_dir, const std::string& tag) {
  constexpr std::uint64_t kPerTopic = 3;
  McapReader reader(in);
  McapWriterOptions o;
  o.chunk_size = 2048;
  McapWriter w(out, o);
  for (const auto& t : reader.topics()) w.add_topic(t.name, t.type, t.definition);
  std::map<std::string, std::uint64_t> written;
  BagMessage m;
  while (reader.next(m)) {
    auto& n = written[m.topic->name];
    if (n >= kPerTopic) continue;
    const int t = type_index(m.topic->type);
    std::vector<std::uint8_t> bytes;
    try {
      bytes = shrink(t, m.data);
    } catch (const CdrError&) {
      bytes.assign(m.data.begin(), m.data.end());
    }
    w.write(m.topic->name, m.log_time, bytes);
    if (n == 0 && t >= 0) {
      std::vector<std::uint8_t> seed{static_cast<std::uint8_t>(t)};
      seed.insert(seed.end(), bytes.begin(), bytes.end());
      write_file(cdr_dir + "/seed_" + tag + "_" + std::to_string(t), seed);
    }
    ++n;
  }
  w.close();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s CDR_DIR MCAP_DIR [BAG.mcap...]\n", argv[0]);
    return 2;
  }
  const std::string cdr_dir = argv[1], mcap_dir = argv[2];
  const auto m = messages(1);
  for (std::size_t t = 0; t < fuzz::kTypeCount; ++t) {
    std::vector<std::uint8_t> seed{static_cast<std::uint8_t>(t)};
    seed.insert(seed.end(), m.bytes[t].begin(), m.bytes[t].end());
    write_file(cdr_dir + "/seed_msg_" + std::to_string(t), seed);
    const std::string& def = definition_of(fuzz::kTypes[t]);
    std::vector<std::uint8_t> text{static_cast<std::uint8_t>(t)};
    text.insert(text.end(), def.begin(), def.end());
    write_file(cdr_dir + "/seed_def_" + std::to_string(t), text);
  }
  auto be = big_endian_imu();
  be.insert(be.begin(), 0);
  write_file(cdr_dir + "/seed_msg_imu_be", be);

  struct Layout {
    const char* name;
    const char* compression;
    bool chunked;
    bool summary;
    std::size_t chunk_size;
  };
  const Layout layouts[] = {
    {"zstd", "zstd", true, true, 1024}, {"lz4", "lz4", true, true, 1024}, {"none", "", true, true, 1024},
    {"unchunked", "", false, true, 0},  {"no_summary", "zstd", true, false, 1024}, {"unchunked_no_summary", "", false, false, 0},
  };
  for (const auto& l : layouts) {
    McapWriterOptions o;
    o.compression = l.compression;
    o.chunked = l.chunked;
    o.summary = l.summary;
    if (l.chunk_size) o.chunk_size = l.chunk_size;
    write_bag(mcap_dir + "/seed_" + l.name + ".mcap", o, 3);
  }
  for (int i = 3; i < argc; ++i) {
    const std::string tag = std::to_string(i - 2) + "_" + std::filesystem::path(argv[i]).stem().string();
    try {
      shrink_bag(argv[i], mcap_dir + "/seed_small_" + tag + ".mcap", cdr_dir, "small_" + tag);
    } catch (const BagError& e) {
      std::fprintf(stderr, "make_seeds: %s: %s (skipped)\n", argv[i], e.what());
    }
  }
  return 0;
}
