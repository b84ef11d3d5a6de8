#include <asuka/bag/mcap.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <queue>

#include <fmt/format.h>
#include <lz4frame.h>
#include <zlib.h>
#include <zstd.h>

namespace asuka::bag {

namespace {

constexpr std::uint8_t kMagic[kMcapMagicSize] = {0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n'};

enum Op : std::uint8_t {
  HEADER = 0x01,
  FOOTER = 0x02,
  SCHEMA = 0x03,
  CHANNEL = 0x04,
  MESSAGE = 0x05,
  CHUNK = 0x06,
  MESSAGE_INDEX = 0x07,
  CHUNK_INDEX = 0x08,
  STATISTICS = 0x0B,
  DATA_END = 0x0F,
};

constexpr std::size_t kRecordHeader = 9;  // opcode u8 + length u64
constexpr std::size_t kFooterContent = 20;

/// A malformed record: turned into damage (reading) or BagError (opening).
struct FormatError {
  std::string what;
};

/// Bounds-checked little-endian reads over one record's content.
class Cursor {
public:
  Cursor(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  template <typename T>
  T get(const char* field) {
    T v;
    std::memcpy(&v, take(field, sizeof(T)), sizeof(T));
    return v;
  }
  std::string string(const char* field) {
    const auto n = get<std::uint32_t>(field);
    const auto* p = take(field, n);
    return std::string(reinterpret_cast<const char*>(p), n);
  }
  msg::Span<std::uint8_t> bytes32(const char* field) {
    const auto n = get<std::uint32_t>(field);
    return msg::Span<std::uint8_t>(take(field, n), n);
  }
  msg::Span<std::uint8_t> bytes64(const char* field) {
    const auto n = get<std::uint64_t>(field);
    if (n > left()) throw FormatError{fmt::format("{} claims {} bytes, {} left in the record", field, n, left())};
    return msg::Span<std::uint8_t>(take(field, static_cast<std::size_t>(n)), static_cast<std::size_t>(n));
  }
  msg::Span<std::uint8_t> rest() { return msg::Span<std::uint8_t>(take("data", left()), size_ - pos_); }
  std::size_t left() const { return size_ - pos_; }
  const std::uint8_t* take(const char* field, std::size_t n) {
    if (n > size_ - pos_) throw FormatError{fmt::format("{} needs {} bytes, {} left in the record", field, n, size_ - pos_)};
    const auto* p = data_ + pos_;
    pos_ += n;
    return p;
  }

private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

/// The fixed part of a Message record; the message bytes follow it.
struct MessageHead {
  static constexpr std::size_t kSize = 22;  // channel_id u16, sequence u32, log_time u64, publish_time u64
  std::uint16_t channel = 0;
  std::uint64_t log_time = 0;
};

MessageHead message_head(Cursor& c) {
  MessageHead h;
  h.channel = c.get<std::uint16_t>("message.channel_id");
  c.get<std::uint32_t>("message.sequence");
  h.log_time = c.get<std::uint64_t>("message.log_time");
  c.get<std::uint64_t>("message.publish_time");
  return h;
}

struct Schema {
  std::string name;
  std::string encoding;
  std::string data;
};

struct Channel {
  std::uint16_t schema_id = 0;
  std::string topic;
  std::string encoding;
};

using Buffer = std::shared_ptr<std::vector<std::uint8_t>>;

/// A message waiting in the merge heap: its bytes live in `buffer` (a chunk or the record).
struct Pending {
  std::uint64_t log_time = 0;
  std::uint64_t order = 0;  // file order, so equal times keep it
  std::uint16_t channel = 0;
  Buffer buffer;
  std::size_t offset = 0;
  std::size_t size = 0;
  bool operator>(const Pending& o) const { return log_time != o.log_time ? log_time > o.log_time : order > o.order; }
};


}  // namespace

const std::uint8_t* mcap_magic() { return kMagic; }

struct McapReader::Impl {
  std::string path;
  McapReaderOptions options;
  std::ifstream file;
  std::uint64_t file_size = 0;
  std::uint64_t data_end = 0;  // where the data section ends (summary start, or footer)
  std::map<std::uint16_t, Schema> schemas;
  std::map<std::uint16_t, Channel> channels;
  std::map<std::string, std::size_t> topic_index;  // into McapReader::topics_
  bool topics_listed = false;                       // topic_index is complete (the reader is open)
  std::map<std::uint16_t, std::uint64_t> counts;
  std::set<std::string> selected;

  // iteration
  std::uint64_t pos = kMcapMagicSize;
  bool scan_done = false;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<Pending>> heap;
  std::uint64_t order = 0;
  std::map<const void*, std::pair<std::size_t, std::size_t>> held;  // buffer -> (messages in the heap, bytes)
  std::uint64_t held_bytes = 0;
  std::uint64_t yielded = 0;
  std::uint64_t last_time = 0;
  Pending current;  // keeps the yielded message's buffer alive

  std::vector<std::uint8_t> read_at(std::uint64_t offset, std::uint64_t size) {
    if (offset > file_size || size > file_size - offset) {
      throw FormatError{fmt::format("{} bytes at byte {} run past the end of the file ({} bytes): the file is truncated", size, offset, file_size)};
    }
    std::vector<std::uint8_t> out(static_cast<std::size_t>(size));
    file.clear();
    file.seekg(static_cast<std::streamoff>(offset));
    if (size > 0 && !file.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(size))) {
      throw FormatError{fmt::format("cannot read {} bytes at byte {}", size, offset)};
    }
    return out;
  }

  void add_schema(Cursor& c) {
    Schema s;
    const auto id = c.get<std::uint16_t>("schema.id");
    s.name = c.string("schema.name");
    s.encoding = c.string("schema.encoding");
    const auto data = c.bytes32("schema.data");
    s.data.assign(reinterpret_cast<const char*>(data.data()), data.size());
    schemas.emplace(id, std::move(s));
  }

  void add_channel(Cursor& c) {
    Channel ch;
    const auto id = c.get<std::uint16_t>("channel.id");
    ch.schema_id = c.get<std::uint16_t>("channel.schema_id");
    ch.topic = c.string("channel.topic");
    ch.encoding = c.string("channel.message_encoding");
    channels.emplace(id, std::move(ch));
  }

  std::vector<std::uint8_t> decompress(const std::string& compression, msg::Span<std::uint8_t> in, std::uint64_t size, std::uint32_t crc,
                                       std::uint64_t at) {
    if (size > options.max_chunk_bytes) {
      throw FormatError{fmt::format("chunk at byte {} claims {} uncompressed bytes, more than the {} a chunk may have", at, size, options.max_chunk_bytes)};
    }
    std::vector<std::uint8_t> out;
    if (compression.empty()) {
      if (in.size() != size) throw FormatError{fmt::format("uncompressed chunk at byte {} holds {} bytes, its header says {}", at, in.size(), size)};
      out.assign(in.begin(), in.end());
    } else if (compression == "zstd") {
      out.resize(static_cast<std::size_t>(size));
      const std::size_t n = ZSTD_decompress(out.data(), out.size(), in.data(), in.size());
      if (ZSTD_isError(n)) throw FormatError{fmt::format("zstd chunk at byte {} cannot be decompressed: {}", at, ZSTD_getErrorName(n))};
      if (n != size) throw FormatError{fmt::format("zstd chunk at byte {} decompresses to {} bytes, its header says {}", at, n, size)};
    } else if (compression == "lz4") {
      out.resize(static_cast<std::size_t>(size));
      LZ4F_dctx* ctx = nullptr;
      if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION))) throw FormatError{"cannot create an lz4 decompression context"};
      std::size_t produced = 0, consumed = 0;
      std::size_t status = 1;
      while (status != 0 && consumed < in.size() && produced < out.size()) {
        std::size_t dst = out.size() - produced, src = in.size() - consumed;
        status = LZ4F_decompress(ctx, out.data() + produced, &dst, in.data() + consumed, &src, nullptr);
        if (LZ4F_isError(status)) {
          LZ4F_freeDecompressionContext(ctx);
          throw FormatError{fmt::format("lz4 chunk at byte {} cannot be decompressed: {}", at, LZ4F_getErrorName(status))};
        }
        produced += dst;
        consumed += src;
        if (dst == 0 && src == 0) break;
      }
      LZ4F_freeDecompressionContext(ctx);
      if (produced != size) throw FormatError{fmt::format("lz4 chunk at byte {} decompresses to {} bytes, its header says {}", at, produced, size)};
    } else {
      throw FormatError{fmt::format("chunk at byte {} uses compression '{}'; asuka reads zstd, lz4 and uncompressed chunks", at, compression)};
    }
    if (options.verify_crc && crc != 0) {
      const auto actual = static_cast<std::uint32_t>(crc32(0L, out.data(), static_cast<uInt>(out.size())));
      if (actual != crc) throw FormatError{fmt::format("chunk at byte {} fails its CRC (stored {:08x}, computed {:08x}): the file is corrupt", at, crc, actual)};
    }
    return out;
  }

