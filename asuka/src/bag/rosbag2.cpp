#include <asuka/bag/rosbag2.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>
#include <zstd.h>

#include <asuka/bag/mcap.hpp>
#include <asuka/bag/sqlite3_storage.hpp>

namespace asuka::bag {

namespace fs = std::filesystem;

const char* to_string(BagFormat format) {
  switch (format) {
    case BagFormat::ROS1:
      return "ROS 1 bag";
    case BagFormat::MCAP:
      return "MCAP file";
    case BagFormat::SQLITE3:
      return "SQLite3 file";
    case BagFormat::ROSBAG2_FOLDER:
      return "rosbag2 folder";
    case BagFormat::MISSING:
      return "missing";
    case BagFormat::UNKNOWN:
      break;
  }
  return "unknown";
}

BagFormat detect_format(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return BagFormat::ROSBAG2_FOLDER;
  if (!fs::exists(path, ec)) return BagFormat::MISSING;
  std::ifstream in(path, std::ios::binary);
  char head[16] = {};
  in.read(head, sizeof(head));
  const auto n = static_cast<std::size_t>(in.gcount());
  if (n >= kMcapMagicSize && std::memcmp(head, mcap_magic(), kMcapMagicSize) == 0) return BagFormat::MCAP;
  if (n >= 16 && std::memcmp(head, "SQLite format 3\0", 16) == 0) return BagFormat::SQLITE3;
  if (n >= 12 && std::memcmp(head, "#ROSBAG V2.0", 12) == 0) return BagFormat::ROS1;
  return BagFormat::UNKNOWN;
}

namespace {

bool is_zstd_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char head[4] = {};
  in.read(reinterpret_cast<char*>(head), 4);
  return in.gcount() == 4 && head[0] == 0x28 && head[1] == 0xB5 && head[2] == 0x2F && head[3] == 0xFD;
}

std::unique_ptr<BagReader> open_storage_file(const std::string& path) {
  switch (detect_format(path)) {
    case BagFormat::MCAP:
      return std::make_unique<McapReader>(path);
    case BagFormat::SQLITE3:
      return std::make_unique<Sqlite3Reader>(path);
    case BagFormat::ROS1:
      throw BagError(fmt::format("'{}' is a ROS 1 bag, not a rosbag2 file (asuka_rosbag reads it with ROS's bag library)", path));
    case BagFormat::MISSING:
      throw BagError(fmt::format("'{}' does not exist", path));
    default:
      if (is_zstd_file(path)) {
        throw BagError(fmt::format("'{}' is a zstd-compressed file (rosbag2 compression_mode FILE): decompress it first with 'zstd -d {}'", path, path));
      }
      throw BagError(fmt::format("'{}' is neither MCAP nor SQLite3 (by its first bytes) nor a ROS 1 bag", path));
  }
}

/// Several storage files merged in receive-time order; MESSAGE-mode zstd decompressed here.
class MergedReader : public BagReader {
public:
  MergedReader(std::vector<std::unique_ptr<BagReader>> parts, bool zstd_messages, const std::vector<TopicInfo>& metadata_topics)
      : parts_(std::move(parts)), zstd_messages_(zstd_messages), heads_(parts_.size()), has_head_(parts_.size(), false) {
    bool first = true;
    for (const auto& p : parts_) {
      for (const auto& t : p->topics()) {
        auto found = std::find_if(topics_.begin(), topics_.end(), [&](const TopicInfo& x) { return x.name == t.name; });
        if (found == topics_.end()) {
          topics_.push_back(t);
        } else {
          found->messages += t.messages;
          if (found->type.empty()) found->type = t.type;
          if (found->definition.empty()) found->definition = t.definition;
        }
      }
      if (p->start_time() == 0 && p->end_time() == 0) continue;
      start_ = first ? p->start_time() : std::min(start_, p->start_time());
      end_ = first ? p->end_time() : std::max(end_, p->end_time());
      first = false;
    }
    for (const auto& m : metadata_topics) {  // a type only metadata.yaml names (e.g. an empty file)
      auto found = std::find_if(topics_.begin(), topics_.end(), [&](const TopicInfo& x) { return x.name == m.name; });
      if (found == topics_.end()) topics_.push_back(m);
    }
  }

  const std::vector<TopicInfo>& topics() const override { return topics_; }
  std::uint64_t start_time() const override { return start_; }
  std::uint64_t end_time() const override { return end_; }
  void select(const std::set<std::string>& topics) override {
    for (auto& p : parts_) p->select(topics);
    std::fill(has_head_.begin(), has_head_.end(), false);
    primed_ = false;
  }

