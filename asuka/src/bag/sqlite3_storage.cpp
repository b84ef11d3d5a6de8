#include <asuka/bag/sqlite3_storage.hpp>

#include <cstdio>

#include <fmt/format.h>
#include <sqlite3.h>

namespace asuka::bag {

namespace {

bool has_table(sqlite3* db, const char* name) {
  sqlite3_stmt* s = nullptr;
  bool found = false;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", -1, &s, nullptr) == SQLITE_OK) {
    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    found = sqlite3_step(s) == SQLITE_ROW;
  }
  sqlite3_finalize(s);
  return found;
}

std::string text(sqlite3_stmt* s, int column) {
  const auto* p = sqlite3_column_text(s, column);
  return p ? std::string(reinterpret_cast<const char*>(p)) : std::string();
}

}  // namespace

Sqlite3Reader::Sqlite3Reader(const std::string& path) : path_(path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw BagError(fmt::format("cannot open '{}' as SQLite3: {}", path, why));
  }
  auto fail = [&](const std::string& what) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw BagError(fmt::format("'{}' is not a rosbag2 SQLite3 file: {}", path, what));
  };
  if (!has_table(db_, "topics") || !has_table(db_, "messages")) {
    fail(fmt::format("it has no 'topics' and 'messages' tables ({})", sqlite3_errmsg(db_)));
  }

  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT id, name, type, serialization_format FROM topics ORDER BY id", -1, &s, nullptr) != SQLITE_OK) {
    fail(fmt::format("reading its topics failed: {}", sqlite3_errmsg(db_)));
  }
  while (sqlite3_step(s) == SQLITE_ROW) {
    TopicInfo info;
    info.name = text(s, 1);
    info.type = text(s, 2);
    info.encoding = text(s, 3);
    topic_ids_.emplace_back(sqlite3_column_int64(s, 0), topics_.size());
    topics_.push_back(info);
  }
  sqlite3_finalize(s);

  if (has_table(db_, "message_definitions")) {
    if (sqlite3_prepare_v2(db_, "SELECT topic_type, encoding, encoded_message_definition FROM message_definitions", -1, &s, nullptr) == SQLITE_OK) {
      while (sqlite3_step(s) == SQLITE_ROW) {
        if (text(s, 1) != "ros2msg") continue;
        for (auto& t : topics_) {
          if (t.type == text(s, 0)) t.definition = text(s, 2);
        }
      }
    }
    sqlite3_finalize(s);
  }

  if (sqlite3_prepare_v2(db_, "SELECT topic_id, COUNT(*), MIN(timestamp), MAX(timestamp) FROM messages GROUP BY topic_id", -1, &s, nullptr) != SQLITE_OK) {
    fail(fmt::format("counting its messages failed: {}", sqlite3_errmsg(db_)));
  }
  bool first = true;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const auto id = sqlite3_column_int64(s, 0);
    for (const auto& [tid, index] : topic_ids_) {
      if (tid == id) topics_[index].messages = static_cast<std::uint64_t>(sqlite3_column_int64(s, 1));
    }
    const auto lo = static_cast<std::uint64_t>(sqlite3_column_int64(s, 2));
    const auto hi = static_cast<std::uint64_t>(sqlite3_column_int64(s, 3));
    start_ = first ? lo : std::min(start_, lo);
    end_ = first ? hi : std::max(end_, hi);
    first = false;
  }
  sqlite3_finalize(s);
  (void)rc;  // a corrupt database may fail the count; playing reads up to the damage and reports it
  select({});
}

Sqlite3Reader::~Sqlite3Reader() {
  sqlite3_finalize(query_);
  sqlite3_close(db_);
}

void Sqlite3Reader::select(const std::set<std::string>& topics) {
  selected_ = topics;
  std::string ids;
  for (const auto& [id, index] : topic_ids_) {
    if (topics.empty() || topics.count(topics_[index].name)) ids += (ids.empty() ? "" : ",") + std::to_string(id);
  }
  sqlite3_finalize(query_);
  query_ = nullptr;
  const std::string sql = fmt::format("SELECT topic_id, timestamp, data FROM messages WHERE topic_id IN ({}) ORDER BY timestamp, id", ids);
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &query_, nullptr) != SQLITE_OK) {
    damage_ = fmt::format("'{}': cannot query its messages: {}", path_, sqlite3_errmsg(db_));
  }
}

bool Sqlite3Reader::next(BagMessage& message) {
  if (!damage_.empty() || query_ == nullptr) return false;
  for (;;) {  // a row of a topic the topics table lacks (impossible with the IN list, but cheap to survive) is skipped
    const int rc = sqlite3_step(query_);
    if (rc == SQLITE_DONE) return false;
    if (rc != SQLITE_ROW) {
      damage_ = fmt::format("'{}': {} (SQLite error {}); read {} messages before it (up to receive time {:.3f} s), everything before the damage was used",
                            path_, sqlite3_errmsg(db_), rc, yielded_, static_cast<double>(last_time_) * 1e-9);
      return false;
    }
    const auto id = sqlite3_column_int64(query_, 0);
    message.topic = nullptr;
    for (const auto& [tid, index] : topic_ids_) {
      if (tid == id) message.topic = &topics_[index];
    }
    message.log_time = static_cast<std::uint64_t>(sqlite3_column_int64(query_, 1));
  message.owner = nullptr;  // SQLite owns the blob only until the next step
    const auto* blob = static_cast<const std::uint8_t*>(sqlite3_column_blob(query_, 2));
    message.data = msg::Span<std::uint8_t>(blob, static_cast<std::size_t>(sqlite3_column_bytes(query_, 2)));
    if (message.topic == nullptr) continue;
    ++yielded_;
    last_time_ = message.log_time;
    return true;
  }
}