  /// Walks the records of a decompressed chunk: schemas and channels registered, each message handed
  /// to `on_message(channel, log_time, offset, size)`.
  template <typename F>
  void walk_chunk(const std::vector<std::uint8_t>& records, std::uint64_t at, F&& on_message) {
    std::size_t p = 0;
    while (p < records.size()) {
      if (records.size() - p < kRecordHeader) throw FormatError{fmt::format("chunk at byte {} ends inside a record header", at)};
      const std::uint8_t op = records[p];
      std::uint64_t len;
      std::memcpy(&len, records.data() + p + 1, 8);
      p += kRecordHeader;
      if (len > records.size() - p) throw FormatError{fmt::format("a record in the chunk at byte {} claims {} bytes, {} left", at, len, records.size() - p)};
      Cursor c(records.data() + p, static_cast<std::size_t>(len));
      if (op == SCHEMA) {
        add_schema(c);
      } else if (op == CHANNEL) {
        add_channel(c);
      } else if (op == MESSAGE) {
        const auto head = message_head(c);
        on_message(head.channel, head.log_time, p + MessageHead::kSize, static_cast<std::size_t>(len) - MessageHead::kSize);
      }
      p += static_cast<std::size_t>(len);
    }
  }

  struct ChunkHeader {
    std::uint64_t start = 0, end = 0, size = 0;
    std::uint32_t crc = 0;
    std::string compression;
    msg::Span<std::uint8_t> records;
  };

