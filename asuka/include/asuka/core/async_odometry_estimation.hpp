#pragma once
// AsyncOdometryEstimation: the only concurrency boundary between the message threads (producers)
// and a frontend (R-EXEC-1). Design notes are in docs/architecture.md.
//
// Threads and guarantees:
// - insert_imu / insert_frame / insert_image / workload / wait_* / stop / ok / stats are safe from
//   any thread.
// - Every call into the frontend (insert_*, process_once, workload, ok) happens on the one worker
//   thread that the constructor starts, so the frontend needs no locks (R-EXEC-5). In particular
//   workload() does not call the frontend from the producer's thread: the worker samples the
//   frontend's workload after each event and workload() reads that sample.
// - Events are fed one at a time, in sensor-time order across the three queues (IMU, frames,
//   images; on equal stamps in that order), one event per lock window (R-EXEC-4).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <asuka/core/odometry_estimation.hpp>
#include <asuka/core/ring_buffer.hpp>
#include <asuka/core/types.hpp>

namespace spdlog {
class logger;
}

namespace asuka {

class Config;

struct AsyncOdometryEstimationParams {
  std::size_t imu_queue_capacity = 1000;  ///< events (R-EXEC-2)
  std::size_t frame_queue_capacity = 50;  ///< events (R-EXEC-2)
  std::size_t image_queue_capacity = 50;  ///< events (R-EXEC-2), camera images
  /// Consecutive failed events (exception escaping the frontend, or ok() false after the event)
  /// that trip the circuit breaker (R-EXEC-9). >= 1.
  int max_consecutive_failures = 5;
  /// After the first overflow warning, warn again every this many dropped events. >= 1.
  std::uint64_t overflow_warn_interval = 100;

  /// Reads the "executor" section of a config ("imu_queue_capacity", "frame_queue_capacity",
  /// "image_queue_capacity", "max_consecutive_failures", "overflow_warn_interval"); throws
  /// ConfigError for bad values.
  static AsyncOdometryEstimationParams from_config(const Config& config);
};

/// Counters for the run report. All counts are totals since construction.
struct AsyncOdometryEstimationStats {
  std::uint64_t imu_inserted = 0;        ///< accepted by insert_imu
  std::uint64_t frames_inserted = 0;     ///< accepted by insert_frame
  std::uint64_t imu_rejected = 0;        ///< insert_imu after stop()
  std::uint64_t frames_rejected = 0;     ///< insert_frame after stop()
  std::uint64_t imu_overflow = 0;        ///< oldest IMU sample overwritten by a full queue
  std::uint64_t frame_overflow = 0;      ///< oldest frame overwritten by a full queue
  std::uint64_t imu_processed = 0;       ///< fed to the frontend
  std::uint64_t frames_processed = 0;    ///< fed to the frontend
  std::uint64_t images_inserted = 0;     ///< accepted by insert_image
  std::uint64_t images_rejected = 0;     ///< insert_image after stop(), or a null image
  std::uint64_t image_overflow = 0;      ///< oldest image overwritten by a full queue
  std::uint64_t images_processed = 0;    ///< fed to the frontend
  std::uint64_t discarded_at_stop = 0;   ///< left in the queues when the worker stopped
  std::uint64_t discarded_after_trip = 0;///< dequeued but not fed after the breaker tripped
  std::uint64_t failures = 0;            ///< failed events in total (not only consecutive)
  std::uint64_t process_once_calls = 0;  ///< calls that returned true
};

class AsyncOdometryEstimation {
public:
  /// Starts the worker thread (R-EXEC-1). `odometry` must not be null.
  explicit AsyncOdometryEstimation(OdometryEstimation::Ptr odometry, const AsyncOdometryEstimationParams& params = AsyncOdometryEstimationParams());
  /// Calls stop() (R-EXEC-1, R-EXEC-8). Must not run on the worker thread (from a callback): the
  /// worker would use a destroyed object.
  ~AsyncOdometryEstimation();

  AsyncOdometryEstimation(const AsyncOdometryEstimation&) = delete;
  AsyncOdometryEstimation& operator=(const AsyncOdometryEstimation&) = delete;

