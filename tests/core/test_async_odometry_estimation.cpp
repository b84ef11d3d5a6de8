// AsyncOdometryEstimation against the fake frontend plugin, loaded through load_module.
// Requirements: R-EXEC-1..11, R-CB-1, R-PLUG-1.

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <asuka/config/config.hpp>
#include <asuka/core/async_odometry_estimation.hpp>
#include <asuka/core/callbacks.hpp>

#include "test_support.hpp"

namespace asuka::test {
namespace {

using namespace std::chrono_literals;

ImuData imu_at(double stamp) {
  ImuData imu;
  imu.stamp = stamp;
  imu.acc = Eigen::Vector3d(0, 0, 9.81);
  return imu;
}

LidarFrame::ConstPtr frame_at(double stamp) {
  auto frame = std::make_shared<LidarFrame>();
  frame->stamp = stamp;
  frame->points.resize(3);
  return frame;
}

Image::ConstPtr image_at(double stamp) {
  auto image = std::make_shared<Image>();
  image->stamp = stamp;
  image->width = 4;
  image->height = 2;
  image->stride = 4;
  image->pixels = std::shared_ptr<const std::uint8_t>(new std::uint8_t[8](), std::default_delete<std::uint8_t[]>());
  return image;
}

std::vector<std::string> calls_of(FakeProbe* probe) {
  std::lock_guard<std::mutex> lock(probe->mutex);
  return probe->calls;
}

std::vector<double> stamps_of(FakeProbe* probe) {
  std::lock_guard<std::mutex> lock(probe->mutex);
  return probe->fed_stamps;
}

class AsyncOdometryEstimationTest : public ::testing::Test {
protected:
  void SetUp() override {
    odometry = load_fake(&probe);
    ASSERT_TRUE(odometry);
    ASSERT_NE(probe, nullptr);
  }

  std::unique_ptr<AsyncOdometryEstimation> make(const AsyncOdometryEstimationParams& params = {}) {
    return std::make_unique<AsyncOdometryEstimation>(odometry, params);
  }

