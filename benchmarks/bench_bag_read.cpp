// Reading speed of the bag readers on the same recording (#15): ROS 1 (rosbag), MCAP (zstd, lz4,
// uncompressed) and rosbag2 SQLite3. Two levels per format: `read` (every message's bytes, in order)
// and `decode` (read, deserialize (ROS 1 serialization or CDR) and decode into asuka frames through
// the one decoding path). Best of several passes; MB/s counts the serialized message bytes.
//
//   asuka_bench_bag_read ROS1_BAG ROS2_BAG WORK_DIR [PASSES]
//
// ROS2_BAG is the same recording as a rosbag2 folder or file (asuka_sim --format ros2-mcap); the
// other storage variants are written from it into WORK_DIR. benchmarks/bag_read.sh runs it all.

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>

#include <fmt/format.h>
#include <rosbag/bag.h>
#include <rosbag/view.h>

#include <asuka/bag/cdr.hpp>
#include <asuka/bag/mcap.hpp>
#include <asuka/bag/rosbag2.hpp>
#include <asuka/bag/sqlite3_storage.hpp>
#include <asuka/messages/cloud_decoder.hpp>
#include <asuka_ros/message_decoding.hpp>

namespace {

using namespace asuka;

struct Pass {
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
  std::uint64_t points = 0;
  double seconds = 0.0;
};

Pass best_of(int passes, const std::function<Pass()>& run) {
  Pass best;
  for (int i = 0; i < passes; ++i) {
    const auto start = std::chrono::steady_clock::now();
    Pass p = run();
    p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (i == 0 || p.seconds < best.seconds) best = p;
  }
  return best;
}

void print(const std::string& format, const std::string& level, std::uint64_t file_bytes, const Pass& p) {
  std::printf("| %-18s | %-6s | %8.1f | %8llu | %8.1f | %10.0f | %8.3f |\n", format.c_str(), level.c_str(), static_cast<double>(file_bytes) / 1e6,
              static_cast<unsigned long long>(p.messages), static_cast<double>(p.bytes) / 1e6 / p.seconds, static_cast<double>(p.messages) / p.seconds,
              p.seconds);
}

Pass read_ros2(const std::string& path, bool decode) {
  auto reader = bag::open_rosbag2(path);
  msg::CloudDecoder decoder(LidarType::LIVOX, {});
  std::vector<msg::LivoxPoint> points;
  Pass p;
  bag::BagMessage m;
  while (reader->next(m)) {
    ++p.messages;
    p.bytes += m.data.size();
    if (!decode) continue;
    const auto& type = m.topic->type;
    if (type == bag::type_names::kImu) {
      p.points += msg::decode_imu(bag::read_imu(m.data)).imu ? 0 : 1;
    } else if (type == bag::type_names::kPointCloud2) {
      const auto f = decoder.decode(bag::read_point_cloud2(m.data));
      p.points += f.frame ? f.frame->points.size() : 0;
    } else if (type == bag::type_names::kLivoxCustomMsg) {
      const auto f = decoder.decode(bag::read_livox_custom_msg(m.data, points));
      p.points += f.frame ? f.frame->points.size() : 0;
    }
  }
  if (!reader->damage().empty()) std::fprintf(stderr, "damage: %s\n", reader->damage().c_str());
  return p;
}

Pass read_ros1(const std::string& path, bool decode) {
  rosbag::Bag bag(path, rosbag::bagmode::Read);
  rosbag::View view(bag);
  asuka_ros::CloudDecoder decoder(LidarType::LIVOX, {});
  Pass p;
  for (const auto& m : view) {
    ++p.messages;
    p.bytes += m.size();
    if (!decode) {
      // The bytes only: what a raw read costs (the ROS 1 reader decompresses nothing here).
      std::vector<std::uint8_t> buffer(m.size());
      ros::serialization::OStream stream(buffer.data(), static_cast<std::uint32_t>(buffer.size()));
      m.write(stream);
      continue;
    }
    if (auto imu = m.instantiate<sensor_msgs::Imu>()) {
      p.points += asuka_ros::decode_imu(*imu).imu ? 0 : 1;
    } else if (auto cloud = m.instantiate<sensor_msgs::PointCloud2>()) {
      const auto f = decoder.decode(*cloud);
      p.points += f.frame ? f.frame->points.size() : 0;
    } else if (auto livox = m.instantiate<asuka_ros::LivoxCustomMsg>()) {
      const auto f = decoder.decode(*livox);
      p.points += f.frame ? f.frame->points.size() : 0;
    }
  }
  return p;
}

/// Rewrites every message of `source` into `path` with `write`.
template <typename Writer>
void convert(const std::string& source, Writer& w) {
  auto reader = bag::open_rosbag2(source);
  for (const auto& t : reader->topics()) w.add_topic(t.name, t.type, t.definition);
  bag::BagMessage m;
  while (reader->next(m)) w.write(m.topic->name, m.log_time, std::vector<std::uint8_t>(m.data.begin(), m.data.end()));
  w.close();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s ROS1_BAG ROS2_BAG WORK_DIR [PASSES]\n", argv[0]);
    return 2;
  }
  const std::string ros1 = argv[1], ros2 = argv[2], work = argv[3];
  const int passes = argc > 4 ? std::atoi(argv[4]) : 3;
  namespace fs = std::filesystem;
  fs::create_directories(work);

  std::vector<std::pair<std::string, std::string>> variants;
  for (const std::string compression : {"zstd", "lz4", ""}) {
    bag::McapWriterOptions options;
    options.compression = compression;
    const auto path = (fs::path(work) / ("bench_" + (compression.empty() ? std::string("none") : compression) + ".mcap")).string();
    bag::McapWriter w(path, options);
    convert(ros2, w);
    variants.emplace_back("MCAP " + (compression.empty() ? std::string("uncompressed") : compression), path);
  }
  const auto db3 = (fs::path(work) / "bench.db3").string();
  {
    bag::Sqlite3Writer w(db3);
    convert(ros2, w);
  }
  variants.emplace_back("SQLite3", db3);

  std::printf("| format             | level  | file MB  | messages | MB/s     | messages/s | seconds  |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|\n");
  for (const bool decode : {false, true}) {
    const std::string level = decode ? "decode" : "read";
    print("ROS 1 (rosbag)", level, fs::file_size(ros1), best_of(passes, [&] { return read_ros1(ros1, decode); }));
    for (const auto& [name, path] : variants) print(name, level, fs::file_size(path), best_of(passes, [&] { return read_ros2(path, decode); }));
  }
  return 0;
}
