// Every filter frontend on the simulator's faults (#5): a looped bag, an IMU gap, out-of-order IMU,
// per-point time in the wrong unit, NaN points and empty frames each give a warning (counted by the
// host or logged by the frontend), no crash, and a trajectory that still follows the ground truth.
// After a loop-back the frontends keep their state and skip the older data: the trajectory is the
// first pass (docs/frontends/fastlio.md, "Faults").

#include <string>
#include <tuple>

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>

#include <asuka/util/logging.hpp>

#include "support/sim_run.hpp"

namespace asuka {
namespace {

enum class Fault { LOOP, IMU_GAP, IMU_OUT_OF_ORDER, WRONG_TIME_UNIT, NAN_POINTS, EMPTY_FRAMES };

std::string name_of(Fault f) {
  switch (f) {
    case Fault::LOOP: return "Loop";
    case Fault::IMU_GAP: return "ImuGap";
    case Fault::IMU_OUT_OF_ORDER: return "ImuOutOfOrder";
    case Fault::WRONG_TIME_UNIT: return "WrongTimeUnit";
    case Fault::NAN_POINTS: return "NanPoints";
    case Fault::EMPTY_FRAMES: return "EmptyFrames";
  }
  return "?";
}

class FaultTest : public test::SimRunTest, public ::testing::WithParamInterface<std::tuple<std::string, Fault>> {};

TEST_P(FaultTest, WarnsAndKeepsTracking) {
  const auto& [frontend, fault] = GetParam();
  sim::SimParams p;
  p.duration = 8.0;
  p.trajectory.static_duration = 1.5;
  p.trajectory.ramp_duration = 1.0;
  std::string lidar_type = "livox";
  std::string odometry = R"({"so_name": ")" + frontend + R"("})";
  switch (fault) {
    case Fault::LOOP: p.faults.loop = true; break;
    case Fault::IMU_GAP:
      p.faults.imu_gap_start = 5.0;
      p.faults.imu_gap_length = 0.3;
      break;
    case Fault::IMU_OUT_OF_ORDER: p.faults.imu_out_of_order = 5; break;
    case Fault::WRONG_TIME_UNIT:
      // A spinning lidar whose driver wrote milliseconds where velodyne_pointcloud writes seconds.
      p.lidar = "vlp16";
      p.trajectory.profile = "vehicle";
      p.faults.point_time_unit = "ms";
      lidar_type = "velodyne";
      odometry = R"({"so_name": ")" + frontend + R"(", "sensor": {"extrinsic_t": [0.0, 0.0, 0.12]}})";
      break;
    case Fault::NAN_POINTS: p.faults.nan_points = 0.05; break;
    case Fault::EMPTY_FRAMES: p.faults.empty_frame_every = 10; break;
  }
  // The frontend's own warnings (the synchronizer logs through the frontend's logger).
  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(2000);
  auto logger = module_logger(frontend);
  logger->sinks().push_back(sink);
  const auto run = simulate_and_run(p, lidar_type, odometry);
  logger->sinks().pop_back();
  std::string log;
  for (const auto& line : sink->last_formatted()) log += line;

  EXPECT_TRUE(run.ok);
  ASSERT_GE(run.trajectory.size(), 40u);
  for (std::size_t i = 1; i < run.trajectory.size(); ++i) ASSERT_GT(run.trajectory[i].stamp, run.trajectory[i - 1].stamp) << i;
  const auto warnings = [&](const std::string& kind) {
    const auto it = run.stats.warnings.find(kind);
    return it == run.stats.warnings.end() ? 0u : it->second;
  };
  double bound = 0.05;
  switch (fault) {
    case Fault::LOOP:
      EXPECT_GE(run.stats.lidar_loop_backs, 1u);
      EXPECT_GE(run.stats.imu_loop_backs, 1u);
      // The second pass is older than the state: skipped, so the trajectory ends with the first.
      EXPECT_LT(run.trajectory.back().stamp - run.trajectory.front().stamp, p.duration);
      EXPECT_NE(log.find("is not after the state time"), std::string::npos);
      break;
    case Fault::IMU_GAP:
      EXPECT_NE(log.find("IMU gap"), std::string::npos) << log;
      bound = 0.10;  // 0.3 s on the last rates mid-motion
      break;
    case Fault::IMU_OUT_OF_ORDER: EXPECT_GE(run.stats.imu_loop_backs, 5u); break;
    case Fault::WRONG_TIME_UNIT: EXPECT_GE(warnings("point_time_unit"), 1u); break;
    case Fault::NAN_POINTS: EXPECT_GE(warnings("non_finite_points"), 1u); break;
    case Fault::EMPTY_FRAMES: EXPECT_GE(warnings("empty_cloud") + warnings("empty_after_preprocess"), 1u); break;
  }
  EXPECT_LT(run.eval.ate.rmse, bound);
}

INSTANTIATE_TEST_SUITE_P(Frontends, FaultTest,
                         ::testing::Combine(::testing::Values("fastlio", "batchlio"),
                                            ::testing::Values(Fault::LOOP, Fault::IMU_GAP, Fault::IMU_OUT_OF_ORDER, Fault::WRONG_TIME_UNIT,
                                                              Fault::NAN_POINTS, Fault::EMPTY_FRAMES)),
                         [](const ::testing::TestParamInfo<std::tuple<std::string, Fault>>& param) {
                           return std::get<0>(param.param) + "_" + name_of(std::get<1>(param.param));
                         });

}  // namespace
}  // namespace asuka
