#include <asuka/core/async_odometry_estimation.hpp>

#include <exception>
#include <stdexcept>

#include <asuka/config/config.hpp>
#include <asuka/core/callbacks.hpp>
#include <asuka/util/logging.hpp>

namespace asuka {

AsyncOdometryEstimationParams AsyncOdometryEstimationParams::from_config(const Config& config) {
  AsyncOdometryEstimationParams params;
  params.imu_queue_capacity = static_cast<std::size_t>(config.get_in_range("executor.imu_queue_capacity", static_cast<int>(params.imu_queue_capacity), 1, 1000000));
  params.frame_queue_capacity = static_cast<std::size_t>(config.get_in_range("executor.frame_queue_capacity", static_cast<int>(params.frame_queue_capacity), 1, 100000));
  params.image_queue_capacity = static_cast<std::size_t>(config.get_in_range("executor.image_queue_capacity", static_cast<int>(params.image_queue_capacity), 1, 100000));
  params.max_consecutive_failures = config.get_in_range("executor.max_consecutive_failures", params.max_consecutive_failures, 1, 1000000);
  params.overflow_warn_interval = static_cast<std::uint64_t>(config.get_in_range("executor.overflow_warn_interval", static_cast<int>(params.overflow_warn_interval), 1, 1000000000));
  return params;
}

struct AsyncOdometryEstimation::Event {
  StreamId stream = StreamId::IMU;
  ImuData imu;
  LidarFrame::ConstPtr frame;
  Image::ConstPtr image;

  double stamp() const { return stream == StreamId::IMU ? imu.stamp : stream == StreamId::LIDAR ? frame->stamp : image->stamp; }
  const char* kind() const { return stream == StreamId::IMU ? "imu" : stream == StreamId::LIDAR ? "frame" : "image"; }
};

AsyncOdometryEstimation::AsyncOdometryEstimation(OdometryEstimation::Ptr odometry, const AsyncOdometryEstimationParams& params)
: odometry_(std::move(odometry)),
  params_(params),
  logger_(module_logger("exec")),
  imu_queue_(params.imu_queue_capacity),
  frame_queue_(params.frame_queue_capacity),
  image_queue_(params.image_queue_capacity) {
  if (!odometry_) throw std::invalid_argument("AsyncOdometryEstimation: the frontend is null (load_module failed?)");
  if (params_.max_consecutive_failures < 1) params_.max_consecutive_failures = 1;
  if (params_.overflow_warn_interval < 1) params_.overflow_warn_interval = 1;
  // Sampled here, before the worker exists; from now on only the worker calls into the frontend.
  odometry_workload_ = odometry_->workload();
  worker_ = std::thread(&AsyncOdometryEstimation::loop, this);
}

AsyncOdometryEstimation::~AsyncOdometryEstimation() {
  stop();
  if (worker_.joinable()) {
    if (std::this_thread::get_id() == worker_.get_id()) {
      worker_.detach();  // destroyed from one of its own callbacks: it cannot join itself
    } else {
      worker_.join();  // the first stop() came from the worker itself and could not join
    }
  }
}

bool AsyncOdometryEstimation::insert_imu(const ImuData& imu) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!running_ || end_of_sequence_) {
      ++stats_.imu_rejected;
      return false;
    }
    if (imu_queue_.push_back(imu)) {
      ++stats_.imu_overflow;
      warn_overflow_locked("imu", imu_queue_.capacity(), stats_.imu_overflow);
    }
    ++stats_.imu_inserted;
  }
  input_cv_.notify_one();
  return true;
}

bool AsyncOdometryEstimation::insert_frame(const LidarFrame::ConstPtr& frame) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!frame || !running_ || end_of_sequence_) {
      ++stats_.frames_rejected;
      return false;
    }
    if (frame_queue_.push_back(frame)) {
      ++stats_.frame_overflow;
      warn_overflow_locked("frame", frame_queue_.capacity(), stats_.frame_overflow);
    }
    ++stats_.frames_inserted;
  }
  input_cv_.notify_one();
  return true;
}

bool AsyncOdometryEstimation::insert_image(const Image::ConstPtr& image) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!image || !running_ || end_of_sequence_) {
      ++stats_.images_rejected;
      return false;
    }
    if (image_queue_.push_back(image)) {
      ++stats_.image_overflow;
      warn_overflow_locked("image", image_queue_.capacity(), stats_.image_overflow);
    }
    ++stats_.images_inserted;
  }
  input_cv_.notify_one();
  return true;
}