  OdometryEstimation::Ptr odometry;
  FakeProbe* probe = nullptr;
};

// R-EXEC-1: constructing starts the worker (events are processed without any other call);
// destroying stops it (the destructor returns, the thread is joined).
TEST_F(AsyncOdometryEstimationTest, R_EXEC_1_ConstructionStartsWorkerAndDestructionStopsIt) {
  auto async = make();
  EXPECT_TRUE(async->running());
  ASSERT_TRUE(async->insert_imu(imu_at(0.1)));
  ASSERT_TRUE(async->wait_for(10s));
  EXPECT_EQ(stamps_of(probe), std::vector<double>({0.1}));
  async.reset();  // must not hang
  SUCCEED();
}

TEST_F(AsyncOdometryEstimationTest, R_EXEC_1_NullFrontendIsRejected) {
  EXPECT_THROW(AsyncOdometryEstimation(nullptr), std::invalid_argument);
}

// R-EXEC-4: interleaving by sensor time across the two queues. Everything is queued while the
// frontend is blocked in its first event, so the worker's choice alone decides the order.
TEST_F(AsyncOdometryEstimationTest, R_EXEC_4_InterleavesBySensorTimeAcrossQueues) {
  auto async = make();
  probe->hold();
  async->insert_imu(imu_at(0.0));
  ASSERT_TRUE(probe->wait_blocked());

  async->insert_frame(frame_at(0.25));
  async->insert_frame(frame_at(0.15));  // frames keep arrival order within their queue
  async->insert_imu(imu_at(0.1));
  async->insert_imu(imu_at(0.2));
  async->insert_imu(imu_at(0.3));
  async->insert_frame(frame_at(0.35));
  async->insert_imu(imu_at(0.35));  // equal stamps: the IMU sample goes first
  probe->release();
  ASSERT_TRUE(async->wait_for(10s));

  // Heads compared: imu 0.1 < frame 0.25; imu 0.2 < 0.25; imu 0.3 > 0.25 -> frame 0.25; then frame
  // 0.15 is the head (< 0.3); then imu 0.3; imu 0.35 vs frame 0.35 -> imu first.
  EXPECT_EQ(stamps_of(probe), std::vector<double>({0.0, 0.1, 0.2, 0.25, 0.15, 0.3, 0.35, 0.35}));
  const auto calls = calls_of(probe);
  std::vector<std::string> inserts;
  for (const auto& c : calls) {
    if (c.rfind("insert", 0) == 0) inserts.push_back(c);
  }
  ASSERT_EQ(inserts.size(), 8u);
  EXPECT_EQ(inserts[6], "insert imu 0.350000");
  EXPECT_EQ(inserts[7], "insert frame 0.350000");
}

// R-EXEC-4 with the camera (#13): images are a third queue, interleaved by sensor time with IMU and
// frames; on equal stamps the IMU goes first, then the frame, then the image.
TEST_F(AsyncOdometryEstimationTest, R_EXEC_4_ImagesInterleaveBySensorTimeAsAThirdStream) {
  std::vector<double> slot_images;
  auto image_slot = connect(OdometryCallbacks::on_insert_image, [&](const Image::ConstPtr& image) {
    slot_images.push_back(image->stamp);
    probe->log(fmt::format("slot image {:.6f}", image->stamp));
  });
  auto async = make();
  probe->hold();
  async->insert_imu(imu_at(0.0));
  ASSERT_TRUE(probe->wait_blocked());

  async->insert_image(image_at(0.12));
  async->insert_image(image_at(0.2));
  async->insert_frame(frame_at(0.2));
  async->insert_imu(imu_at(0.1));
  async->insert_imu(imu_at(0.2));
  async->insert_image(image_at(0.05));  // older than the queue's head: images keep arrival order too
  EXPECT_FALSE(async->insert_image(nullptr));
  probe->release();
  ASSERT_TRUE(async->wait_for(10s));

  // Heads: imu 0.1 < image 0.12 < frame 0.2; image 0.12; then imu 0.2, frame 0.2, image 0.2 tie in
  // that order; then image 0.05.
  EXPECT_EQ(stamps_of(probe), std::vector<double>({0.0, 0.1, 0.12, 0.2, 0.2, 0.2, 0.05}));
  std::vector<std::string> inserts;
  for (const auto& c : calls_of(probe)) {
    if (c.rfind("insert", 0) == 0 || c.rfind("slot", 0) == 0) inserts.push_back(c);
  }
  const std::vector<std::string> expected = {"insert imu 0.000000",   "insert imu 0.100000", "slot image 0.120000",   "insert image 0.120000",
                                             "insert imu 0.200000",   "insert frame 0.200000", "slot image 0.200000", "insert image 0.200000",
                                             "slot image 0.050000",   "insert image 0.050000"};
  EXPECT_EQ(inserts, expected);  // R-EXEC-5: the slot right before the frontend sees the image
  const auto stats = async->stats();
  EXPECT_EQ(stats.images_inserted, 3u);
  EXPECT_EQ(stats.images_rejected, 1u);
  EXPECT_EQ(stats.images_processed, 3u);
  EXPECT_EQ(slot_images, std::vector<double>({0.12, 0.2, 0.05}));
}

// R-EXEC-2, R-EXEC-3, R-EXEC-8 for images: a full image queue drops its oldest, counted; images
// after stop() are rejected; leftovers are discarded and counted.
TEST_F(AsyncOdometryEstimationTest, R_EXEC_2_R_EXEC_8_ImageQueueOverflowsAndStopsLikeTheOthers) {
  AsyncOdometryEstimationParams params;
  params.image_queue_capacity = 3;
  auto async = make(params);
  probe->hold();
  async->insert_imu(imu_at(0.0));
  ASSERT_TRUE(probe->wait_blocked());
  for (int i = 1; i <= 7; ++i) async->insert_image(image_at(i));
  EXPECT_EQ(async->queued_events(), 3u);
  EXPECT_EQ(async->workload(), 3);
  probe->release();
  ASSERT_TRUE(async->wait_for(10s));
  EXPECT_EQ(stamps_of(probe), std::vector<double>({0.0, 5, 6, 7}));
  EXPECT_EQ(async->stats().image_overflow, 4u);

  probe->hold();
  async->insert_imu(imu_at(10.0));
  ASSERT_TRUE(probe->wait_blocked());
  async->insert_image(image_at(11.0));
  std::thread stopper([&] { async->stop(); });
  // stop() sets end_of_sequence first: wait until images are refused, then let the worker go.
  while (async->insert_image(image_at(11.5))) std::this_thread::yield();
  probe->release();
  stopper.join();
  EXPECT_FALSE(async->insert_image(image_at(12.0)));
  const auto stats = async->stats();
  EXPECT_GE(stats.images_rejected, 2u);
  EXPECT_GE(stats.discarded_at_stop, 1u);
  EXPECT_EQ(stats.images_processed, 3u);  // 11.0 and later never reached the frontend
  EXPECT_EQ(stamps_of(probe), std::vector<double>({0.0, 5, 6, 7, 10.0}));
}

// R-EXEC-4: exactly one event leaves the queues per lock window, and the lock is not held while
// the frontend runs (the frontend can query the executor from inside insert without deadlock).
TEST_F(AsyncOdometryEstimationTest, R_EXEC_4_OneEventPerLockWindow) {
  auto async = make();
  std::vector<std::size_t> queued_at_feed;
  {
    std::lock_guard<std::mutex> lock(probe->mutex);
    probe->on_feed = [&](bool, double) { queued_at_feed.push_back(async->queued_events()); };
  }
  probe->hold();
  async->insert_imu(imu_at(0.0));
  ASSERT_TRUE(probe->wait_blocked());
  for (int i = 1; i <= 6; ++i) {
    if (i % 3 == 0) {
      async->insert_frame(frame_at(i * 0.01));
    } else {
      async->insert_imu(imu_at(i * 0.01));
    }
  }
  EXPECT_EQ(async->queued_events(), 6u);
  probe->release();
  ASSERT_TRUE(async->wait_for(10s));
  {
    std::lock_guard<std::mutex> lock(probe->mutex);
    probe->on_feed = nullptr;
  }
  // First event saw an empty queue; then each event removed exactly one: 5, 4, ..., 0.
  EXPECT_EQ(queued_at_feed, std::vector<std::size_t>({0, 5, 4, 3, 2, 1, 0}));
}

// R-EXEC-5, R-CB-1: the input slot fires before the frontend sees the event, and process_once()
// is drained after every event before the next event's slot fires.
TEST_F(AsyncOdometryEstimationTest, R_EXEC_5_R_CB_1_SlotBeforeFeedAndDrainAfterEveryEvent) {
  {
    std::lock_guard<std::mutex> lock(probe->mutex);
    probe->process_steps_per_event = 2;
  }
  auto imu_slot = connect(OdometryCallbacks::on_insert_imu, [&](const ImuData& imu) { probe->log(fmt::format("slot imu {:.6f}", imu.stamp)); });
  auto frame_slot =
    connect(OdometryCallbacks::on_insert_frame, [&](const LidarFrame::ConstPtr& frame) { probe->log(fmt::format("slot frame {:.6f}", frame->stamp)); });
  auto new_frame_slot =
    connect(OdometryCallbacks::on_new_frame, [&](const EstimationFrame::ConstPtr& f) { probe->log(fmt::format("new_frame {:.6f}", f->stamp)); });

  auto async = make();
  async->insert_imu(imu_at(0.1));
  async->insert_frame(frame_at(0.2));
  ASSERT_TRUE(async->wait_for(10s));

  const std::vector<std::string> expected = {
    "slot imu 0.100000",   "insert imu 0.100000",   "process_once", "process_once", "process_once",
    "slot frame 0.200000", "insert frame 0.200000", "process_once", "process_once", "new_frame 0.200000", "process_once",
  };
  EXPECT_EQ(calls_of(probe), expected);
  EXPECT_EQ(async->stats().process_once_calls, 4u);
}

// R-EXEC-6, R-EXEC-7: workload counts queued events plus the frontend's own workload; wait_idle
// returns only when all three conditions hold, with producers on several threads.
TEST_F(AsyncOdometryEstimationTest, R_EXEC_6_R_EXEC_7_WorkloadAndWaitIdleUnderConcurrency) {
  {
    std::lock_guard<std::mutex> lock(probe->mutex);
    probe->process_steps_per_event = 1;
  }
  auto async = make();
  constexpr int kProducers = 4;
  constexpr int kImuPerProducer = 400;
  constexpr int kFramesPerProducer = 10;

  std::atomic<bool> done{false};
  std::thread observer([&] {
    // Concurrent readers of every const query; TSan checks they are race-free.
    while (!done) {
      EXPECT_GE(async->workload(), 0);
      (void)async->wait_for(1ms);
      (void)async->stats();
    }
  });

  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (int i = 0; i < kImuPerProducer; ++i) {
        const double t = p * 100.0 + i * 0.005;
        EXPECT_TRUE(async->insert_imu(imu_at(t)));
        if (i % (kImuPerProducer / kFramesPerProducer) == 0) {
          EXPECT_TRUE(async->insert_frame(frame_at(t)));
        }
        // Back-pressure as a bag player applies it (R-ROS-7): never overflow the queues.
        EXPECT_TRUE(async->wait_queued_at_most(40, 10s));
      }
    });
  }
  for (auto& t : producers) t.join();
  async->wait_idle();
  done = true;
  observer.join();

  EXPECT_EQ(async->workload(), 0);
  EXPECT_EQ(async->queued_events(), 0u);
  const auto stats = async->stats();
  EXPECT_EQ(stats.imu_processed, static_cast<std::uint64_t>(kProducers * kImuPerProducer));
  EXPECT_EQ(stats.frames_processed, static_cast<std::uint64_t>(kProducers * kFramesPerProducer));
  EXPECT_EQ(stats.imu_overflow + stats.frame_overflow, 0u);
  std::lock_guard<std::mutex> lock(probe->mutex);
  EXPECT_EQ(probe->imu_count, static_cast<std::size_t>(kProducers * kImuPerProducer));
  EXPECT_EQ(probe->frame_count, static_cast<std::size_t>(kProducers * kFramesPerProducer));
}

