#pragma once
// MCAP (https://mcap.dev/spec), the default storage of rosbag2 since Iron: reading (chunked or not;
// zstd, lz4 or uncompressed chunks; the summary section when present, a linear scan when not) and
// writing (for the simulator and the tests).
//
// Messages come in log-time order: chunks and top-level messages are read in file order and merged
// through a small heap, so overlapping chunks are ordered too; only the chunks whose time range
// overlaps the current time are held in memory.

#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <asuka/bag/bag_reader.hpp>

namespace asuka::bag {

constexpr std::size_t kMcapMagicSize = 8;
/// "\x89MCAP0\r\n"
const std::uint8_t* mcap_magic();

struct McapReaderOptions {
  bool verify_crc = true;                            ///< chunk CRCs (off only for fuzzing)
  std::uint64_t max_chunk_bytes = 1ull << 30;        ///< a larger (uncompressed) chunk is damage
  /// Decompressed bytes held at once for the time-order merge (chunks whose time ranges overlap are
  /// all held): more is damage, not an allocation the machine cannot serve.
  std::uint64_t max_pending_bytes = 2ull << 30;
};

class McapReader : public BagReader {
public:
  /// Opens and indexes the file (summary, or a linear scan). Throws BagError when it is not MCAP.
  explicit McapReader(const std::string& path, const McapReaderOptions& options = {});
  ~McapReader() override;

  const std::vector<TopicInfo>& topics() const override { return topics_; }
  std::uint64_t start_time() const override { return start_; }
  std::uint64_t end_time() const override { return end_; }
  void select(const std::set<std::string>& topics) override;
  bool next(BagMessage& message) override;
  std::string damage() const override { return damage_; }

  /// Whether the file had a usable summary section (else it was scanned).
  bool indexed() const { return indexed_; }

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<TopicInfo> topics_;
  std::uint64_t start_ = 0;
  std::uint64_t end_ = 0;
  bool indexed_ = false;
  std::string damage_;
};

struct McapWriterOptions {
  std::string compression = "zstd";      ///< "zstd", "lz4" or "" (none)
  bool chunked = true;
  std::size_t chunk_size = 1u << 20;     ///< [bytes] uncompressed, before a chunk is closed
  bool summary = true;                   ///< schemas, channels, chunk indexes and statistics at the end
};

class McapWriter {
public:
  /// Throws BagError when the file cannot be written or the compression is unknown.
  McapWriter(const std::string& path, const McapWriterOptions& options = {});
  ~McapWriter();  ///< closes (writes the summary and footer) if close() was not called

  /// Registers a topic (type as "sensor_msgs/msg/Imu"; the ros2msg definition stored as its schema).
  void add_topic(const std::string& topic, const std::string& type, const std::string& definition);
  /// Appends one CDR message of a registered topic, received at `log_time` [ns].
  void write(const std::string& topic, std::uint64_t log_time, const std::vector<std::uint8_t>& cdr);
  void close();
  std::uint64_t messages() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace asuka::bag
