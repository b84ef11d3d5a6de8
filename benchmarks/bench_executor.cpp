// Throughput of AsyncOdometryEstimation with a no-op frontend: the cost of the concurrency boundary
// itself (lock, ring buffer, wake-up, slot emission, drain loop) per event. IMU and frames are
// interleaved as a real sensor pair produces them (ratio set by the benchmark argument, e.g. 20 IMU
// samples per frame = 200 Hz IMU with a 10 Hz lidar). Results: benchmarks/README.md.

#include <memory>
#include <thread>

#include <benchmark/benchmark.h>

#include <asuka/core/async_odometry_estimation.hpp>
#include <asuka/core/callbacks.hpp>
#include <asuka/util/logging.hpp>

namespace {

class NoOpFrontend : public asuka::OdometryEstimation {
public:
  void insert_imu(const asuka::ImuData& imu) override { last_ = imu.stamp; }
  void insert_frame(const asuka::LidarFrame::ConstPtr& frame) override { last_ = frame->stamp; }
  void insert_image(const asuka::Image::ConstPtr& image) override { last_ = image->stamp; }
  double last_ = 0.0;
};

// Producer on the benchmark thread, worker on its own: events/s through the whole boundary.
// Back-pressure keeps the queues from overflowing, as asuka_rosbag does (R-ROS-7).
void BM_ExecutorInterleaved(benchmark::State& state) {
  asuka::set_module_log_level("exec", spdlog::level::err);
  const int imu_per_frame = static_cast<int>(state.range(0));
  const bool with_subscriber = state.range(1) != 0;
  asuka::ScopedConnection connection;
  if (with_subscriber) connection = asuka::connect(asuka::OdometryCallbacks::on_insert_imu, [](const asuka::ImuData& imu) { benchmark::DoNotOptimize(imu.stamp); });

  auto frame = std::make_shared<asuka::LidarFrame>();
  frame->points.resize(20000);
  constexpr int kEventsPerIteration = 10000;
  asuka::AsyncOdometryEstimation async(std::make_shared<NoOpFrontend>());

  double t = 0.0;
  for (auto _ : state) {
    for (int i = 0; i < kEventsPerIteration; ++i) {
      t += 0.005;
      if (i % (imu_per_frame + 1) == imu_per_frame) {
        auto f = std::make_shared<asuka::LidarFrame>();
        f->stamp = t;
        async.insert_frame(f);
      } else {
        asuka::ImuData imu;
        imu.stamp = t;
        async.insert_imu(imu);
      }
      // Back-pressure with hysteresis, below the frame queue's capacity (50) so nothing overflows:
      // when 40 events are pending, sleep until at most 8 are (one wake-up per ~32 events).
      if ((i & 7) == 0 && async.queued_events() > 40) async.wait_queued_at_most(8, std::chrono::seconds(10));
    }
    async.wait_idle();
  }
  const auto stats = async.stats();
  state.counters["overflow"] = static_cast<double>(stats.imu_overflow + stats.frame_overflow);
  state.SetItemsProcessed(state.iterations() * kEventsPerIteration);
}
BENCHMARK(BM_ExecutorInterleaved)->Args({20, 0})->Args({20, 1})->Args({1, 0})->UseRealTime()->Unit(benchmark::kMillisecond);

// #13: three streams, as a LiDAR-inertial-visual rig produces them: 200 Hz IMU, 10 Hz lidar, 20 Hz
// camera (640x512 mono8 images, shared, not copied): per 10 ms, two IMU samples, and a frame or an
// image in turn, so 20 IMU : 1 frame : 2 images.
void BM_ExecutorThreeStreams(benchmark::State& state) {
  asuka::set_module_log_level("exec", spdlog::level::err);
  auto pixels = std::shared_ptr<const std::uint8_t>(new std::uint8_t[640 * 512](), std::default_delete<std::uint8_t[]>());
  constexpr int kEventsPerIteration = 10000;
  asuka::AsyncOdometryEstimation async(std::make_shared<NoOpFrontend>());
  double t = 0.0;
  int step = 0;
  for (auto _ : state) {
    for (int i = 0; i < kEventsPerIteration; ++i) {
      const int k = step++ % 23;  // 20 IMU, 1 frame, 2 images per 0.1 s
      t += 0.1 / 23.0;
      if (k == 7) {
        auto f = std::make_shared<asuka::LidarFrame>();
        f->stamp = t;
        async.insert_frame(f);
      } else if (k == 3 || k == 15) {
        auto image = std::make_shared<asuka::Image>();
        image->stamp = t;
        image->width = 640;
        image->height = 512;
        image->stride = 640;
        image->pixels = pixels;
        async.insert_image(image);
      } else {
        asuka::ImuData imu;
        imu.stamp = t;
        async.insert_imu(imu);
      }
      if ((i & 7) == 0 && async.queued_events() > 40) async.wait_queued_at_most(8, std::chrono::seconds(10));
    }
    async.wait_idle();
  }
  const auto stats = async.stats();
  state.counters["overflow"] = static_cast<double>(stats.imu_overflow + stats.frame_overflow + stats.image_overflow);
  state.counters["images"] = static_cast<double>(stats.images_processed);
  state.SetItemsProcessed(state.iterations() * kEventsPerIteration);
}
BENCHMARK(BM_ExecutorThreeStreams)->UseRealTime()->Unit(benchmark::kMillisecond);

// Latency of one event through an idle executor: insert, then wait until it was processed.
void BM_ExecutorRoundTrip(benchmark::State& state) {
  asuka::AsyncOdometryEstimation async(std::make_shared<NoOpFrontend>());
  double t = 0.0;
  for (auto _ : state) {
    asuka::ImuData imu;
    imu.stamp = (t += 0.005);
    async.insert_imu(imu);
    async.wait_idle();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ExecutorRoundTrip)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
