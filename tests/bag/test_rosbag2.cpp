// rosbag2 storage without ROS 2 (#15): MCAP (chunked or not, zstd/lz4/none, with or without the
// summary), SQLite3, rosbag2 folders (metadata.yaml, split files), detection by content, damage that
// ends reading with what came before it, and the player into asuka::MessageHost.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <asuka/bag/cdr.hpp>
#include <asuka/bag/mcap.hpp>
#include <asuka/bag/rosbag2.hpp>
#include <asuka/bag/rosbag2_player.hpp>
#include <asuka/bag/sqlite3_storage.hpp>
#include <asuka/config/config.hpp>

#include "bag/bag_test_support.hpp"
#include "core/test_support.hpp"

namespace asuka::bag {
namespace {

namespace fs = std::filesystem;

/// What a test bag holds: (topic, log time, bytes), in the order written.
struct Written {
  std::string topic;
  std::uint64_t time = 0;
  std::vector<std::uint8_t> bytes;
};

constexpr std::uint64_t kT0 = 1700000000ULL * 1000000000ULL;

/// 60 IMU messages (every 5 ms) and 6 clouds (every 50 ms), in time order.
std::vector<Written> sample_messages() {
  std::vector<Written> out;
  for (int i = 0; i < 60; ++i) {
    out.push_back({"/imu", kT0 + static_cast<std::uint64_t>(i) * 5000000ULL, write_imu(test::imu(i))});
    if (i % 10 == 3) {
      const int k = i / 10;
      out.push_back({"/points", kT0 + static_cast<std::uint64_t>(i) * 5000000ULL + 1, write_point_cloud2(test::cloud(k, 40 + 5 * k).msg)});
    }
  }
  return out;
}

template <typename Writer>
void write_all(Writer& w, const std::vector<Written>& messages) {
  w.add_topic("/imu", type_names::kImu, definition_of(type_names::kImu));
  w.add_topic("/points", type_names::kPointCloud2, definition_of(type_names::kPointCloud2));
  for (const auto& m : messages) w.write(m.topic, m.time, m.bytes);
  w.close();
}

std::vector<Written> read_all(BagReader& r) {
  std::vector<Written> out;
  BagMessage m;
  while (r.next(m)) out.push_back({m.topic->name, m.log_time, std::vector<std::uint8_t>(m.data.begin(), m.data.end())});
  return out;
}

void expect_same(const std::vector<Written>& a, const std::vector<Written>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].topic, b[i].topic) << i;
    EXPECT_EQ(a[i].time, b[i].time) << i;
    EXPECT_EQ(a[i].bytes, b[i].bytes) << i;
  }
}

std::uint64_t count_of(const BagReader& r, const std::string& topic) {
  for (const auto& t : r.topics()) {
    if (t.name == topic) return t.messages;
  }
  return 0;
}

class McapVariants : public ::testing::TestWithParam<std::tuple<std::string, bool, bool>> {};

TEST_P(McapVariants, EveryMessageComesBackInTimeOrder) {
  const auto [compression, chunked, summary] = GetParam();
  const auto dir = test::scratch_dir("mcap_variants");
  const auto path = dir + "/x.mcap";
  const auto messages = sample_messages();
  McapWriterOptions options;
  options.compression = compression;
  options.chunked = chunked;
  options.summary = summary;
  options.chunk_size = 4096;  // several chunks
  McapWriter w(path, options);
  write_all(w, messages);

  EXPECT_EQ(detect_format(path), BagFormat::MCAP);
  McapReader r(path);
  EXPECT_EQ(r.indexed(), summary);
  EXPECT_EQ(count_of(r, "/imu"), 60u);
  EXPECT_EQ(count_of(r, "/points"), 6u);
  EXPECT_EQ(r.start_time(), messages.front().time);
  EXPECT_EQ(r.end_time(), messages.back().time);
  for (const auto& t : r.topics()) {
    EXPECT_EQ(t.encoding, "cdr");
    EXPECT_EQ(t.definition, definition_of(t.type));
  }
  expect_same(read_all(r), messages);
  EXPECT_EQ(r.damage(), "");
}