  ChunkHeader parse_chunk(Cursor& c) {
    ChunkHeader h;
    h.start = c.get<std::uint64_t>("chunk.message_start_time");
    h.end = c.get<std::uint64_t>("chunk.message_end_time");
    h.size = c.get<std::uint64_t>("chunk.uncompressed_size");
    h.crc = c.get<std::uint32_t>("chunk.uncompressed_crc");
    h.compression = c.string("chunk.compression");
    h.records = c.bytes64("chunk.records");
    return h;
  }

  /// Whether a message on `channel` (in the record at byte `at`) is yielded. Once the topics are
  /// listed (after opening), a message on a topic the list lacks is damage: the summary the list came
  /// from did not declare that channel, and next() could not say which topic the message is on.
  bool wanted(std::uint16_t channel, std::uint64_t at) const {
    const auto ch = channels.find(channel);
    if (ch == channels.end()) return false;
    if (!selected.empty() && selected.count(ch->second.topic) == 0) return false;
    if (topics_listed && topic_index.count(ch->second.topic) == 0) {
      throw FormatError{fmt::format("a message in the record at byte {} is on channel {} (topic '{}'), which the file's summary does not list "
                                    "(expected every channel of the data section in the summary): the summary is incomplete or the file is corrupt",
                                    at, channel, ch->second.topic)};
    }
    return true;
  }