  /// Queues an IMU sample. Returns false (and queues nothing) after stop() (R-EXEC-3). When the
  /// queue is full the oldest sample is overwritten, counted and warned (R-EXEC-2).
  bool insert_imu(const ImuData& imu);
  /// Queues a preprocessed frame; same rules as insert_imu. A null frame is rejected.
  bool insert_frame(const LidarFrame::ConstPtr& frame);
  /// Queues a camera image; same rules as insert_imu. A null image is rejected.
  bool insert_image(const Image::ConstPtr& image);

  /// Queued events + the frontend's own workload as last sampled by the worker (R-EXEC-6). An event
  /// that is being processed right now is in neither; wait_idle() covers that window.
  int workload() const;
  /// Queued events only.
  std::size_t queued_events() const;

  /// Blocks until the queues are empty, no event is being processed and the frontend's workload is
  /// 0 (R-EXEC-7), or until the worker has stopped. Event-driven, no polling.
  void wait_idle() const;
  /// wait_idle() with a deadline (R-EXEC-10): true if drained, false if `timeout` passed first.
  /// After stop() the queues are empty (leftovers are discarded and counted in
  /// stats().discarded_at_stop), so it returns true unless the frontend still reports work.
  bool wait_for(std::chrono::milliseconds timeout) const;

  /// Blocks until every queued event has been fed and drained (queues empty, none in flight) or the
  /// worker has stopped, and returns the frontend's workload then (0 after a trip). Event-driven.
  /// Unlike wait_idle() it does not wait for that workload: with no input left, only a frontend that
  /// breaks the workload() contract still reports work, and the host warns instead of hanging.
  int wait_consumed() const;
  /// Back-pressure for producers (R-ROS-7): blocks until at most `max_queued` events are queued,
  /// the worker has stopped, or `timeout` passed; returns whether queued_events() <= max_queued.
  /// Event-driven. It looks at the queues only, not at the frontend's own workload: a frontend that
  /// holds IMU samples until a frame's end has a workload that only more input can lower, and a
  /// producer waiting for it would deadlock.
  bool wait_queued_at_most(std::size_t max_queued, std::chrono::milliseconds timeout) const;

  /// Stops input, wakes and joins the worker; leftover events are discarded (R-EXEC-8). Idempotent,
  /// safe from several threads at once and from the destructor. Must not be called from a callback
  /// running on the worker thread (it would join itself): such a call only stops input and returns.
  void stop();
  bool running() const { return running_.load(); }

  /// False once the circuit breaker has tripped (R-EXEC-9, R-EXEC-11).
  bool ok() const;
  /// Why ok() is false ("" while ok).
  std::string failure_reason() const;

  AsyncOdometryEstimationStats stats() const;
  const AsyncOdometryEstimationParams& params() const { return params_; }

private:
  struct Event;

  void loop();
  /// Feeds one event and drains process_once(); returns "" on success or why the event failed.
  std::string feed(Event& event, std::uint64_t& steps);
  void record_result_locked(const std::string& failure, const Event& event);
  bool idle_locked() const;
  int workload_locked() const;
  void warn_overflow_locked(const char* stream, std::size_t capacity, std::uint64_t count);
  std::size_t queued_locked() const;

  OdometryEstimation::Ptr odometry_;
  AsyncOdometryEstimationParams params_;
  std::shared_ptr<spdlog::logger> logger_;

  mutable std::mutex mutex_;
  mutable std::condition_variable input_cv_;  ///< producers -> worker: new input or stop
  mutable std::condition_variable idle_cv_;   ///< worker -> waiters: an event finished, or stopped
  RingBuffer<ImuData> imu_queue_;
  RingBuffer<LidarFrame::ConstPtr> frame_queue_;
  RingBuffer<Image::ConstPtr> image_queue_;
  bool processing_ = false;          ///< guarded by mutex_
  int odometry_workload_ = 0;        ///< guarded by mutex_; sampled on the worker after each event
  bool worker_exited_ = false;       ///< guarded by mutex_
  int consecutive_failures_ = 0;     ///< guarded by mutex_
  bool tripped_ = false;             ///< guarded by mutex_
  std::string failure_reason_;       ///< guarded by mutex_
  AsyncOdometryEstimationStats stats_;  ///< guarded by mutex_

  std::atomic<bool> running_{true};
  std::atomic<bool> end_of_sequence_{false};
  std::atomic<std::thread::id> worker_id_{};  ///< set by the worker itself when it starts
  std::thread worker_;
};

}  // namespace asuka
