#pragma once
// The CPU time the calling thread has used, user and system (#18). Set beside the wall time of a
// scan, it tells a scan that computed long from one that waited: preempted by other threads on a
// busy machine, or stalled in the kernel on the way.

#include <ctime>

namespace asuka {

/// [s] CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID); 0 where the clock is missing.
inline double thread_cpu_seconds() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0.0;
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace asuka