  /// Counts `messages` of `buffer` as held in the heap; too many bytes held is damage.
  void hold(const Buffer& buffer, std::size_t messages, std::uint64_t at) {
    auto& h = held[buffer.get()];
    if (h.first == 0) {
      h.second = buffer->size();
      held_bytes += buffer->size();
    }
    h.first += messages;
    if (held_bytes > options.max_pending_bytes) {
      throw FormatError{fmt::format("the record at byte {} makes {} decompressed bytes held at once (more than {}): chunks with overlapping "
                                    "time ranges pile up; the file is corrupt or unusually written",
                                    at, held_bytes, options.max_pending_bytes)};
    }
  }
  /// The heap's top leaves: its buffer is released with its last message.
  void release(const Pending& p) {
    const auto found = held.find(p.buffer.get());
    if (found == held.end()) return;
    if (--found->second.first == 0) {
      held_bytes -= found->second.second;
      held.erase(found);
    }
  }

  /// Reads the next top-level record of the data section into the heap. Returns false at its end.
  bool load_next() {
    if (scan_done) return false;
    if (pos + kRecordHeader > data_end) {
      if (pos < data_end) throw FormatError{fmt::format("the file ends inside a record header at byte {}: the file is truncated", pos)};
      scan_done = true;
      return false;
    }
    const auto head = read_at(pos, kRecordHeader);
    const std::uint8_t op = head[0];
    std::uint64_t len;
    std::memcpy(&len, head.data() + 1, 8);
    const std::uint64_t at = pos;
    if (len > data_end - pos - kRecordHeader) {
      throw FormatError{fmt::format("a record at byte {} claims {} bytes but the data section ends {} bytes later: the file is truncated", at, len,
                                    data_end - pos - kRecordHeader)};
    }
    pos += kRecordHeader + len;
    if (op == DATA_END || op == FOOTER) {
      scan_done = true;
      return false;
    }
    if (op != CHUNK && op != MESSAGE && op != SCHEMA && op != CHANNEL) return true;  // indexes, attachments, metadata
    auto content = std::make_shared<std::vector<std::uint8_t>>(read_at(at + kRecordHeader, len));
    Cursor c(content->data(), content->size());
    if (op == SCHEMA) {
      add_schema(c);
    } else if (op == CHANNEL) {
      add_channel(c);
    } else if (op == MESSAGE) {
      const auto m = message_head(c);
      if (wanted(m.channel, at)) {
        heap.push(Pending{m.log_time, order++, m.channel, content, MessageHead::kSize, content->size() - MessageHead::kSize});
        hold(content, 1, at);
      }
    } else {
      const auto h = parse_chunk(c);
      auto records = std::make_shared<std::vector<std::uint8_t>>(decompress(h.compression, h.records, h.size, h.crc, at));
      std::size_t pushed = 0;
      walk_chunk(*records, at, [&](std::uint16_t channel, std::uint64_t log_time, std::size_t offset, std::size_t size) {
        if (wanted(channel, at)) {
          heap.push(Pending{log_time, order++, channel, records, offset, size});
          ++pushed;
        }
      });
      if (pushed > 0) hold(records, pushed, at);
    }
    return true;
  }

  /// The earliest log time the next top-level record can hold, without loading it (max: unknown or
  /// none, so the heap may be emptied first only when the scan is done).
  std::uint64_t next_start() {
    if (scan_done || pos + kRecordHeader + MessageHead::kSize > data_end) return 0;  // unknown: load it
    const auto head = read_at(pos, kRecordHeader + MessageHead::kSize);
    if (head[0] == CHUNK) {
      std::uint64_t start;
      std::memcpy(&start, head.data() + kRecordHeader, 8);
      return start;
    }
    if (head[0] == MESSAGE) {
      std::uint64_t t;
      std::memcpy(&t, head.data() + kRecordHeader + 6, 8);
      return t;
    }
    return 0;  // another record: read past it
  }
};

