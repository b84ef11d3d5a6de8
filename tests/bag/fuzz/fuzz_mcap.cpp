// libFuzzer target for the MCAP reader (asuka/src/bag/mcap.cpp) and, through it, the CDR
// deserializers. The input is written to a file of this process ($TMPDIR/asuka_fuzz_mcap_PID.mcap,
// reused by every run) and opened as MCAP with a 64 MiB chunk limit and the CRC check off (the fuzzer
// cannot forge CRCs; on only when the last byte is 0xA5); every message is read (of every topic, or
// of the first only when the last byte is odd), checked to be on a listed topic, and deserialized as
// its topic's type. Only BagError (opening) and CdrError (a message) may be thrown; damage is
// reported through damage(). Anything else is a finding. Built and run by scripts/fuzz_bag.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <asuka/bag/mcap.hpp>

#include "fuzz_support.hpp"

namespace {

volatile std::uint64_t g_sink;

const std::string& scratch_path() {
  static const std::string path = [] {
    const char* tmp = std::getenv("TMPDIR");
    return std::string(tmp && *tmp ? tmp : "/tmp") + "/asuka_fuzz_mcap_" + std::to_string(::getpid()) + ".mcap";
  }();
  return path;
}

/// libFuzzer ends without running atexit handlers, so the file stays: scripts/fuzz_bag points TMPDIR
/// at build-fuzz/tmp/ and empties it.
bool write_scratch(const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(scratch_path().c_str(), "wb");
  if (!f) return false;
  const bool ok = size == 0 || std::fwrite(data, 1, size, f) == size;
  return std::fclose(f) == 0 && ok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace asuka::bag;
  if (!write_scratch(data, size)) {
    std::fprintf(stderr, "fuzz_mcap: cannot write %s\n", scratch_path().c_str());
    std::abort();
  }
  // The last byte picks the variants (a valid file ends with the magic's '\n': all topics, no CRC).
  const std::uint8_t variant = size > 0 ? data[size - 1] : 0;
  McapReaderOptions options;
  options.verify_crc = variant == 0xA5;
  options.max_chunk_bytes = 64ull << 20;
  try {
    McapReader reader(scratch_path(), options);
    const std::string only = (variant & 1) != 0 && !reader.topics().empty() ? reader.topics().front().name : "";
    if (!only.empty()) reader.select({only});
    std::uint64_t sum = reader.start_time() + reader.end_time() + (reader.indexed() ? 1 : 0);
    for (const auto& t : reader.topics()) sum += t.messages + check_definition(t.type, t.definition).size();
    BagMessage m;
    while (reader.next(m)) {
      // next() promises one of the topics listed at opening (callers index them by pointer).
      const auto& topics = reader.topics();
      if (topics.empty() || m.topic < topics.data() || m.topic >= topics.data() + topics.size()) {
        std::fprintf(stderr, "fuzz_mcap: next() yielded a message whose topic is not one of topics()\n");
        std::abort();
      }
      if (!only.empty() && m.topic->name != only) {
        std::fprintf(stderr, "fuzz_mcap: next() yielded a message on '%s', only '%s' was selected\n", m.topic->name.c_str(), only.c_str());
        std::abort();
      }
      sum += m.log_time + fuzz::touch(m.data);
      try {
        sum += fuzz::deserialize(m.topic->type, m.data);
      } catch (const CdrError&) {
      }
    }
    sum += reader.damage().size();
    g_sink = g_sink + sum;
  } catch (const BagError&) {
  }
  return 0;
}
