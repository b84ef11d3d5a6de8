#pragma once
// The process's memory as the kernel counts it, for the per-scan record of a long run (#18).

#include <cstddef>

namespace asuka {

/// Resident set size now [bytes] (Linux: /proc/self/statm); 0 where it cannot be read. A few
/// microseconds: cheap enough once per scan.
std::size_t resident_bytes();

/// Peak resident set size so far [bytes] (Linux: VmHWM of /proc/self/status); 0 where unknown.
std::size_t peak_resident_bytes();

}  // namespace asuka