  bool next(BagMessage& message) override {
    if (!damage_.empty() && !primed_) return false;
    if (!primed_) {
      for (std::size_t i = 0; i < parts_.size(); ++i) advance(i);
      primed_ = true;
    }
    std::size_t best = parts_.size();
    for (std::size_t i = 0; i < parts_.size(); ++i) {
      if (has_head_[i] && (best == parts_.size() || heads_[i].log_time < heads_[best].log_time)) best = i;
    }
    if (best == parts_.size()) return false;
    // The message must outlive advance() of its part: copy it (split bags are the rare case).
    current_.assign(heads_[best].data.begin(), heads_[best].data.end());
    message.log_time = heads_[best].log_time;
    message.owner = nullptr;  // copied into current_, which the next call reuses
    const auto topic = std::find_if(topics_.begin(), topics_.end(), [&](const TopicInfo& t) { return t.name == heads_[best].topic->name; });
    if (topic == topics_.end()) {  // every part lists its topics; a reader that breaks this is damage, not a crash
      damage_ = fmt::format("a message on '{}', a topic no file lists", heads_[best].topic->name);
      std::fill(has_head_.begin(), has_head_.end(), false);
      return false;
    }
    message.topic = &*topic;
    if (zstd_messages_) {
      const auto size = ZSTD_getFrameContentSize(current_.data(), current_.size());
      if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > (1ull << 30)) {
        damage_ = fmt::format("a message on '{}' is not a zstd frame of known size (metadata.yaml says compression_mode MESSAGE)", message.topic->name);
        std::fill(has_head_.begin(), has_head_.end(), false);
        return false;
      }
      decompressed_.resize(static_cast<std::size_t>(size));
      const auto n = ZSTD_decompress(decompressed_.data(), decompressed_.size(), current_.data(), current_.size());
      if (ZSTD_isError(n) || n != size) {
        damage_ = fmt::format("a message on '{}' cannot be decompressed: {}", message.topic->name, ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short");
        std::fill(has_head_.begin(), has_head_.end(), false);
        return false;
      }
      message.data = msg::Span<std::uint8_t>(decompressed_);
    } else {
      message.data = msg::Span<std::uint8_t>(current_);
    }
    advance(best);
    return true;
  }

  std::string damage() const override { return damage_; }

private:
  void advance(std::size_t i) {
    has_head_[i] = parts_[i]->next(heads_[i]);
    // Damage in one file ends the merge: every message before it in time has been yielded (a part
    // is advanced only after its head, the earliest of all, was), nothing after it is.
    if (!has_head_[i] && damage_.empty()) damage_ = parts_[i]->damage();
    if (!damage_.empty()) std::fill(has_head_.begin(), has_head_.end(), false);
  }

  std::vector<std::unique_ptr<BagReader>> parts_;
  bool zstd_messages_ = false;
  std::vector<BagMessage> heads_;
  std::vector<bool> has_head_;
  bool primed_ = false;
  std::vector<TopicInfo> topics_;
  std::uint64_t start_ = 0, end_ = 0;
  std::vector<std::uint8_t> current_, decompressed_;
  std::string damage_;
};

}  // namespace

std::unique_ptr<BagReader> merge_readers(std::vector<std::unique_ptr<BagReader>> readers) {
  if (readers.size() == 1) return std::move(readers.front());
  return std::make_unique<MergedReader>(std::move(readers), false, std::vector<TopicInfo>{});
}

Rosbag2Metadata read_rosbag2_metadata(const std::string& folder) {
  const std::string path = (fs::path(folder) / "metadata.yaml").string();
  Rosbag2Metadata m;
  try {
    const YAML::Node root = YAML::LoadFile(path);
    const YAML::Node info = root["rosbag2_bagfile_information"];
    if (!info) throw BagError(fmt::format("'{}' has no 'rosbag2_bagfile_information' (not a rosbag2 metadata file)", path));
    m.storage_identifier = info["storage_identifier"].as<std::string>("");
    m.compression_format = info["compression_format"].as<std::string>("");
    m.compression_mode = info["compression_mode"].as<std::string>("");
    if (const auto files = info["relative_file_paths"]) {
      for (const auto& f : files) m.files.push_back(f.as<std::string>());
    }
    if (const auto topics = info["topics_with_message_count"]) {
      for (const auto& t : topics) {
        TopicInfo ti;
        ti.name = t["topic_metadata"]["name"].as<std::string>("");
        ti.type = t["topic_metadata"]["type"].as<std::string>("");
        ti.encoding = t["topic_metadata"]["serialization_format"].as<std::string>("");
        ti.messages = t["message_count"].as<std::uint64_t>(0);
        m.topics.push_back(ti);
      }
    }
  } catch (const YAML::Exception& e) {
    throw BagError(fmt::format("'{}' cannot be read as rosbag2 metadata: {}", path, e.what()));
  }
  return m;
}