// ---- writer ---------------------------------------------------------------------------------------

Sqlite3Writer::Sqlite3Writer(const std::string& path) : path_(path) {
  std::remove(path.c_str());
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw BagError(fmt::format("cannot create '{}': {}", path, why));
  }
  exec("PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF;");
  exec("CREATE TABLE schema(schema_version INTEGER PRIMARY KEY, ros_distro TEXT NOT NULL);");
  exec("INSERT INTO schema VALUES (4, 'jazzy');");
  exec("CREATE TABLE metadata(id INTEGER PRIMARY KEY, metadata_version INTEGER NOT NULL, metadata TEXT NOT NULL);");
  exec(
      "CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, serialization_format TEXT NOT NULL, "
      "offered_qos_profiles TEXT NOT NULL, type_description_hash TEXT NOT NULL);");
  exec(
      "CREATE TABLE message_definitions(id INTEGER PRIMARY KEY, topic_type TEXT NOT NULL, encoding TEXT NOT NULL, "
      "encoded_message_definition TEXT NOT NULL, type_description_hash TEXT NOT NULL);");
  exec("CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL, timestamp INTEGER NOT NULL, data BLOB NOT NULL);");
  exec("CREATE INDEX timestamp_idx ON messages (timestamp ASC);");
  exec("BEGIN;");
  if (sqlite3_prepare_v2(db_, "INSERT INTO messages (topic_id, timestamp, data) VALUES (?, ?, ?)", -1, &insert_, nullptr) != SQLITE_OK) {
    throw BagError(fmt::format("'{}': {}", path_, sqlite3_errmsg(db_)));
  }
}

Sqlite3Writer::~Sqlite3Writer() {
  try {
    close();
  } catch (...) {  // reported by an explicit close()
  }
}

void Sqlite3Writer::exec(const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string why = error ? error : "unknown error";
    sqlite3_free(error);
    throw BagError(fmt::format("writing '{}' failed: {}", path_, why));
  }
}

void Sqlite3Writer::add_topic(const std::string& topic, const std::string& type, const std::string& definition) {
  for (const auto& t : topic_ids_) {
    if (t.first == topic) return;
  }
  const auto id = static_cast<std::int64_t>(topic_ids_.size() + 1);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db_, "INSERT INTO topics VALUES (?, ?, ?, 'cdr', '', '')", -1, &s, nullptr);
  sqlite3_bind_int64(s, 1, id);
  sqlite3_bind_text(s, 2, topic.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 3, type.c_str(), -1, SQLITE_TRANSIENT);
  const int rc = sqlite3_step(s);
  sqlite3_finalize(s);
  sqlite3_prepare_v2(db_,
                     "INSERT INTO message_definitions (topic_type, encoding, encoded_message_definition, type_description_hash) VALUES (?, 'ros2msg', ?, '')",
                     -1, &s, nullptr);
  sqlite3_bind_text(s, 1, type.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 2, definition.c_str(), -1, SQLITE_TRANSIENT);
  const int rc2 = sqlite3_step(s);
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE || rc2 != SQLITE_DONE) throw BagError(fmt::format("writing '{}' failed: {}", path_, sqlite3_errmsg(db_)));
  topic_ids_.emplace_back(topic, id);
}

void Sqlite3Writer::write(const std::string& topic, std::uint64_t log_time, const std::vector<std::uint8_t>& cdr) {
  std::int64_t id = -1;
  for (const auto& t : topic_ids_) {
    if (t.first == topic) id = t.second;
  }
  if (id < 0) throw BagError(fmt::format("SQLite3 writer: topic '{}' was not added", topic));
  sqlite3_reset(insert_);
  sqlite3_bind_int64(insert_, 1, id);
  sqlite3_bind_int64(insert_, 2, static_cast<sqlite3_int64>(log_time));
  sqlite3_bind_blob(insert_, 3, cdr.data(), static_cast<int>(cdr.size()), SQLITE_STATIC);
  if (sqlite3_step(insert_) != SQLITE_DONE) throw BagError(fmt::format("writing '{}' failed: {}", path_, sqlite3_errmsg(db_)));
  ++messages_;
}

void Sqlite3Writer::close() {
  if (db_ == nullptr) return;
  sqlite3_finalize(insert_);
  insert_ = nullptr;
  exec("COMMIT;");
  sqlite3_close(db_);
  db_ = nullptr;
}

}  // namespace asuka::bag