McapReader::McapReader(const std::string& path, const McapReaderOptions& options) : impl_(std::make_unique<Impl>()) {
  auto& d = *impl_;
  d.path = path;
  d.options = options;
  d.file.open(path, std::ios::binary);
  if (!d.file) throw BagError(fmt::format("cannot open '{}' for reading", path));
  d.file.seekg(0, std::ios::end);
  d.file_size = static_cast<std::uint64_t>(d.file.tellg());
  d.data_end = d.file_size;
  try {
    const auto magic = d.read_at(0, std::min<std::uint64_t>(kMcapMagicSize, d.file_size));
    if (magic.size() < kMcapMagicSize || std::memcmp(magic.data(), kMagic, kMcapMagicSize) != 0) {
      throw BagError(fmt::format("'{}' is not an MCAP file (it does not start with the MCAP magic bytes)", path));
    }
  } catch (const FormatError& e) {
    throw BagError(fmt::format("'{}' is not an MCAP file: {}", path, e.what));
  }

  // The footer and summary, when the file is complete.
  std::map<std::uint16_t, std::uint64_t> stat_counts;
  bool have_stats = false;
  const std::uint64_t tail = kRecordHeader + kFooterContent + kMcapMagicSize;
  if (d.file_size >= kMcapMagicSize + tail) {
    try {
      const auto end = d.read_at(d.file_size - tail, tail);
      std::uint64_t len;
      std::memcpy(&len, end.data() + 1, 8);
      if (end[0] == FOOTER && len == kFooterContent && std::memcmp(end.data() + tail - kMcapMagicSize, kMagic, kMcapMagicSize) == 0) {
        d.data_end = d.file_size - tail;
        std::uint64_t summary_start;
        std::memcpy(&summary_start, end.data() + kRecordHeader, 8);
        if (summary_start >= kMcapMagicSize && summary_start < d.data_end) {
          const auto summary = d.read_at(summary_start, d.data_end - summary_start);
          std::size_t p = 0;
          while (p + kRecordHeader <= summary.size()) {
            const std::uint8_t op = summary[p];
            std::memcpy(&len, summary.data() + p + 1, 8);
            p += kRecordHeader;
            if (len > summary.size() - p) throw FormatError{"a summary record runs past the footer"};
            Cursor c(summary.data() + p, static_cast<std::size_t>(len));
            if (op == SCHEMA) d.add_schema(c);
            if (op == CHANNEL) d.add_channel(c);
            if (op == STATISTICS) {
              c.get<std::uint64_t>("statistics.message_count");
              c.get<std::uint16_t>("statistics.schema_count");
              c.get<std::uint32_t>("statistics.channel_count");
              c.get<std::uint32_t>("statistics.attachment_count");
              c.get<std::uint32_t>("statistics.metadata_count");
              c.get<std::uint32_t>("statistics.chunk_count");
              start_ = c.get<std::uint64_t>("statistics.message_start_time");
              end_ = c.get<std::uint64_t>("statistics.message_end_time");
              const auto map_bytes = c.get<std::uint32_t>("statistics.channel_message_counts");
              Cursor m(c.take("statistics.channel_message_counts", map_bytes), map_bytes);
              while (m.left() > 0) {
                const auto id = m.get<std::uint16_t>("channel id");
                stat_counts[id] = m.get<std::uint64_t>("count");
              }
              have_stats = true;
            }
            p += static_cast<std::size_t>(len);
          }
          // The summary is trusted only when it describes the channels and their counts.
          indexed_ = have_stats && !d.channels.empty();
          // The data section ends where the summary starts (DataEnd comes before it).
          d.data_end = summary_start;
        }
      }
    } catch (const FormatError&) {
      indexed_ = false;  // a damaged summary: scan instead
      d.schemas.clear();
      d.channels.clear();
      start_ = end_ = 0;  // its statistics may have been read: the scan says (0, 0 when it finds no message)
    }
  }

  if (indexed_) {
    d.counts = stat_counts;  // times too: indexed_ needs the statistics record
  } else {
    // No (usable) summary: scan every record once for channels, counts and times.
    d.data_end = std::min(d.data_end, d.file_size);
    try {
      bool first = true;
      while (d.load_next()) {
        while (!d.heap.empty()) {
          const auto& m = d.heap.top();
          ++d.counts[m.channel];
          start_ = first ? m.log_time : std::min(start_, m.log_time);
          end_ = first ? m.log_time : std::max(end_, m.log_time);
          first = false;
          d.release(m);
          d.heap.pop();
        }
      }
    } catch (const FormatError& e) {
      damage_ = fmt::format("'{}': {}", path, e.what);  // read up to it when playing
    }
    d.heap = {};
    d.held.clear();
    d.held_bytes = 0;
    d.pos = kMcapMagicSize;
    d.scan_done = false;
    d.order = 0;
  }

  for (const auto& [id, ch] : d.channels) {
    auto found = d.topic_index.find(ch.topic);
    if (found == d.topic_index.end()) {
      TopicInfo info;
      info.name = ch.topic;
      info.encoding = ch.encoding;
      const auto schema = d.schemas.find(ch.schema_id);
      if (schema != d.schemas.end()) {
        info.type = schema->second.name;
        if (schema->second.encoding == "ros2msg") info.definition = schema->second.data;
      }
      found = d.topic_index.emplace(ch.topic, topics_.size()).first;
      topics_.push_back(info);
    }
    const auto count = d.counts.find(id);
    if (count != d.counts.end()) topics_[found->second].messages += count->second;
  }
  d.topics_listed = true;
  damage_.clear();  // reported again, with counts, when playing reaches it
}