INSTANTIATE_TEST_SUITE_P(AllLayouts, McapVariants,
                         ::testing::Combine(::testing::Values(std::string("zstd"), std::string("lz4"), std::string("")), ::testing::Bool(),
                                            ::testing::Bool()));

TEST(McapTest, SelectedTopicsOnly) {
  const auto dir = test::scratch_dir("mcap_select");
  McapWriter w(dir + "/x.mcap");
  write_all(w, sample_messages());
  McapReader r(dir + "/x.mcap");
  r.select({"/points"});
  const auto got = read_all(r);
  ASSERT_EQ(got.size(), 6u);
  for (const auto& m : got) EXPECT_EQ(m.topic, "/points");
}

TEST(McapTest, MessagesOutOfOrderAcrossChunksAreMerged) {
  // A recorder may write late messages (another callback queue) into a later chunk.
  const auto dir = test::scratch_dir("mcap_order");
  McapWriterOptions options;
  options.chunk_size = 600;  // about one IMU message per chunk
  McapWriter w(dir + "/x.mcap", options);
  w.add_topic("/imu", type_names::kImu, definition_of(type_names::kImu));
  const std::vector<std::uint64_t> times = {10, 30, 20, 40, 35, 50, 45, 60};
  for (std::size_t i = 0; i < times.size(); ++i) w.write("/imu", kT0 + times[i], write_imu(test::imu(static_cast<int>(i))));
  w.close();
  McapReader r(dir + "/x.mcap");
  const auto got = read_all(r);
  ASSERT_EQ(got.size(), times.size());
  EXPECT_TRUE(std::is_sorted(got.begin(), got.end(), [](const Written& a, const Written& b) { return a.time < b.time; }));
}

/// Cuts the file at `fraction` of its size (a recorder killed mid-write): reading yields a prefix of
/// the messages, then stops with damage that says what was read.
TEST(McapTest, TruncatedFileYieldsEverythingBeforeTheCut) {
  const auto dir = test::scratch_dir("mcap_truncated");
  const auto messages = sample_messages();
  for (bool chunked : {true, false}) {
    McapWriterOptions options;
    options.chunked = chunked;
    options.chunk_size = 4096;
    McapWriter w(dir + "/full.mcap", options);
    write_all(w, messages);
    std::ifstream in(dir + "/full.mcap", std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (double fraction : {0.3, 0.6}) {
      const auto path = dir + "/cut.mcap";
      std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() * fraction));
      McapReader r(path);
      EXPECT_FALSE(r.indexed());
      const auto got = read_all(r);
      EXPECT_GT(got.size(), 0u) << fraction;
      EXPECT_LT(got.size(), messages.size()) << fraction;
      expect_same(got, std::vector<Written>(messages.begin(), messages.begin() + static_cast<std::ptrdiff_t>(got.size())));
      EXPECT_NE(r.damage().find("truncated"), std::string::npos) << r.damage();
      EXPECT_NE(r.damage().find(fmt::format("read {} messages", got.size())), std::string::npos) << r.damage();
    }
    // Cut inside the summary, after the data section's end: nothing is lost, nothing to report.
    const auto path = dir + "/no_footer.mcap";
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() - 40));
    McapReader r(path);
    expect_same(read_all(r), messages);
    EXPECT_EQ(r.damage(), "");
  }
}