// R-EXEC-6: the frontend's workload is part of workload(), and wait_idle/wait_for wait for it.
TEST_F(AsyncOdometryEstimationTest, R_EXEC_6_R_EXEC_10_FrontendWorkloadKeepsExecutorBusy) {
  {
    std::lock_guard<std::mutex> lock(probe->mutex);
    probe->workload_hold = 3;
  }
  auto async = make();
  EXPECT_EQ(async->workload(), 3);  // sampled at construction
  async->insert_imu(imu_at(0.1));
  EXPECT_FALSE(async->wait_for(50ms));  // queues empty and not processing, but the frontend holds 3
  EXPECT_EQ(async->workload(), 3);
  {
    std::lock_guard<std::mutex> lock(probe->mutex);
    probe->workload_hold = 0;
  }
  async->insert_imu(imu_at(0.2));  // the worker samples the frontend's workload after each event
  EXPECT_TRUE(async->wait_for(10s));
  EXPECT_EQ(async->workload(), 0);
}

// R-ROS-7: producers can wait for the queues to drain instead of spinning on workload(), and the
// frontend's own workload does not block them (it may need more input to drop).
TEST_F(AsyncOdometryEstimationTest, R_ROS_7_WaitQueuedAtMostIsBackPressure) {
  {
    std::lock_guard<std::mutex> lock(probe->mutex);
    probe->workload_hold = 100;
  }
  auto async = make();
  EXPECT_TRUE(async->wait_queued_at_most(0, 0ms));
  probe->hold();
  async->insert_imu(imu_at(0.0));
  ASSERT_TRUE(probe->wait_blocked());
  for (int i = 1; i <= 5; ++i) async->insert_imu(imu_at(i * 0.1));
  EXPECT_EQ(async->workload(), 105);
  EXPECT_TRUE(async->wait_queued_at_most(5, 0ms));
  EXPECT_FALSE(async->wait_queued_at_most(2, 30ms));  // the frontend is stuck: times out
  std::thread releaser([&] {
    std::this_thread::sleep_for(10ms);
    probe->release();
  });
  EXPECT_TRUE(async->wait_queued_at_most(2, 10s));
  EXPECT_LE(async->queued_events(), 2u);
  releaser.join();
}