void write_rosbag2_metadata(const std::string& folder, const std::string& storage, const std::vector<std::string>& files,
                            const std::vector<TopicInfo>& topics, std::uint64_t start_time, std::uint64_t end_time) {
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "rosbag2_bagfile_information" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "version" << YAML::Value << 9;
  out << YAML::Key << "storage_identifier" << YAML::Value << storage;
  out << YAML::Key << "duration" << YAML::Value << YAML::BeginMap << YAML::Key << "nanoseconds" << YAML::Value << (end_time - start_time) << YAML::EndMap;
  out << YAML::Key << "starting_time" << YAML::Value << YAML::BeginMap << YAML::Key << "nanoseconds_since_epoch" << YAML::Value << start_time
      << YAML::EndMap;
  std::uint64_t total = 0;
  for (const auto& t : topics) total += t.messages;
  out << YAML::Key << "message_count" << YAML::Value << total;
  out << YAML::Key << "topics_with_message_count" << YAML::Value << YAML::BeginSeq;
  for (const auto& t : topics) {
    out << YAML::BeginMap << YAML::Key << "topic_metadata" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << t.name << YAML::Key << "type" << YAML::Value << t.type;
    out << YAML::Key << "serialization_format" << YAML::Value << "cdr" << YAML::Key << "offered_qos_profiles" << YAML::Value << YAML::BeginSeq
        << YAML::EndSeq;
    out << YAML::Key << "type_description_hash" << YAML::Value << "" << YAML::EndMap;
    out << YAML::Key << "message_count" << YAML::Value << t.messages << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "compression_format" << YAML::Value << "" << YAML::Key << "compression_mode" << YAML::Value << "";
  out << YAML::Key << "relative_file_paths" << YAML::Value << YAML::BeginSeq;
  for (const auto& f : files) out << f;
  out << YAML::EndSeq;
  out << YAML::Key << "custom_data" << YAML::Value << YAML::Null << YAML::Key << "ros_distro" << YAML::Value << "asuka";
  out << YAML::EndMap << YAML::EndMap;
  std::ofstream file((fs::path(folder) / "metadata.yaml").string());
  file << out.c_str() << "\n";
  if (!file) throw BagError(fmt::format("cannot write metadata.yaml into '{}'", folder));
}

std::unique_ptr<BagReader> open_rosbag2(const std::string& path) {
  const BagFormat format = detect_format(path);
  if (format == BagFormat::MISSING) throw BagError(fmt::format("'{}' does not exist", path));
  if (format != BagFormat::ROSBAG2_FOLDER) return open_storage_file(path);

  std::vector<std::string> files;
  bool zstd_messages = false;
  std::vector<TopicInfo> metadata_topics;
  if (fs::exists(fs::path(path) / "metadata.yaml")) {
    const auto meta = read_rosbag2_metadata(path);
    if (!meta.compression_format.empty()) {
      if (meta.compression_format != "zstd") {
        throw BagError(fmt::format("'{}': compression_format '{}' is not supported (rosbag2 compresses with zstd)", path, meta.compression_format));
      }
      if (meta.compression_mode == "FILE") {
        throw BagError(fmt::format("'{}' is compressed per file (compression_mode FILE): decompress its files with 'zstd -d', or re-record without "
                                   "--compression-mode file",
                                   path));
      }
      zstd_messages = meta.compression_mode == "MESSAGE";
    }
    for (const auto& f : meta.files) files.push_back((fs::path(path) / f).string());
    metadata_topics = meta.topics;
    if (files.empty()) throw BagError(fmt::format("'{}/metadata.yaml' lists no relative_file_paths", path));
  } else {
    for (const auto& entry : fs::directory_iterator(path)) {
      if (!entry.is_regular_file()) continue;
      const auto f = detect_format(entry.path().string());
      if (f == BagFormat::MCAP || f == BagFormat::SQLITE3) files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) throw BagError(fmt::format("'{}' has neither a metadata.yaml nor any MCAP or SQLite3 file: not a rosbag2 folder", path));
  }
  std::vector<std::unique_ptr<BagReader>> parts;
  for (const auto& f : files) parts.push_back(open_storage_file(f));
  if (parts.size() == 1 && !zstd_messages) return std::move(parts.front());
  return std::make_unique<MergedReader>(std::move(parts), zstd_messages, metadata_topics);
}

}  // namespace asuka::bag