TEST(McapTest, CorruptChunkFailsItsCrcAndReadingStopsThere) {
  const auto dir = test::scratch_dir("mcap_crc");
  McapWriterOptions options;
  options.compression = "";
  options.chunk_size = 4096;
  const auto messages = sample_messages();
  McapWriter w(dir + "/x.mcap", options);
  write_all(w, messages);
  std::fstream f(dir + "/x.mcap", std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(0, std::ios::end);
  const auto size = static_cast<std::streamoff>(f.tellg());
  f.seekp(size / 2);
  f.put('\x5a');
  f.close();
  McapReader r(dir + "/x.mcap");
  const auto got = read_all(r);
  EXPECT_LT(got.size(), messages.size());
  expect_same(got, std::vector<Written>(messages.begin(), messages.begin() + static_cast<std::ptrdiff_t>(got.size())));
  EXPECT_FALSE(r.damage().empty());
}

TEST(McapTest, NotMcapIsAnErrorNamingTheFile) {
  const auto dir = test::scratch_dir("mcap_not");
  std::ofstream(dir + "/x.mcap") << "hello, not a bag";
  try {
    McapReader r(dir + "/x.mcap");
    FAIL();
  } catch (const BagError& e) {
    EXPECT_NE(std::string(e.what()).find("x.mcap"), std::string::npos);
  }
  EXPECT_EQ(detect_format(dir + "/x.mcap"), BagFormat::UNKNOWN);
}

/// An MCAP file record by record, for layouts McapWriter never produces (found by fuzzing:
/// scripts/fuzz_bag).
class RawMcap {
public:
  RawMcap() { magic(); }
  template <typename T>
  RawMcap& put(T v) {
    const auto at = bytes_.size();
    bytes_.resize(at + sizeof(T));
    std::memcpy(bytes_.data() + at, &v, sizeof(T));
    return *this;
  }
  RawMcap& string(const std::string& s) {
    put(static_cast<std::uint32_t>(s.size()));
    bytes_.insert(bytes_.end(), s.begin(), s.end());
    return *this;
  }
  /// Starts a record: its length is filled in by end().
  RawMcap& begin(std::uint8_t op) {
    bytes_.push_back(op);
    open_ = bytes_.size();
    return put(std::uint64_t{0});
  }
  RawMcap& end() {
    const std::uint64_t length = bytes_.size() - open_ - 8;
    std::memcpy(bytes_.data() + open_, &length, 8);
    return *this;
  }
  RawMcap& channel(std::uint16_t id, const std::string& topic) {
    return begin(0x04).put(id).put(std::uint16_t{0}).string(topic).string("cdr").put(std::uint32_t{0}).end();
  }
  RawMcap& message(std::uint16_t channel, std::uint64_t time, std::uint8_t byte) {
    return begin(0x05).put(channel).put(std::uint32_t{0}).put(time).put(time).put(byte).end();
  }
  RawMcap& magic() {
    bytes_.insert(bytes_.end(), mcap_magic(), mcap_magic() + kMcapMagicSize);
    return *this;
  }
  std::size_t size() const { return bytes_.size(); }
  void save(const std::string& path) const {
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes_.data()), static_cast<std::streamsize>(bytes_.size()));
  }

private:
  std::vector<std::uint8_t> bytes_;
  std::size_t open_ = 0;
};

TEST(McapTest, AMessageOnAChannelTheSummaryDoesNotListIsDamageNotACrash) {
  // Found by fuzz_mcap: the summary (statistics and channels, so it is used) lists channel 1 only,
  // the data section also declares channel 2 and has a message on it. next() used to throw
  // std::out_of_range (map::at) for that message's topic.
  const auto dir = test::scratch_dir("mcap_unlisted_channel");
  RawMcap f;
  f.begin(0x01).string("ros2").string("").end();  // header
  f.channel(1, "/a").message(1, 10, 'A');
  f.channel(2, "/b").message(2, 20, 'B');
  f.begin(0x0F).put(std::uint32_t{0}).end();  // data end
  const std::uint64_t summary_start = f.size();
  f.channel(1, "/a");
  f.begin(0x0B).put(std::uint64_t{2}).put(std::uint16_t{0}).put(std::uint32_t{1}).put(std::uint32_t{0}).put(std::uint32_t{0}).put(std::uint32_t{0});
  f.put(std::uint64_t{10}).put(std::uint64_t{20}).put(std::uint32_t{10}).put(std::uint16_t{1}).put(std::uint64_t{1}).end();  // statistics
  f.begin(0x02).put(summary_start).put(std::uint64_t{0}).put(std::uint32_t{0}).end().magic();  // footer
  f.save(dir + "/x.mcap");

  McapReader r(dir + "/x.mcap");
  EXPECT_TRUE(r.indexed());
  ASSERT_EQ(r.topics().size(), 1u);
  EXPECT_EQ(r.topics()[0].name, "/a");
  BagMessage m;
  ASSERT_TRUE(r.next(m));
  EXPECT_EQ(m.topic->name, "/a");
  EXPECT_EQ(m.log_time, 10u);
  ASSERT_EQ(m.data.size(), 1u);
  EXPECT_EQ(m.data[0], 'A');
  EXPECT_FALSE(r.next(m));  // no exception: damage, after everything before it
  EXPECT_NE(r.damage().find("channel 2 (topic '/b')"), std::string::npos) << r.damage();
  EXPECT_NE(r.damage().find("summary does not list"), std::string::npos) << r.damage();
  EXPECT_NE(r.damage().find("read 1 messages"), std::string::npos) << r.damage();

  // Only the listed topic selected: the other one is skipped, nothing to report.
  McapReader selected(dir + "/x.mcap");
  selected.select({"/a"});
  EXPECT_EQ(read_all(selected).size(), 1u);
  EXPECT_EQ(selected.damage(), "");
}

