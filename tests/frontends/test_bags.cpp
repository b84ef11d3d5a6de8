// Every frontend through bags and the ROS decoders: a spinning lidar at vehicle speed, and the faults
// that live in the messages themselves (#5): per-point time in the wrong unit, NaN points and empty clouds each give a warning
// counted by kind, no crash, and a trajectory that still follows the ground truth. The faults of the
// streams (loop, IMU gap, out-of-order IMU, dropped frames) are in the conformance suite, in memory
// (test_conformance.cpp).

#include <string>
#include <tuple>

#include <gtest/gtest.h>
#include "support/frontend_names.hpp"
#include "support/host_run.hpp"
#include "support/sim_run.hpp"

namespace asuka {
namespace {

enum class Fault { WRONG_TIME_UNIT, NAN_POINTS, EMPTY_FRAMES };

std::string name_of(Fault f) {
  switch (f) {
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
  const auto run = simulate_and_run(p, lidar_type, odometry);

  EXPECT_TRUE(run.ok);
  ASSERT_GE(run.trajectory.size(), 40u);
  for (std::size_t i = 1; i < run.trajectory.size(); ++i) ASSERT_GT(run.trajectory[i].stamp, run.trajectory[i - 1].stamp) << i;
  const auto warnings = [&](const std::string& kind) {
    const auto it = run.stats.warnings.find(kind);
    return it == run.stats.warnings.end() ? 0u : it->second;
  };
  switch (fault) {
    case Fault::WRONG_TIME_UNIT: EXPECT_GE(warnings("point_time_unit"), 1u); break;
    case Fault::NAN_POINTS: EXPECT_GE(warnings("non_finite_points"), 1u); break;
    case Fault::EMPTY_FRAMES: EXPECT_GE(warnings("empty_cloud") + warnings("empty_after_preprocess"), 1u); break;
  }
  EXPECT_LT(run.eval.ate.rmse, 0.05);
}

// A spinning lidar through the PointCloud2 decoder at vehicle speed, for every frontend. A level
// spinning lidar draws walls as scan lines: collinear neighbours made fastlio 24 cm off before
// fit_plane rejected them, and 3.8 cm before the absolute residual gate.
class SpinningLidarTest : public test::SimRunTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(SpinningLidarTest, Vlp16VehicleTracksTheGroundTruth) {
  sim::SimParams p;
  p.lidar = "vlp16";
  p.duration = 15.0;
  p.trajectory.profile = "vehicle";
  const auto run = simulate_and_run(p, "velodyne", R"({"so_name": ")" + GetParam() + R"(", "sensor": {"extrinsic_t": [0.0, 0.0, 0.12]}})");
  EXPECT_TRUE(run.ok);
  EXPECT_GE(run.trajectory.size(), 140u);
  EXPECT_LT(run.eval.ate.rmse, 0.03);  // measured 2.0 cm (fastlio) and 1.3 cm (batchlio) before #17, 1.2 and 1.0 cm after
}

INSTANTIATE_TEST_SUITE_P(Frontends, SpinningLidarTest, ::testing::ValuesIn(test::frontend_names()),
                         [](const ::testing::TestParamInfo<std::string>& param) { return param.param; });

// #17: a spinning lidar's accuracy must not depend on the seed. The issue's 12 s VLP-16 vehicle bags
// (asuka_sim --lidar vlp16 --profile vehicle --duration 12 --seed 2, 3, 5) ended 1.72, 0.82 and 1.22 m
// off with fastlio, 1.00, 0.29 and 0.09 m with superlio and 8, 5 and 14 cm with batchlio while planes
// were fitted to strips of one scan line (docs/frontends/fastlio.md, "Planes on sparse lidars");
// with the plane-spread rule all nine are 2-5 cm. Origin-aligned, so that drift is not fitted away.
class SeedTest : public ::testing::TestWithParam<std::string> {
protected:
  void TearDown() override { GlobalConfig::instance().clear(); }
};

TEST_P(SeedTest, Issue17_Vlp16VehicleHoldsOnEverySeed) {
  for (const std::uint64_t seed : {2u, 3u, 5u}) {
    SCOPED_TRACE(seed);
    sim::SimParams p;
    p.lidar = "vlp16";
    p.duration = 12.0;
    p.trajectory.profile = "vehicle";
    p.seed = seed;
    const auto run = test::run_in_memory(p, R"({"so_name": ")" + GetParam() + R"(", "sensor": {"extrinsic_t": [0.0, 0.0, 0.12]}})");
    EXPECT_TRUE(run.ok);
    EXPECT_GE(run.trajectory.size(), 100u);
    eval::EvalParams origin;
    origin.align = false;
    origin.align_origin = true;
    const double ate = eval::evaluate(run.trajectory, run.sim.ground_truth, origin).ate.rmse;
    std::printf("%s seed %llu: origin-aligned ATE %.4f m\n", GetParam().c_str(), static_cast<unsigned long long>(seed), ate);
    EXPECT_LT(ate, 0.08);
  }
}

INSTANTIATE_TEST_SUITE_P(LidarFrontends, SeedTest, ::testing::Values("fastlio", "batchlio", "superlio"),
                         [](const ::testing::TestParamInfo<std::string>& param) { return param.param; });

INSTANTIATE_TEST_SUITE_P(Frontends, FaultTest,
                         ::testing::Combine(::testing::ValuesIn(test::frontend_names()),
                                            ::testing::Values(Fault::WRONG_TIME_UNIT, Fault::NAN_POINTS, Fault::EMPTY_FRAMES)),
                         [](const ::testing::TestParamInfo<std::tuple<std::string, Fault>>& param) {
                           return std::get<0>(param.param) + "_" + name_of(std::get<1>(param.param));
                         });

}  // namespace
}  // namespace asuka

namespace asuka {
namespace {

/// #15: the same simulated recording as a ROS 1 bag and as ROS 2 bags (MCAP, SQLite3) gives
/// byte-identical trajectories: one decoding path after deserialization, nothing lost on the way.
class Ros2Test : public test::SimRunTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(Ros2Test, RosbagFormatsGiveIdenticalTrajectories) {
  const std::string lidar = GetParam();
  sim::SimParams p;
  p.lidar = lidar;
  p.duration = 6.0;
  p.trajectory.static_duration = 1.5;
  p.trajectory.ramp_duration = 1.0;
  const std::string lidar_type = lidar == "avia" ? "livox" : lidar == "vlp16" ? "velodyne" : "ouster";
  const std::string odometry = R"({"so_name": "fastlio"})";
  std::vector<std::vector<StampedPose>> trajectories;
  for (const char* format : {"ros1", "ros2-mcap", "ros2-sqlite"}) {
    p.format = format;
    const auto run = simulate_and_run(p, lidar_type, odometry, format);
    EXPECT_TRUE(run.ok) << format;
    EXPECT_GE(run.trajectory.size(), 30u) << format;
    trajectories.push_back(run.trajectory);
    GlobalConfig::instance().clear();
  }
  for (std::size_t k = 1; k < trajectories.size(); ++k) {
    ASSERT_EQ(trajectories[k].size(), trajectories[0].size()) << k;
    for (std::size_t i = 0; i < trajectories[0].size(); ++i) {
      ASSERT_EQ(trajectories[k][i].stamp, trajectories[0][i].stamp) << k << " " << i;
      ASSERT_TRUE(trajectories[k][i].T_world_imu.matrix() == trajectories[0][i].T_world_imu.matrix()) << k << " " << i;  // bit for bit
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Lidars, Ros2Test, ::testing::Values("avia", "vlp16", "os1-64"));

}  // namespace
}  // namespace asuka
