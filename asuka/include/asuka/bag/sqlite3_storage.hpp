#pragma once
// rosbag2's SQLite3 storage (.db3, the default before Iron): tables `topics` (id, name, type,
// serialization_format, ...) and `messages` (id, topic_id, timestamp [ns], data), plus, since Jazzy,
// `message_definitions`. Read through Debian's libsqlite3, read-only; written for the simulator
// and the tests with the Jazzy schema.

#include <memory>
#include <string>
#include <vector>

#include <asuka/bag/bag_reader.hpp>

struct sqlite3;
struct sqlite3_stmt;

namespace asuka::bag {

class Sqlite3Reader : public BagReader {
public:
  /// Throws BagError when the file is not a rosbag2 SQLite3 file (naming what is missing).
  explicit Sqlite3Reader(const std::string& path);
  ~Sqlite3Reader() override;

  const std::vector<TopicInfo>& topics() const override { return topics_; }
  std::uint64_t start_time() const override { return start_; }
  std::uint64_t end_time() const override { return end_; }
  void select(const std::set<std::string>& topics) override;
  bool next(BagMessage& message) override;
  std::string damage() const override { return damage_; }

private:
  std::string path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* query_ = nullptr;
  std::vector<TopicInfo> topics_;
  std::vector<std::pair<std::int64_t, std::size_t>> topic_ids_;  ///< topic id -> index in topics_
  std::set<std::string> selected_;
  std::uint64_t start_ = 0;
  std::uint64_t end_ = 0;
  std::uint64_t yielded_ = 0;
  std::uint64_t last_time_ = 0;
  std::string damage_;
};

class Sqlite3Writer {
public:
  /// Creates (replaces) `path` with rosbag2's tables. Throws BagError.
  explicit Sqlite3Writer(const std::string& path);
  ~Sqlite3Writer();
  void add_topic(const std::string& topic, const std::string& type, const std::string& definition);
  void write(const std::string& topic, std::uint64_t log_time, const std::vector<std::uint8_t>& cdr);
  void close();
  std::uint64_t messages() const { return messages_; }

private:
  void exec(const std::string& sql);
  std::string path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
  std::vector<std::pair<std::string, std::int64_t>> topic_ids_;
  std::uint64_t messages_ = 0;
};

}  // namespace asuka::bag