// R-EXEC-7, R-EXEC-10: an event in flight (dequeued, being processed) is not idle, even though
// the queues are empty; wait_for reports the timeout, then the drain.
TEST_F(AsyncOdometryEstimationTest, R_EXEC_7_R_EXEC_10_InFlightEventIsNotIdle) {
  auto async = make();
  probe->hold();
  async->insert_imu(imu_at(0.1));
  ASSERT_TRUE(probe->wait_blocked());
  EXPECT_EQ(async->queued_events(), 0u);
  EXPECT_FALSE(async->wait_for(50ms));

  std::atomic<bool> returned{false};
  std::thread waiter([&] {
    async->wait_idle();
    returned = true;
  });
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(returned);
  probe->release();
  waiter.join();
  EXPECT_TRUE(returned);
  EXPECT_TRUE(async->wait_for(0ms));
}

// R-EXEC-8: stop() from several threads at once: each returns, the worker is joined once, and a
// later destructor call is harmless.
TEST_F(AsyncOdometryEstimationTest, R_EXEC_8_StopIsIdempotentFromManyThreads) {
  auto async = make();
  for (int i = 0; i < 100; ++i) async->insert_imu(imu_at(i * 0.01));
  std::vector<std::thread> stoppers;
  std::atomic<int> returned{0};
  for (int i = 0; i < 8; ++i) {
    stoppers.emplace_back([&] {
      async->stop();
      // Every caller returns only once the worker no longer touches the frontend.
      EXPECT_FALSE(async->running());
      ++returned;
    });
  }
  for (auto& t : stoppers) t.join();
  EXPECT_EQ(returned, 8);
  async->stop();
  async.reset();
}