TEST(McapTest, ADamagedSummaryLeavesNoTimesBehind) {
  // Found reviewing the fuzzed paths: statistics read before the summary turns out damaged kept their
  // start and end times although the file was then scanned, and found no message (expected 0, 0).
  const auto dir = test::scratch_dir("mcap_damaged_summary");
  RawMcap f;
  f.begin(0x01).string("ros2").string("").end();  // header
  f.begin(0x0F).put(std::uint32_t{0}).end();       // data end
  const std::uint64_t summary_start = f.size();
  f.begin(0x0B).put(std::uint64_t{1}).put(std::uint16_t{0}).put(std::uint32_t{1}).put(std::uint32_t{0}).put(std::uint32_t{0}).put(std::uint32_t{0});
  f.put(std::uint64_t{5}).put(std::uint64_t{6}).put(std::uint32_t{0}).end();  // statistics: times 5 to 6
  f.begin(0x04).put(std::uint16_t{1}).end();                                   // a channel cut after its id
  f.begin(0x02).put(summary_start).put(std::uint64_t{0}).put(std::uint32_t{0}).end().magic();  // footer
  f.save(dir + "/x.mcap");

  McapReader r(dir + "/x.mcap");
  EXPECT_FALSE(r.indexed());
  EXPECT_TRUE(r.topics().empty());
  EXPECT_EQ(r.start_time(), 0u);
  EXPECT_EQ(r.end_time(), 0u);
  BagMessage m;
  EXPECT_FALSE(r.next(m));
  EXPECT_EQ(r.damage(), "");
}

TEST(Sqlite3Test, MessagesComeBackInTimeOrderWhateverTheInsertOrder) {
  const auto dir = test::scratch_dir("sqlite");
  auto messages = sample_messages();
  Sqlite3Writer w(dir + "/x.db3");
  w.add_topic("/imu", type_names::kImu, definition_of(type_names::kImu));
  w.add_topic("/points", type_names::kPointCloud2, definition_of(type_names::kPointCloud2));
  // Clouds first, then IMU: the reader must order by timestamp.
  for (const auto& m : messages) {
    if (m.topic == "/points") w.write(m.topic, m.time, m.bytes);
  }
  for (const auto& m : messages) {
    if (m.topic == "/imu") w.write(m.topic, m.time, m.bytes);
  }
  w.close();
  EXPECT_EQ(detect_format(dir + "/x.db3"), BagFormat::SQLITE3);
  Sqlite3Reader r(dir + "/x.db3");
  EXPECT_EQ(count_of(r, "/imu"), 60u);
  EXPECT_EQ(count_of(r, "/points"), 6u);
  for (const auto& t : r.topics()) EXPECT_EQ(t.definition, definition_of(t.type));
  expect_same(read_all(r), messages);
  r.select({"/imu"});
  EXPECT_EQ(read_all(r).size(), 60u);
}

TEST(Sqlite3Test, ADatabaseWithoutRosbag2TablesIsRefused) {
  const auto dir = test::scratch_dir("sqlite_other");
  Sqlite3Writer(dir + "/ok.db3").close();
  EXPECT_NO_THROW(Sqlite3Reader r(dir + "/ok.db3"));
  EXPECT_THROW(Sqlite3Reader r(dir + "/missing.db3"), BagError);
}