void AsyncOdometryEstimation::warn_overflow_locked(const char* stream, std::size_t capacity, std::uint64_t count) {
  if (count != 1 && count % params_.overflow_warn_interval != 0) return;
  logger_->warn(
    "{} queue full (capacity {}): the oldest {} was overwritten ({} dropped so far). The frontend is slower than its input; "
    "producers should pause while workload() is high",
    stream, capacity, stream, count);
}

std::size_t AsyncOdometryEstimation::queued_locked() const { return imu_queue_.size() + frame_queue_.size() + image_queue_.size(); }

int AsyncOdometryEstimation::workload() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return workload_locked();
}

int AsyncOdometryEstimation::workload_locked() const {
  return static_cast<int>(queued_locked()) + (tripped_ ? 0 : odometry_workload_);
}

bool AsyncOdometryEstimation::wait_queued_at_most(std::size_t max_queued, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mutex_);
  // The worker notifies idle_cv_ after every event, which is when the queues have shrunk.
  idle_cv_.wait_for(lock, timeout, [&] { return queued_locked() <= max_queued || worker_exited_; });
  return queued_locked() <= max_queued;
}

std::size_t AsyncOdometryEstimation::queued_events() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queued_locked();
}

bool AsyncOdometryEstimation::idle_locked() const {
  // After a trip the frontend is never fed again, so what it still holds will never drain.
  return queued_locked() == 0 && !processing_ && (tripped_ || odometry_workload_ == 0);
}

void AsyncOdometryEstimation::wait_idle() const {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_cv_.wait(lock, [this] { return idle_locked() || worker_exited_; });
}

int AsyncOdometryEstimation::wait_consumed() const {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_cv_.wait(lock, [this] { return (queued_locked() == 0 && !processing_) || worker_exited_; });
  return tripped_ ? 0 : odometry_workload_;
}

bool AsyncOdometryEstimation::wait_for(std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_cv_.wait_for(lock, timeout, [this] { return idle_locked() || worker_exited_; });
  return idle_locked();
}

void AsyncOdometryEstimation::stop() {
  end_of_sequence_ = true;  // first: from here on every insert is rejected
  const bool on_worker = std::this_thread::get_id() == worker_id_.load();
  if (!running_.exchange(false)) {
    // Not the first caller: still return only once the worker is done with the frontend, so
    // that a caller may save the map right after stop() returns (R-ROS-5).
    if (!on_worker) {
      std::unique_lock<std::mutex> lock(mutex_);
      idle_cv_.wait(lock, [this] { return worker_exited_; });
    }
    return;
  }
  {
    // Taking the lock orders the flag change with the worker's predicate check: without it the
    // worker could test running_ just before the store and sleep through the notification.
    std::lock_guard<std::mutex> lock(mutex_);
  }
  input_cv_.notify_all();
  if (on_worker) {
    logger_->warn("stop() called from the worker thread (inside a callback): input stopped, the worker exits after this event");
    return;
  }
  if (worker_.joinable()) worker_.join();
}

bool AsyncOdometryEstimation::ok() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return !tripped_;
}

std::string AsyncOdometryEstimation::failure_reason() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failure_reason_;
}