// R-EXEC-8, R-EXEC-3: after stop() every insert is rejected, counted, and nothing reaches the
// frontend; leftover queued events are discarded.
TEST_F(AsyncOdometryEstimationTest, R_EXEC_8_R_EXEC_3_InsertsAfterStopAreRejectedAndLeftoversDiscarded) {
  auto async = make();
  probe->hold();
  async->insert_imu(imu_at(0.0));
  ASSERT_TRUE(probe->wait_blocked());
  for (int i = 1; i <= 5; ++i) async->insert_imu(imu_at(i * 0.1));

  std::thread stopper([&] { async->stop(); });
  // stop() sets end_of_sequence first: wait until inserts are refused, then let the worker go.
  while (async->insert_imu(imu_at(9.0))) std::this_thread::yield();
  probe->release();
  stopper.join();

  EXPECT_FALSE(async->insert_imu(imu_at(10.0)));
  EXPECT_FALSE(async->insert_frame(frame_at(10.0)));
  const auto stats = async->stats();
  EXPECT_EQ(stats.imu_processed, 1u);  // only the event that was in flight
  EXPECT_GE(stats.discarded_at_stop, 5u);
  EXPECT_GE(stats.imu_rejected, 2u);
  EXPECT_EQ(stats.frames_rejected, 1u);
  EXPECT_EQ(async->queued_events(), 0u);
  async->wait_idle();  // returns after stop, never hangs
  EXPECT_EQ(stamps_of(probe), std::vector<double>({0.0}));
}