TEST(Rosbag2FolderTest, SplitFilesAreMergedInTimeOrder) {
  const auto dir = test::scratch_dir("folder");
  const auto messages = sample_messages();
  std::vector<Written> first, second;
  for (const auto& m : messages) (m.time < kT0 + 150000000ULL ? first : second).push_back(m);
  {
    McapWriter a(dir + "/bag_0.mcap");
    write_all(a, first);
    Sqlite3Writer b(dir + "/bag_1.db3");  // storage may even differ per file
    write_all(b, second);
  }
  std::vector<TopicInfo> topics(2);
  topics[0].name = "/imu";
  topics[0].type = type_names::kImu;
  topics[0].messages = 60;
  topics[1].name = "/points";
  topics[1].type = type_names::kPointCloud2;
  topics[1].messages = 6;
  write_rosbag2_metadata(dir, "mcap", {"bag_0.mcap", "bag_1.db3"}, topics, messages.front().time, messages.back().time);
  const auto meta = read_rosbag2_metadata(dir);
  EXPECT_EQ(meta.files, (std::vector<std::string>{"bag_0.mcap", "bag_1.db3"}));
  EXPECT_EQ(meta.topics.size(), 2u);

  EXPECT_EQ(detect_format(dir), BagFormat::ROSBAG2_FOLDER);
  auto r = open_rosbag2(dir);
  EXPECT_EQ(count_of(*r, "/imu"), 60u);
  EXPECT_EQ(r->start_time(), messages.front().time);
  EXPECT_EQ(r->end_time(), messages.back().time);
  expect_same(read_all(*r), messages);

  // Without metadata.yaml: every storage file in the folder, by content.
  fs::remove(fs::path(dir) / "metadata.yaml");
  auto scanned = open_rosbag2(dir);
  expect_same(read_all(*scanned), messages);
}

TEST(Rosbag2FolderTest, ErrorsNameWhatTheInputIs) {
  const auto dir = test::scratch_dir("errors");
  auto message_of = [](const std::string& path) {
    try {
      open_rosbag2(path);
    } catch (const BagError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message_of(dir + "/nothing").find("does not exist"), std::string::npos);
  EXPECT_NE(message_of(dir).find("neither a metadata.yaml nor any MCAP or SQLite3 file"), std::string::npos);
  std::ofstream(dir + "/old.bag") << "#ROSBAG V2.0\nrest";
  EXPECT_EQ(detect_format(dir + "/old.bag"), BagFormat::ROS1);
  EXPECT_NE(message_of(dir + "/old.bag").find("ROS 1 bag"), std::string::npos);
  std::ofstream(dir + "/f.mcap.zstd", std::ios::binary) << std::string("\x28\xB5\x2F\xFD", 4) << "xxxx";
  EXPECT_NE(message_of(dir + "/f.mcap.zstd").find("zstd -d"), std::string::npos);
}

// ---- the player -----------------------------------------------------------------------------------

class PlayerTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto& global = GlobalConfig::instance();
    global.set_root(Config::parse(R"({"extensions": []})", "config.json"), ".");
    global.set_module("config_odometry", Config::parse(R"({"so_name": ")" + asuka::test::fake_frontend_path() + R"("})", "config_odometry_fake.json"));
    global.set_module("config_ros",
                      Config::parse(R"({"acc_scale": 1.0, "imu_topic": "/imu", "points_topic": "/points", "lidar_type": "velodyne"})", "config_ros.json"));
  }
  void TearDown() override { GlobalConfig::instance().clear(); }
};

TEST_F(PlayerTest, PlaysTheTopicsThroughTheDecodersIntoTheHost) {
  const auto dir = test::scratch_dir("player");
  McapWriter w(dir + "/x.mcap");
  write_all(w, sample_messages());
  const auto params = MessageHostParams::from_config();
  Rosbag2Player player({dir + "/x.mcap"}, params);
  EXPECT_NEAR(player.duration(), 0.295, 1e-9);
  MessageHost host(params);
  player.play(host);
  const auto stats = host.stats();
  EXPECT_EQ(stats.imu_messages, 60u);
  EXPECT_EQ(stats.frame_messages, 6u);
  EXPECT_EQ(stats.points_in, 40u + 45u + 50u + 55u + 60u + 65u);
  ASSERT_TRUE(host.point_time_convention().has_value());
  EXPECT_EQ(host.point_time_convention()->unit, msg::TimeUnit::SECONDS);
  EXPECT_EQ(player.damage(), "");
}