McapReader::~McapReader() = default;

void McapReader::select(const std::set<std::string>& topics) { impl_->selected = topics; }

bool McapReader::next(BagMessage& message) {
  auto& d = *impl_;
  if (!damage_.empty()) return false;
  try {
    // Load records until the heap's earliest message cannot be preceded by anything unread.
    for (;;) {
      if (d.scan_done) break;
      if (!d.heap.empty()) {
        const std::uint64_t next = d.next_start();
        if (next > d.heap.top().log_time) break;
      }
      d.load_next();
    }
  } catch (const FormatError& e) {
    damage_ = fmt::format("'{}': {}; read {} messages before it (up to receive time {:.3f} s), everything before the damage was used", d.path, e.what,
                          d.yielded, static_cast<double>(d.last_time) * 1e-9);
    return false;
  }
  if (d.heap.empty()) return false;
  d.current = d.heap.top();
  d.heap.pop();
  d.release(d.current);
  const auto& ch = d.channels.at(d.current.channel);
  message.topic = &topics_[d.topic_index.at(ch.topic)];
  message.log_time = d.current.log_time;
  message.data = msg::Span<std::uint8_t>(d.current.buffer->data() + d.current.offset, d.current.size);
  message.owner = d.current.buffer;
  ++d.yielded;
  d.last_time = d.current.log_time;
  return true;
}

// ---- writer ---------------------------------------------------------------------------------------

namespace {

class Bytes {
public:
  template <typename T>
  void put(T v) {
    const auto at = b.size();
    b.resize(at + sizeof(T));
    std::memcpy(b.data() + at, &v, sizeof(T));
  }
  void string(const std::string& s) {
    put(static_cast<std::uint32_t>(s.size()));
    b.insert(b.end(), s.begin(), s.end());
  }
  void raw(const std::uint8_t* p, std::size_t n) { b.insert(b.end(), p, p + n); }
  std::vector<std::uint8_t> b;
};

void record(std::vector<std::uint8_t>& out, std::uint8_t op, const std::vector<std::uint8_t>& content) {
  out.push_back(op);
  const std::uint64_t len = content.size();
  const auto at = out.size();
  out.resize(at + 8);
  std::memcpy(out.data() + at, &len, 8);
  out.insert(out.end(), content.begin(), content.end());
}

}  // namespace

struct McapWriter::Impl {
  McapWriterOptions options;
  std::string path;
  std::ofstream file;
  std::uint64_t offset = 0;
  struct Topic {
    std::uint16_t id = 0;
    std::string type;
    std::string definition;
    std::uint64_t count = 0;
  };
  std::map<std::string, Topic> topics;
  std::vector<std::uint8_t> schemas_and_channels;  // records, repeated in the summary
  std::vector<std::uint8_t> chunk;                 // open chunk's records
  std::uint64_t chunk_start = 0, chunk_end = 0;
  bool chunk_has_message = false;
  std::vector<std::uint8_t> chunk_indexes;
  std::uint64_t chunks = 0;
  std::uint64_t messages = 0;
  std::uint64_t start = 0, end = 0;
  std::uint32_t sequence = 0;
  bool closed = false;

