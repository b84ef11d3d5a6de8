#pragma once
// Test-only: what the fake frontend plugin records and how it can be told to misbehave. The plugin
// is loaded through load_module like a real frontend; tests reach its probe through the exported C
// function asuka_fake_frontend_probe() (looked up in the plugin registry), never by linking to it.

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace asuka::test {

struct FakeProbe {
  mutable std::mutex mutex;
  std::condition_variable cv;

  // ---- what happened, in order (all under `mutex`) ----
  /// "insert imu 0.100000", "insert frame 0.150000", "insert image 0.120000", "process_once", "save_map PATH", "reset"; tests
  /// add their own entries (e.g. from callback slots) through log().
  std::vector<std::string> calls;
  std::vector<double> fed_stamps;  ///< stamps of inserted events, in feed order
  std::size_t imu_count = 0;
  std::size_t frame_count = 0;
  std::size_t image_count = 0;
  std::size_t frames_estimated = 0;

  // ---- knobs (set by the test; read by the plugin under `mutex`) ----
  int process_steps_per_event = 0;  ///< process_once() returns true this many times per event
  int workload_hold = 0;            ///< workload() returns pending steps + this
  int throw_on_next_inserts = 0;    ///< the next N inserts throw std::runtime_error
  bool ok = true;                   ///< what ok() returns
  bool block = false;               ///< insert_*() blocks while true
  int sleep_us_per_event = 0;       ///< insert_*() sleeps this long: a slow frontend
  int blocked = 0;                  ///< inserts currently blocked (the test waits for 1)
  /// Called on the worker thread at the start of each insert_*, outside `mutex`.
  std::function<void(bool is_imu, double stamp)> on_feed;

  void log(const std::string& entry) {
    std::lock_guard<std::mutex> lock(mutex);
    calls.push_back(entry);
  }

  /// Blocks inserts until release(); returns once one insert is blocked.
  void hold() {
    std::lock_guard<std::mutex> lock(mutex);
    block = true;
  }
  bool wait_blocked() {
    std::unique_lock<std::mutex> lock(mutex);
    return cv.wait_for(lock, std::chrono::seconds(10), [this] { return blocked > 0; });
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      block = false;
    }
    cv.notify_all();
  }
};

}  // namespace asuka::test

/// Probe of the most recently created fake frontend (null before the first one).
extern "C" {
typedef asuka::test::FakeProbe* (*AsukaFakeFrontendProbeFn)();
}