// R-EXEC-8: the destructor stops a busy executor (worker inside the frontend) without hanging.
TEST_F(AsyncOdometryEstimationTest, R_EXEC_8_DestructorStopsBusyExecutor) {
  auto async = make();
  probe->hold();
  async->insert_imu(imu_at(0.0));
  ASSERT_TRUE(probe->wait_blocked());
  async->insert_imu(imu_at(0.1));
  AsyncOdometryEstimation* raw = async.get();
  std::thread releaser([&] {
    // The destructor's stop() is blocked in join() until we release, so *raw is still alive.
    while (raw->running()) std::this_thread::yield();
    probe->release();
  });
  async.reset();
  releaser.join();
  EXPECT_EQ(stamps_of(probe), std::vector<double>({0.0}));
}

// R-EXEC-8: stop() from a callback on the worker thread must not deadlock (it cannot join itself).
TEST_F(AsyncOdometryEstimationTest, R_EXEC_8_StopFromWorkerCallbackDoesNotDeadlock) {
  auto async = make();
  auto slot = connect(OdometryCallbacks::on_insert_imu, [&](const ImuData& imu) {
    if (imu.stamp >= 0.2) async->stop();
  });
  async->insert_imu(imu_at(0.1));
  async->insert_imu(imu_at(0.2));
  async->insert_imu(imu_at(0.3));
  async->wait_idle();
  slot.disconnect();
  EXPECT_FALSE(async->insert_imu(imu_at(0.4)));
  async.reset();  // the destructor joins the worker that stopped itself
}

// R-EXEC-2: a full queue overwrites its oldest event; the drops are counted and the newest
// events survive.
TEST_F(AsyncOdometryEstimationTest, R_EXEC_2_OverflowDropsOldestAndIsCounted) {
  AsyncOdometryEstimationParams params;
  params.imu_queue_capacity = 4;
  params.frame_queue_capacity = 2;
  params.overflow_warn_interval = 3;
  auto async = make(params);
  probe->hold();
  async->insert_imu(imu_at(0.0));
  ASSERT_TRUE(probe->wait_blocked());
  for (int i = 1; i <= 10; ++i) async->insert_imu(imu_at(i));
  for (int i = 1; i <= 5; ++i) async->insert_frame(frame_at(100.0 + i));
  EXPECT_EQ(async->queued_events(), 6u);
  probe->release();
  ASSERT_TRUE(async->wait_for(10s));

  const auto stats = async->stats();
  EXPECT_EQ(stats.imu_overflow, 6u);
  EXPECT_EQ(stats.frame_overflow, 3u);
  EXPECT_EQ(stats.imu_inserted, 11u);
  EXPECT_EQ(stamps_of(probe), std::vector<double>({0.0, 7, 8, 9, 10, 104, 105}));
}

// R-EXEC-9, R-EXEC-11: exceptions escaping the frontend trip the breaker after the configured
// number of consecutive failures; a success in between resets the count.
TEST_F(AsyncOdometryEstimationTest, R_EXEC_9_ExceptionsTripTheBreaker) {
  AsyncOdometryEstimationParams params;
  params.max_consecutive_failures = 3;
  auto async = make(params);
  {
    std::lock_guard<std::mutex> lock(probe->mutex);
    probe->throw_on_next_inserts = 2;
  }
  async->insert_imu(imu_at(0.1));
  async->insert_imu(imu_at(0.2));
  async->insert_imu(imu_at(0.3));  // succeeds: count back to 0
  ASSERT_TRUE(async->wait_for(10s));
  EXPECT_TRUE(async->ok());
  EXPECT_EQ(async->failure_reason(), "");
  EXPECT_EQ(async->stats().failures, 2u);

  {
    std::lock_guard<std::mutex> lock(probe->mutex);
    probe->throw_on_next_inserts = 3;
  }
  async->insert_imu(imu_at(0.4));
  async->insert_imu(imu_at(0.5));
  ASSERT_TRUE(async->wait_for(10s));
  EXPECT_TRUE(async->ok());  // two in a row is not yet three
  async->insert_imu(imu_at(0.6));
  ASSERT_TRUE(async->wait_for(10s));
  EXPECT_FALSE(async->ok());
  EXPECT_NE(async->failure_reason().find("3 consecutive failures"), std::string::npos) << async->failure_reason();
  EXPECT_NE(async->failure_reason().find("fake failure at 0.600000"), std::string::npos) << async->failure_reason();

  // Tripped: input is still accepted (producers must not block) but never fed.
  EXPECT_TRUE(async->insert_imu(imu_at(0.7)));
  EXPECT_TRUE(async->insert_frame(frame_at(0.8)));
  ASSERT_TRUE(async->wait_for(10s));
  EXPECT_EQ(async->stats().discarded_after_trip, 2u);
  EXPECT_EQ(stamps_of(probe).size(), 6u);
  EXPECT_EQ(async->workload(), 0);
}