  void emit(const std::vector<std::uint8_t>& bytes) {
    file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    offset += bytes.size();
    if (!file) throw BagError(fmt::format("cannot write '{}' (disk full or not writable)", path));
  }

  void flush_chunk() {
    if (chunk.empty()) return;
    std::vector<std::uint8_t> compressed;
    if (options.compression == "zstd") {
      compressed.resize(ZSTD_compressBound(chunk.size()));
      const std::size_t n = ZSTD_compress(compressed.data(), compressed.size(), chunk.data(), chunk.size(), 3);
      if (ZSTD_isError(n)) throw BagError(fmt::format("zstd compression failed: {}", ZSTD_getErrorName(n)));
      compressed.resize(n);
    } else if (options.compression == "lz4") {
      compressed.resize(LZ4F_compressFrameBound(chunk.size(), nullptr));
      const std::size_t n = LZ4F_compressFrame(compressed.data(), compressed.size(), chunk.data(), chunk.size(), nullptr);
      if (LZ4F_isError(n)) throw BagError(fmt::format("lz4 compression failed: {}", LZ4F_getErrorName(n)));
      compressed.resize(n);
    } else {
      compressed = chunk;
    }
    Bytes c;
    c.put(chunk_start);
    c.put(chunk_end);
    c.put(static_cast<std::uint64_t>(chunk.size()));
    c.put(static_cast<std::uint32_t>(crc32(0L, chunk.data(), static_cast<uInt>(chunk.size()))));
    c.string(options.compression);
    c.put(static_cast<std::uint64_t>(compressed.size()));
    c.raw(compressed.data(), compressed.size());
    std::vector<std::uint8_t> rec;
    record(rec, CHUNK, c.b);
    const std::uint64_t chunk_offset = offset;
    emit(rec);

    Bytes index;
    index.put(chunk_start);
    index.put(chunk_end);
    index.put(chunk_offset);
    index.put(static_cast<std::uint64_t>(rec.size()));
    index.put(static_cast<std::uint32_t>(0));  // no message indexes
    index.put(static_cast<std::uint64_t>(0));
    index.string(options.compression);
    index.put(static_cast<std::uint64_t>(compressed.size()));
    index.put(static_cast<std::uint64_t>(chunk.size()));
    record(chunk_indexes, CHUNK_INDEX, index.b);
    ++chunks;
    chunk.clear();
    chunk_has_message = false;
  }
};

McapWriter::McapWriter(const std::string& path, const McapWriterOptions& options) : impl_(std::make_unique<Impl>()) {
  auto& d = *impl_;
  d.options = options;
  d.path = path;
  if (!options.compression.empty() && options.compression != "zstd" && options.compression != "lz4") {
    throw BagError(fmt::format("MCAP compression '{}' is not one of zstd, lz4, '' (none)", options.compression));
  }
  d.file.open(path, std::ios::binary | std::ios::trunc);
  if (!d.file) throw BagError(fmt::format("cannot create '{}'", path));
  d.emit(std::vector<std::uint8_t>(kMagic, kMagic + kMcapMagicSize));
  Bytes header;
  header.string("ros2");
  header.string("asuka");
  std::vector<std::uint8_t> rec;
  record(rec, HEADER, header.b);
  d.emit(rec);
}

McapWriter::~McapWriter() {
  try {
    close();
  } catch (...) {  // a destructor must not throw; close() reports errors when called explicitly
  }
}