AsyncOdometryEstimationStats AsyncOdometryEstimation::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void AsyncOdometryEstimation::loop() {
  worker_id_.store(std::this_thread::get_id());

  while (true) {
    Event event;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      input_cv_.wait(lock, [this] { return !running_ || queued_locked() > 0; });
      if (!running_) break;

      // Exactly one event per lock window: the head with the earliest sensor time (R-EXEC-4).
      // On equal stamps the IMU sample goes first (a frame or an image needs the IMU up to its
      // time), then the frame, then the image.
      event.stream = StreamId::NONE;
      double earliest = 0.0;
      auto consider = [&](bool present, double stamp, StreamId stream) {
        if (present && (event.stream == StreamId::NONE || stamp < earliest)) {
          event.stream = stream;
          earliest = stamp;
        }
      };
      consider(!imu_queue_.empty(), imu_queue_.empty() ? 0.0 : imu_queue_.front().stamp, StreamId::IMU);
      consider(!frame_queue_.empty(), frame_queue_.empty() ? 0.0 : frame_queue_.front()->stamp, StreamId::LIDAR);
      consider(!image_queue_.empty(), image_queue_.empty() ? 0.0 : image_queue_.front()->stamp, StreamId::CAMERA);
      if (event.stream == StreamId::IMU) {
        event.imu = imu_queue_.pop_front();
      } else if (event.stream == StreamId::LIDAR) {
        event.frame = frame_queue_.pop_front();
      } else {
        event.image = image_queue_.pop_front();
      }

      if (tripped_) {
        ++stats_.discarded_after_trip;
        idle_cv_.notify_all();
        continue;
      }
      processing_ = true;  // in the same lock window as the pop: wait_idle never sees a gap
    }

    std::uint64_t steps = 0;
    std::string failure = feed(event, steps);

    // Sampled after failed events too: a frontend that threw may still hold work.
    int frontend_workload = 0;
    try {
      frontend_workload = odometry_->workload();
    } catch (const std::exception& e) {
      if (failure.empty()) failure = std::string("workload() threw: ") + e.what();
    } catch (...) {
      if (failure.empty()) failure = "workload() threw a non-standard exception";
    }

    {
      std::lock_guard<std::mutex> lock(mutex_);
      processing_ = false;
      odometry_workload_ = frontend_workload;
      stats_.process_once_calls += steps;
      if (event.stream == StreamId::IMU) {
        ++stats_.imu_processed;
      } else if (event.stream == StreamId::LIDAR) {
        ++stats_.frames_processed;
      } else {
        ++stats_.images_processed;
      }
      record_result_locked(failure, event);
    }
    idle_cv_.notify_all();
  }

  {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.discarded_at_stop += queued_locked();
    imu_queue_.clear();
    frame_queue_.clear();
    image_queue_.clear();
    processing_ = false;
    worker_exited_ = true;
  }
  idle_cv_.notify_all();
}

std::string AsyncOdometryEstimation::feed(Event& event, std::uint64_t& steps) {
  // Input slots first, so every subscriber sees exactly what the frontend sees (R-EXEC-5). A
  // throwing subscriber is its own problem and must not count against the frontend.
  try {
    if (event.stream == StreamId::IMU) {
      OdometryCallbacks::on_insert_imu(event.imu);
    } else if (event.stream == StreamId::LIDAR) {
      OdometryCallbacks::on_insert_frame(event.frame);
    } else {
      OdometryCallbacks::on_insert_image(event.image);
    }
  } catch (const std::exception& e) {
    logger_->error("an on_insert_{} callback threw at stamp {:.6f}: {}", event.kind(), event.stamp(), e.what());
  } catch (...) {
    logger_->error("an on_insert_{} callback threw a non-standard exception at stamp {:.6f}", event.kind(), event.stamp());
  }

  try {
    if (event.stream == StreamId::IMU) {
      odometry_->insert_imu(event.imu);
    } else if (event.stream == StreamId::LIDAR) {
      odometry_->insert_frame(event.frame);
    } else {
      odometry_->insert_image(event.image);
    }
    // Drain everything this one event made possible before taking the next (R-EXEC-5).
    while (odometry_->process_once()) ++steps;
    if (!odometry_->ok()) return "the frontend reports ok() == false";
  } catch (const std::exception& e) {
    return std::string("exception: ") + e.what();
  } catch (...) {
    return "non-standard exception";
  }
  return "";
}

void AsyncOdometryEstimation::record_result_locked(const std::string& failure, const Event& event) {
  if (failure.empty()) {
    consecutive_failures_ = 0;
    return;
  }
  ++stats_.failures;
  ++consecutive_failures_;
  logger_->warn("frontend failed on the {} at stamp {:.6f} ({} of {} consecutive failures allowed): {}", event.kind(), event.stamp(),
                consecutive_failures_, params_.max_consecutive_failures, failure);
  if (consecutive_failures_ >= params_.max_consecutive_failures && !tripped_) {
    tripped_ = true;
    failure_reason_ = "circuit breaker tripped after " + std::to_string(consecutive_failures_) + " consecutive failures; last one on the " +
                      event.kind() + " at stamp " + std::to_string(event.stamp()) + ": " + failure;
    logger_->error("{}. The frontend is no longer fed; further input is discarded", failure_reason_);
  }
}

}  // namespace asuka