// R-EXEC-9: the frontend reporting ok() == false counts as a failure too.
TEST_F(AsyncOdometryEstimationTest, R_EXEC_9_FrontendNotOkTripsTheBreaker) {
  AsyncOdometryEstimationParams params;
  params.max_consecutive_failures = 2;
  auto async = make(params);
  async->insert_imu(imu_at(0.1));
  ASSERT_TRUE(async->wait_for(10s));
  EXPECT_TRUE(async->ok());
  {
    std::lock_guard<std::mutex> lock(probe->mutex);
    probe->ok = false;
  }
  async->insert_imu(imu_at(0.2));
  ASSERT_TRUE(async->wait_for(10s));
  EXPECT_TRUE(async->ok());
  async->insert_frame(frame_at(0.3));
  ASSERT_TRUE(async->wait_for(10s));
  EXPECT_FALSE(async->ok());
  EXPECT_NE(async->failure_reason().find("ok() == false"), std::string::npos) << async->failure_reason();
  async->insert_imu(imu_at(0.4));
  ASSERT_TRUE(async->wait_for(10s));
  EXPECT_EQ(stamps_of(probe), std::vector<double>({0.1, 0.2, 0.3}));
}

// A throwing subscriber is logged but neither blocks the frontend nor counts as its failure.
TEST_F(AsyncOdometryEstimationTest, R_CB_1_ThrowingSubscriberDoesNotStarveFrontend) {
  AsyncOdometryEstimationParams params;
  params.max_consecutive_failures = 1;
  auto async = make(params);
  auto slot = connect(OdometryCallbacks::on_insert_imu, [](const ImuData&) { throw std::runtime_error("subscriber bug"); });
  async->insert_imu(imu_at(0.1));
  async->insert_imu(imu_at(0.2));
  ASSERT_TRUE(async->wait_for(10s));
  EXPECT_TRUE(async->ok());
  EXPECT_EQ(stamps_of(probe), std::vector<double>({0.1, 0.2}));
}

TEST(AsyncOdometryEstimationParamsTest, ReadsAndValidatesConfig) {
  auto config = Config::parse(R"({"executor": {"imu_queue_capacity": 10, "max_consecutive_failures": 2}})", "config_ros.json");
  const auto params = AsyncOdometryEstimationParams::from_config(config);
  EXPECT_EQ(params.imu_queue_capacity, 10u);
  EXPECT_EQ(params.frame_queue_capacity, 50u);
  EXPECT_EQ(params.image_queue_capacity, 50u);
  EXPECT_EQ(params.max_consecutive_failures, 2);
  const auto images = AsyncOdometryEstimationParams::from_config(Config::parse(R"({"executor": {"image_queue_capacity": 7}})", "config_ros.json"));
  EXPECT_EQ(images.image_queue_capacity, 7u);
  EXPECT_THROW(AsyncOdometryEstimationParams::from_config(Config::parse(R"({"executor": {"image_queue_capacity": 0}})", "config_ros.json")),
               ConfigError);

  auto bad = Config::parse(R"({"executor": {"max_consecutive_failures": 0}})", "config_ros.json");
  try {
    AsyncOdometryEstimationParams::from_config(bad);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("executor.max_consecutive_failures"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace asuka::test