TEST_F(PlayerTest, TopicProblemsAreClearErrors) {
  const auto dir = test::scratch_dir("player_errors");
  McapWriter w(dir + "/x.mcap");
  write_all(w, sample_messages());
  auto params = MessageHostParams::from_config();
  auto error_of = [&](const MessageHostParams& p) {
    try {
      Rosbag2Player player({dir + "/x.mcap"}, p);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto missing = params;
  missing.imu_topic = "/livox/imu";
  const auto m = error_of(missing);
  EXPECT_NE(m.find("'/livox/imu' is not in the input"), std::string::npos) << m;
  EXPECT_NE(m.find("/points (sensor_msgs/msg/PointCloud2, 6 messages)"), std::string::npos) << m;
  auto swapped = params;
  swapped.imu_topic = "/points";
  const auto s = error_of(swapped);
  EXPECT_NE(s.find("carries sensor_msgs/msg/PointCloud2, expected sensor_msgs/msg/Imu"), std::string::npos) << s;

  // A stored definition with another layout.
  McapWriter odd(dir + "/odd.mcap");
  odd.add_topic("/imu", type_names::kImu, "std_msgs/Header header\nfloat64 temperature\n");
  odd.add_topic("/points", type_names::kPointCloud2, definition_of(type_names::kPointCloud2));
  odd.close();
  try {
    Rosbag2Player player({dir + "/odd.mcap"}, params);
    FAIL();
  } catch (const PlayerError& e) {
    EXPECT_NE(std::string(e.what()).find("temperature"), std::string::npos) << e.what();
  }
}

TEST_F(PlayerTest, ACorruptMessageIsSkippedAndCountedNotFatal) {
  const auto dir = test::scratch_dir("player_cdr");
  auto messages = sample_messages();
  messages[5].bytes.resize(10);  // one IMU message cut short
  McapWriter w(dir + "/x.mcap");
  write_all(w, messages);
  const auto params = MessageHostParams::from_config();
  Rosbag2Player player({dir + "/x.mcap"}, params);
  MessageHost host(params);
  player.play(host);
  const auto stats = host.stats();
  EXPECT_EQ(stats.imu_messages, 60u);
  EXPECT_EQ(stats.warnings.at("bad_cdr"), 1u);
}

}  // namespace
}  // namespace asuka::bag

namespace asuka::bag {
namespace {

/// Found by the fuzzer's author on review: chunks whose time ranges overlap are all held for the
/// time-order merge; a small file can claim gigabytes that way. Past max_pending_bytes it is damage.
TEST(McapTest, OverlappingChunksBeyondTheMemoryBoundAreDamageNotAnAllocation) {
  const auto dir = test::scratch_dir("mcap_pending");
  McapWriterOptions options;
  options.chunk_size = 600;  // one IMU message per chunk
  McapWriter w(dir + "/x.mcap", options);
  w.add_topic("/imu", type_names::kImu, definition_of(type_names::kImu));
  for (int i = 0; i < 40; ++i) w.write("/imu", kT0, write_imu(test::imu(i)));  // every chunk at the same time
  w.close();
  McapReaderOptions small;
  small.max_pending_bytes = 5000;
  McapReader bounded(dir + "/x.mcap", small);
  BagMessage m;
  while (bounded.next(m)) {
  }
  EXPECT_NE(bounded.damage().find("held at once"), std::string::npos) << bounded.damage();
  McapReader unbounded(dir + "/x.mcap");  // the default bound is far above this file's needs
  std::size_t n = 0;
  while (unbounded.next(m)) ++n;
  EXPECT_EQ(n, 40u);
  EXPECT_EQ(unbounded.damage(), "");
}

}  // namespace
}  // namespace asuka::bag

#include <zstd.h>

