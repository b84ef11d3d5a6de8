// libFuzzer target for the CDR deserializers (asuka/src/bag/cdr.cpp). The input's first byte selects
// one of the five message types (modulo 5); the rest is the serialized message, encapsulation header
// included. The same rest, as text, is also checked as that type's ros2msg definition. CustomMsg
// points are also read field by field (fuzz_support.hpp) and must match read_livox_custom_msg.
// Only CdrError may leave a deserializer; anything else (another exception, a crash, a sanitizer
// report) is a finding. Built and run by scripts/fuzz_bag.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_support.hpp"

namespace {
volatile std::uint64_t g_sink;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace asuka::bag;
  if (size < 1) return 0;
  const std::string type = fuzz::kTypes[data[0] % fuzz::kTypeCount];
  const asuka::msg::Span<std::uint8_t> cdr(data + 1, size - 1);
  try {
    g_sink = g_sink + fuzz::deserialize(type, cdr);
  } catch (const CdrError&) {
  }
  // The CustomMsg points are read as one block when little endian: they must come out as the
  // field-by-field read (which big-endian messages still take) gives them.
  if (type == type_names::kLivoxCustomMsg && !fuzz::livox_agrees_with_reference(cdr)) {
    std::fprintf(stderr, "fuzz_cdr: read_livox_custom_msg disagrees with the field-by-field reference\n");
    std::abort();
  }
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  g_sink = g_sink + check_definition(type, text).size();
  return 0;
}