void McapWriter::add_topic(const std::string& topic, const std::string& type, const std::string& definition) {
  auto& d = *impl_;
  if (d.topics.count(topic)) return;
  Impl::Topic t;
  t.id = static_cast<std::uint16_t>(d.topics.size() + 1);
  t.type = type;
  t.definition = definition;
  Bytes schema;
  schema.put(t.id);
  schema.string(type);
  schema.string("ros2msg");
  schema.string(definition);
  Bytes channel;
  channel.put(t.id);
  channel.put(t.id);  // schema id = channel id
  channel.string(topic);
  channel.string("cdr");
  Bytes metadata;
  metadata.string("offered_qos_profiles");
  metadata.string("");
  channel.put(static_cast<std::uint32_t>(metadata.b.size()));
  channel.raw(metadata.b.data(), metadata.b.size());
  std::vector<std::uint8_t> recs;
  record(recs, SCHEMA, schema.b);
  record(recs, CHANNEL, channel.b);
  d.schemas_and_channels.insert(d.schemas_and_channels.end(), recs.begin(), recs.end());
  if (d.options.chunked) {
    d.chunk.insert(d.chunk.end(), recs.begin(), recs.end());
  } else {
    d.emit(recs);
  }
  d.topics.emplace(topic, t);
}

void McapWriter::write(const std::string& topic, std::uint64_t log_time, const std::vector<std::uint8_t>& cdr) {
  auto& d = *impl_;
  const auto found = d.topics.find(topic);
  if (found == d.topics.end()) throw BagError(fmt::format("MCAP writer: topic '{}' was not added", topic));
  Bytes m;
  m.put(found->second.id);
  m.put(d.sequence++);
  m.put(log_time);
  m.put(log_time);
  m.raw(cdr.data(), cdr.size());
  ++found->second.count;
  d.start = d.messages == 0 ? log_time : std::min(d.start, log_time);
  d.end = d.messages == 0 ? log_time : std::max(d.end, log_time);
  ++d.messages;
  if (!d.options.chunked) {
    std::vector<std::uint8_t> rec;
    record(rec, MESSAGE, m.b);
    d.emit(rec);
    return;
  }
  if (!d.chunk_has_message) {
    d.chunk_start = log_time;
    d.chunk_end = log_time;
    d.chunk_has_message = true;
  }
  d.chunk_start = std::min(d.chunk_start, log_time);
  d.chunk_end = std::max(d.chunk_end, log_time);
  record(d.chunk, MESSAGE, m.b);
  if (d.chunk.size() >= d.options.chunk_size) d.flush_chunk();
}

std::uint64_t McapWriter::messages() const { return impl_->messages; }

void McapWriter::close() {
  auto& d = *impl_;
  if (d.closed) return;
  d.closed = true;
  d.flush_chunk();
  std::vector<std::uint8_t> rec;
  Bytes data_end;
  data_end.put(static_cast<std::uint32_t>(0));
  record(rec, DATA_END, data_end.b);
  d.emit(rec);
  std::uint64_t summary_start = 0;
  if (d.options.summary) {
    summary_start = d.offset;
    std::vector<std::uint8_t> summary = d.schemas_and_channels;
    Bytes stats;
    stats.put(d.messages);
    stats.put(static_cast<std::uint16_t>(d.topics.size()));
    stats.put(static_cast<std::uint32_t>(d.topics.size()));
    stats.put(static_cast<std::uint32_t>(0));
    stats.put(static_cast<std::uint32_t>(0));
    stats.put(static_cast<std::uint32_t>(d.chunks));
    stats.put(d.start);
    stats.put(d.end);
    Bytes counts;
    for (const auto& [name, t] : d.topics) {
      counts.put(t.id);
      counts.put(t.count);
    }
    stats.put(static_cast<std::uint32_t>(counts.b.size()));
    stats.raw(counts.b.data(), counts.b.size());
    record(summary, STATISTICS, stats.b);
    summary.insert(summary.end(), d.chunk_indexes.begin(), d.chunk_indexes.end());
    d.emit(summary);
  }
  Bytes footer;
  footer.put(summary_start);
  footer.put(static_cast<std::uint64_t>(0));
  footer.put(static_cast<std::uint32_t>(0));
  rec.clear();
  record(rec, FOOTER, footer.b);
  rec.insert(rec.end(), kMagic, kMagic + kMcapMagicSize);
  d.emit(rec);
  d.file.close();
}

}  // namespace asuka::bag