namespace asuka::bag {
namespace {

void write_metadata(const std::string& folder, const std::string& mode) {
  std::ofstream(folder + "/metadata.yaml") << "rosbag2_bagfile_information:\n  version: 9\n  storage_identifier: mcap\n  relative_file_paths:\n"
                                              "    - part_0.mcap\n  compression_format: zstd\n  compression_mode: "
                                           << mode << "\n";
}

/// rosbag2's per-message compression (compression_mode MESSAGE): every payload a zstd frame.
TEST(Rosbag2FolderTest, MessageModeZstdIsDecompressedAndFileModeIsAClearError) {
  const auto dir = test::scratch_dir("message_mode");
  const auto messages = sample_messages();
  {
    McapWriterOptions options;
    options.compression = "";  // the chunks are not compressed again
    McapWriter w(dir + "/part_0.mcap", options);
    w.add_topic("/imu", type_names::kImu, definition_of(type_names::kImu));
    w.add_topic("/points", type_names::kPointCloud2, definition_of(type_names::kPointCloud2));
    for (const auto& m : messages) {
      std::vector<std::uint8_t> z(ZSTD_compressBound(m.bytes.size()));
      z.resize(ZSTD_compress(z.data(), z.size(), m.bytes.data(), m.bytes.size(), 3));
      w.write(m.topic, m.time, z);
    }
  }
  write_metadata(dir, "MESSAGE");
  auto r = open_rosbag2(dir);
  expect_same(read_all(*r), messages);
  EXPECT_EQ(r->damage(), "");

  write_metadata(dir, "FILE");
  try {
    open_rosbag2(dir);
    FAIL();
  } catch (const BagError& e) {
    EXPECT_NE(std::string(e.what()).find("zstd -d"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace asuka::bag

#include <asuka/core/callbacks.hpp>

namespace asuka::bag {
namespace {

/// #13 through a ROS 2 bag: the camera topic is played into the host; raw MCAP images share the
/// chunk's buffer (no copy) and arrive with the pixels they were written with.
TEST_F(PlayerTest, CameraImagesArePlayedFromAnMcap) {
  const auto dir = test::scratch_dir("player_images");
  McapWriter w(dir + "/x.mcap");
  w.add_topic("/imu", type_names::kImu, definition_of(type_names::kImu));
  w.add_topic("/points", type_names::kPointCloud2, definition_of(type_names::kPointCloud2));
  w.add_topic("/camera", type_names::kImage, definition_of(type_names::kImage));
  std::vector<std::uint8_t> pixels(8 * 4);
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<std::uint8_t>(i * 5);
  for (const auto& m : sample_messages()) {
    w.write(m.topic, m.time, m.bytes);
    if (m.topic == "/points") {
      msg::Image image;
      image.header.stamp = {1700000000, static_cast<std::uint32_t>((m.time - kT0) + 1000)};
      image.width = 8;
      image.height = 4;
      image.encoding = "mono8";
      image.step = 8;
      image.data = msg::Span<std::uint8_t>(pixels);
      w.write("/camera", m.time + 1000, write_image(image));
    }
  }
  w.close();
  GlobalConfig::instance().module("config_ros").set("image_topic", "\"/camera\"");
  const auto params = MessageHostParams::from_config();
  EXPECT_EQ(params.image_topic, "/camera");
  Rosbag2Player player({dir + "/x.mcap"}, params);
  std::vector<std::uint8_t> seen;
  auto slot = connect(OdometryCallbacks::on_insert_image, [&](const Image::ConstPtr& image) {
    if (seen.empty()) seen.assign(image->pixels.get(), image->pixels.get() + 32);
  });
  MessageHost host(params);
  player.play(host);
  host.wait(true);
  EXPECT_EQ(host.stats().image_messages, 6u);
  EXPECT_EQ(host.stats().images_inserted, 6u);
  EXPECT_EQ(seen, pixels);

  auto wrong = params;
  wrong.image_topic = "/imu";
  try {
    Rosbag2Player bad({dir + "/x.mcap"}, wrong);
    FAIL();
  } catch (const PlayerError& e) {
    EXPECT_NE(std::string(e.what()).find("camera topic '/imu' carries sensor_msgs/msg/Imu"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace asuka::bag
