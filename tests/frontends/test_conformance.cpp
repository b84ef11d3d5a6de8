// The frontend conformance suite (#11): every frontend built in this tree, by name, through the same
// checks. A new frontend gets all of them by being built (ASUKA_FRONTEND_NAMES comes from CMake's
// frontend discovery). Runs in memory through asuka::Host, with no ROS, so it also runs under
// ASan/UBSan. Checks: the plugin contract (R-PLUG-1..5), tracking a short recording, the fault
// suite, and reset() starting again from IMU initialization with the same result.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include <asuka/core/callbacks.hpp>
#include <asuka/core/odometry_estimation.hpp>
#include <asuka/io/pcd_io.hpp>
#include <asuka/lio/voxel_map.hpp>

#include "support/frontend_names.hpp"
#include "support/host_run.hpp"
#include "support/log_capture.hpp"

namespace asuka {
namespace {

using test::frontend_names;

std::string odometry_config(const std::string& name) { return R"({"so_name": ")" + name + R"("})"; }

/// A short handheld Livox Avia recording in the courtyard: 1.5 s at rest, then motion.
sim::SimParams short_recording(double duration = 8.0) {
  sim::SimParams p;
  p.duration = duration;
  p.trajectory.static_duration = 1.5;
  p.trajectory.ramp_duration = 1.0;
  return p;
}

class Conformance : public ::testing::TestWithParam<std::string> {
protected:
  void TearDown() override { GlobalConfig::instance().clear(); }
};

TEST_P(Conformance, R_PLUG_2_R_PLUG_5_LoadsByNameAlone) {
  GlobalConfig::instance().set_module("config_odometry", Config::parse(odometry_config(GetParam()), "config_odometry.json"));
  std::string error;
  auto frontend = OdometryEstimation::load_module(GetParam(), &error);
  ASSERT_TRUE(frontend) << error;
  EXPECT_TRUE(frontend->ok());
  EXPECT_TRUE(frontend->cloud_preprocessor());  // R-PLUG-4: shared with the host
  ASSERT_TRUE(frontend->imu_initialization());
  EXPECT_FALSE(frontend->imu_initialization()->is_initialized());
  EXPECT_FALSE(frontend->process_once());       // R-PLUG-1: nothing to do without input
  EXPECT_EQ(frontend->workload(), 0);
}

TEST_P(Conformance, TracksAShortRecording) {
  const auto run = test::run_in_memory(short_recording(), odometry_config(GetParam()));
  EXPECT_TRUE(run.ok);
  // 10 Hz over 8 s, less the frames of the static initialization.
  EXPECT_GE(run.trajectory.size(), 60u);
  for (std::size_t i = 1; i < run.trajectory.size(); ++i) ASSERT_GT(run.trajectory[i].stamp, run.trajectory[i - 1].stamp) << i;
  EXPECT_LT(run.eval.ate.rmse, 0.05);
  EXPECT_EQ(run.stats.warnings.size(), 0u);
}

// #21 (R-DEG-1..3): on the plain corridor nothing constrains the translation along x. Every LiDAR
// frontend flags (almost) every registered scan with that direction, reports it, and the LiDAR
// update leaves it alone: the cross-corridor and vertical errors stay at the well-conditioned
// level. The courtyard recording above is flagged nowhere.
TEST_P(Conformance, Issue21_CorridorIsFlaggedAlongItsAxis) {
  sim::SimParams p = short_recording(10.0);
  p.scene = "corridor";
  const auto run = test::run_in_memory(p, odometry_config(GetParam()));
  ASSERT_TRUE(run.ok);
  const auto& d = run.degeneracy;
  ASSERT_GE(d.scans, 60u);
  EXPECT_GE(d.degenerate_scans, d.scans * 9 / 10);
  // Every frontend restricts the update by default (batchlio since 2026-12-07; docs/degeneracy.md).
  EXPECT_TRUE(d.projected);
  ASSERT_FALSE(d.intervals.empty());
  EXPECT_GT(std::fabs(d.intervals.front().least_constrained[3]), 0.95);  // translation along world x
  ASSERT_FALSE(d.intervals.front().directions.empty());
  EXPECT_EQ(d.intervals.front().directions.front().rfind("translation along world (1.00", 0), 0u) << d.intervals.front().directions.front();
  // The scene's own truth agrees: every frame of the corridor is degenerate.
  for (const auto& [stamp, truth] : run.sim.degeneracy_truth) ASSERT_EQ(truth.degenerate, 1) << stamp;
  // batchlio's cross-corridor error is its courtyard level (1-2 cm over seeds, benchmarks/README.md
  // "Seeds"), not fastlio's: measured 0.59 cm before #17's plane-spread rule and 2.18 cm after it
  // (fewer planes per 1 ms window), with the projection off.
  const double across = GetParam() == "batchlio" ? 0.03 : 0.02;
  EXPECT_LT(run.eval.ate_axes_rmse.y(), across);
  EXPECT_LT(run.eval.ate_axes_rmse.z(), 0.02);
}

TEST_P(Conformance, Issue21_CourtyardIsNotFlagged) {
  const auto run = test::run_in_memory(short_recording(), odometry_config(GetParam()));
  ASSERT_TRUE(run.ok);
  EXPECT_GE(run.degeneracy.scans, 50u);
  // Nothing after the first half second of registrations, and at most two scans before it. There the
  // map is the first scans of a Livox rosette, whose curves are strips and not planes (#17,
  // plane_fit.hpp): superlio's sparse map flags one scan (y constrained by 0.99 % of the points
  // against 1 %); the other frontends flag none.
  ASSERT_FALSE(run.trajectory.empty());
  for (const auto& interval : run.degeneracy.intervals) EXPECT_LT(interval.end - run.trajectory.front().stamp, 0.5) << interval.begin;
  EXPECT_LE(run.degeneracy.degenerate_scans, 2u);
  for (const auto& [stamp, truth] : run.sim.degeneracy_truth) ASSERT_EQ(truth.degenerate, 0) << stamp;
}

// #16 outputs, in every frontend: the registered points carry the sensor's intensity; with
// output.dense_scan every preprocessed point comes de-skewed in the IMU frame at the scan end
// (FAST-LIO's dense /cloud_registered), the registered points among them, where the frontend put
// them; without it, no dense scan is made.
TEST_P(Conformance, Issue16_IntensityAndTheDenseDeskewedScan) {
  for (const bool dense : {true, false}) {
    SCOPED_TRACE(dense);
    EstimationFrame::ConstPtr last;
    ScopedConnection connection = connect(OdometryCallbacks::on_new_frame, [&](const EstimationFrame::ConstPtr& f) { last = f; });
    const auto run = test::run_in_memory(short_recording(5.0), R"({"so_name": ")" + GetParam() + R"(", "output": {"dense_scan": )" +
                                                                   (dense ? "true" : "false") + "}}");
    connection.disconnect();
    GlobalConfig::instance().clear();
    EXPECT_LT(run.eval.ate.rmse, 0.05);
    ASSERT_TRUE(last && last->points_imu);
    std::size_t with_intensity = 0;
    for (const auto& pt : *last->points_imu) with_intensity += pt.intensity >= 20.0f ? 1 : 0;
    EXPECT_EQ(with_intensity, last->points_imu->size());  // the simulator's returns have 20 to 199
    if (!dense) {
      EXPECT_FALSE(last->points_dense_imu);
      continue;
    }
    ASSERT_TRUE(last->points_dense_imu);
    const auto& dense_points = *last->points_dense_imu;
    EXPECT_GT(dense_points.size(), 2 * last->points_imu->size());  // every preprocessed point, not one per 0.5 m voxel
    // Each registered point has its own return among the dense ones, de-skewed to the same place (a
    // frame, extrinsic or window mix-up moves it by centimetres), with the same intensity.
    lio::VoxelMap index(lio::VoxelMapParams{0.05, lio::VoxelMap::kMaxPointsPerVoxel, 0.0, 1e4});
    std::vector<Eigen::Vector3f> positions;
    for (const auto& p : dense_points) positions.push_back(p.position());
    index.insert(positions);
    std::size_t found = 0;
    std::vector<Eigen::Vector3f> nearest;
    for (const auto& p : *last->points_imu) found += index.knn(p.position(), 1, 0.005, nearest) == 1 ? 1 : 0;
    EXPECT_GT(found, last->points_imu->size() * 99 / 100) << found << " of " << last->points_imu->size();
  }
}

// #12 item 1: a VLP-16 on a vehicle already driving at 5.5 m/s when the recording starts. The IMU
// reads as at rest; the initialization's scans registered by the LiDAR alone show the motion, and
// every frontend starts at that velocity and says so (before: 2-34 m over 20 s, exit 0).
// Also when the IMU ran a second before the LiDAR: initialization then ends on the first scan, and
// the start waits for a scan interval (before: fastlio 6.8-9.2 m, batchlio 1.4-2.2 m, superlio
// 2.4-21 m over 20 s, seeds 1-2; after 0.5-2.8 cm).
TEST_P(Conformance, Issue12_AStartAtConstantVelocityStartsAtTheLidarsVelocity) {
  for (const double late : {0.0, 1.0}) {
    SCOPED_TRACE(late);
    sim::SimParams p;
    p.lidar = "vlp16";
    p.trajectory.profile = "vehicle";
    p.duration = 6.0;
    p.trajectory.static_duration = 0.0;
    p.trajectory.ramp_duration = 0.0;
    p.faults.lidar_late_start = late;
    test::LogCapture log(GetParam());
    const auto run = test::run_in_memory(p, R"({"so_name": ")" + GetParam() + R"(", "sensor": {"extrinsic_t": [0.0, 0.0, 0.12]}})");
    EXPECT_TRUE(run.ok);
    EXPECT_TRUE(log.contains("the sensor was moving at 5.")) << log.text();
    EXPECT_EQ(log.contains("IMU initialized on the first scan"), late > 0.0) << log.text();
    EXPECT_LT(run.eval.ate.rmse, 0.05);  // measured 0.5-1.8 cm over 20 s, seeds 1-3 (late: 0.5-2.8 cm, seeds 1-2)
  }
}

// #12 item 1: a hand-held rig already swung at 4.4 m/s and 1.3 rad/s when the recording starts. The
// IMU sees the motion but not the velocity; the LiDAR alone, aided by the gyroscope, measures it over
// the initialization's scans, and every frontend starts at it (before: fastlio 0.1-44 m, batchlio
// 0.03-1.0 m, superlio 26-98 m on 12 s, seeds 1-3; after: 0.8-1.8 cm). Also when the IMU ran a
// second before the LiDAR (before: fastlio 0.24-20 m, batchlio 2.5-4.5 cm, superlio 0.1-21 m,
// seeds 1-2; after 0.8-1.5 cm): the gyroscope's rotation for the first scan is over its own sweep,
// not over the second of IMU samples its package holds.
TEST_P(Conformance, Issue12_AnAggressiveMovingStartStartsAtTheLidarsVelocity) {
  for (const double late : {0.0, 1.0}) {
    SCOPED_TRACE(late);
    sim::SimParams p;
    p.duration = 6.0;
    p.trajectory.profile = "aggressive";
    p.trajectory.static_duration = 0.0;
    p.trajectory.ramp_duration = 0.0;
    p.faults.lidar_late_start = late;
    test::LogCapture log(GetParam());
    const auto run = test::run_in_memory(p, odometry_config(GetParam()));
    EXPECT_TRUE(run.ok);
    EXPECT_TRUE(log.contains("moving start: the filter starts at the velocity the LiDAR alone measured")) << log.text();
    EXPECT_EQ(log.contains("IMU initialized on the first scan"), late > 0.0) << log.text();
    EXPECT_LT(run.eval.ate.rmse, 0.05);
  }
}

// #17 (R-IMU-5): a static start is held where it started until the IMU shows motion. A level VLP-16 in
// the generated field: its one-scan map holds no plane (the ground and the hedges are drawn as
// strips), so over the 3 s at rest the LiDAR held nothing and the IMU's bias moved the state (fastlio:
// 18 cm down by the end of the rest, then 5.9 m ATE over 12 s, exit 0). With the hold the pose stays
// put, the hold ends as the motion begins, and the run goes on from there.
TEST_P(Conformance, Issue17_AStaticStartIsHeldWhereItStarted) {
  sim::SimParams p;
  p.lidar = "vlp16";
  p.scene = "field";
  p.seed = 3;
  p.duration = 6.0;  // 3 s at rest (the default), then a 2 s ramp
  const std::string config = R"({"so_name": ")" + GetParam() + R"(", "sensor": {"extrinsic_t": [0.0, 0.0, 0.12]}})";
  test::LogCapture log(GetParam());
  const auto run = test::run_in_memory(p, config);
  ASSERT_TRUE(run.ok);
  EXPECT_TRUE(log.contains("motion began in the scan ending at 1700000003.")) << log.text();
  ASSERT_FALSE(run.trajectory.empty());
  const double rest_end = static_cast<double>(p.start_time) + p.trajectory.static_duration;
  std::size_t at_rest = 0;
  for (const auto& pose : run.trajectory) {
    if (pose.stamp >= rest_end) break;
    ++at_rest;
    EXPECT_LT((pose.T_world_imu.translation() - run.trajectory.front().T_world_imu.translation()).norm(), 0.005) << std::fixed << pose.stamp;
  }
  EXPECT_GE(at_rest, 20u);
  EXPECT_GT((run.trajectory.back().T_world_imu.translation() - run.trajectory.front().T_world_imu.translation()).norm(), 0.5) << "it moves after the rest";
}

// #17 (R-IMU-5): at rest the scans do not move the pose either. An Avia at the start of a drive in
// the generated forest: registering each scan at rest crept the pose forward, towards the trunks it
// faces, and the map followed, since every scan at rest adds to it (fastlio on a 15 s vehicle bag of
// this world, --random-motion: 2.7 cm in the first 0.1 s, 7 cm by the end of the 3 s rest; the old
// code fails this test for every frontend). The likely cause: a plane fitted to a curved patch sits
// inside it, and the Avia sees curved patches only ahead. Now a scan at rest joins the map from the
// rest pose, and rest is measured instead (v = 0, the rest pose).
TEST_P(Conformance, Issue17_AtRestTheScansDoNotMoveThePose) {
  sim::SimParams p;
  p.lidar = "avia";
  p.scene = "forest";
  p.seed = 6;
  p.duration = 4.0;  // 3 s at rest (the default), then the ramp
  test::LogCapture log(GetParam());
  const auto run = test::run_in_memory(p, odometry_config(GetParam()));
  ASSERT_TRUE(run.ok);
  EXPECT_TRUE(log.contains("motion began in the scan ending at 1700000003.")) << log.text();
  ASSERT_FALSE(run.trajectory.empty());
  const double rest_end = static_cast<double>(p.start_time) + p.trajectory.static_duration;
  const Eigen::Isometry3d& first = run.trajectory.front().T_world_imu;
  std::size_t at_rest = 0;
  for (const auto& pose : run.trajectory) {
    if (pose.stamp >= rest_end - 0.1) break;  // the scan in which the motion begins may move
    ++at_rest;
    EXPECT_LT((pose.T_world_imu.translation() - first.translation()).norm(), 0.001) << std::fixed << pose.stamp;
    EXPECT_LT(Eigen::AngleAxisd(first.linear().transpose() * pose.T_world_imu.linear()).angle(), 1e-3) << std::fixed << pose.stamp;
  }
  EXPECT_GE(at_rest, 20u);
}

enum class Fault { LOOP, IMU_GAP, IMU_OUT_OF_ORDER, NAN_POINTS, EMPTY_FRAMES, DROPPED_FRAMES, IMU_IN_G, LONG_IMU_GAP, MOVING_START };

std::string name_of(Fault f) {
  switch (f) {
    case Fault::LOOP: return "Loop";
    case Fault::IMU_GAP: return "ImuGap";
    case Fault::IMU_OUT_OF_ORDER: return "ImuOutOfOrder";
    case Fault::NAN_POINTS: return "NanPoints";
    case Fault::EMPTY_FRAMES: return "EmptyFrames";
    case Fault::DROPPED_FRAMES: return "DroppedFrames";
    case Fault::IMU_IN_G: return "ImuInG";
    case Fault::LONG_IMU_GAP: return "LongImuGap";
    case Fault::MOVING_START: return "MovingStart";
  }
  return "?";
}

class ConformanceFaults : public ::testing::TestWithParam<std::tuple<std::string, Fault>> {
protected:
  void TearDown() override { GlobalConfig::instance().clear(); }
};

TEST_P(ConformanceFaults, KeepsTrackingAndCountsTheFault) {
  const auto& [frontend, fault] = GetParam();
  auto p = short_recording();
  switch (fault) {
    case Fault::LOOP: p.faults.loop = true; break;
    case Fault::IMU_GAP:
      p.faults.imu_gap_start = 5.0;
      p.faults.imu_gap_length = 0.3;
      break;
    case Fault::IMU_OUT_OF_ORDER: p.faults.imu_out_of_order = 5; break;
    case Fault::NAN_POINTS: p.faults.nan_points = 0.05; break;
    case Fault::EMPTY_FRAMES: p.faults.empty_frame_every = 10; break;
    case Fault::DROPPED_FRAMES: p.faults.drop_frame_every = 7; break;
    case Fault::IMU_IN_G: p.acc_in_g = true; break;
    case Fault::LONG_IMU_GAP:  // #12 item 6: 2 s without IMU mid-motion (fastlio lost 9 m across it)
      p.faults.imu_gap_start = 4.0;
      p.faults.imu_gap_length = 2.0;
      break;
    case Fault::MOVING_START:  // #12 item 1: in motion from the first sample (fastlio 123 m, batchlio 137 m)
      p.trajectory.static_duration = 0.0;
      p.trajectory.ramp_duration = 0.0;
      break;
  }
  test::LogCapture log(frontend);  // the frontend's warnings (its synchronizer logs through it)
  const auto run = test::run_in_memory(p, odometry_config(frontend));
  EXPECT_TRUE(run.ok);
  ASSERT_GE(run.trajectory.size(), 40u);
  for (std::size_t i = 1; i < run.trajectory.size(); ++i) ASSERT_GT(run.trajectory[i].stamp, run.trajectory[i - 1].stamp) << i;
  double bound = 0.05;
  switch (fault) {
    case Fault::LOOP:
      EXPECT_GE(run.stats.lidar_loop_backs, 1u);
      EXPECT_GE(run.stats.imu_loop_backs, 1u);
      EXPECT_LT(run.trajectory.back().stamp - run.trajectory.front().stamp, p.duration);  // the older second pass is skipped
      // The scan synchronizer skips the stale package; the visual one drops the stale points as they arrive.
      EXPECT_TRUE(log.contains("is not after the state time") || log.contains("are not later than the last cut")) << log.text();
      break;
    case Fault::IMU_GAP:
      EXPECT_TRUE(log.contains("IMU gap")) << log.text();
      break;  // constant velocity and the registered rate across it (6 cm on the last sample's rates before #12)
    case Fault::IMU_OUT_OF_ORDER: EXPECT_GE(run.stats.imu_loop_backs, 5u); break;
    case Fault::NAN_POINTS: break;  // the preprocessor drops them; one reaching the map would wreck the k-NN and the ATE
    case Fault::EMPTY_FRAMES: EXPECT_GE(run.stats.warnings.count("empty_after_preprocess"), 1u); break;
    case Fault::DROPPED_FRAMES: EXPECT_LT(run.trajectory.size(), 80u); break;
    case Fault::IMU_IN_G: break;  // acc_scale auto: the same estimate as in m/s^2
    case Fault::LONG_IMU_GAP: EXPECT_TRUE(log.contains("IMU gap")) << log.text(); break;  // 0.8-0.9 cm measured
    case Fault::MOVING_START:  // 0.9-1.7 cm measured
      EXPECT_TRUE(log.contains("the sensor was moving during IMU initialization")) << log.text();
      break;
  }
  EXPECT_LT(run.eval.ate.rmse, bound);
}

TEST_P(Conformance, R_IMU_4_R_OUT_1_ResetStartsAgainWithTheSameResult) {
  // Straight into the frontend (its own contract, no executor): the same input before and after
  // reset() gives the same estimates, so reset() leaves nothing of the first run behind.
  GlobalConfig::instance().set_module("config_odometry", Config::parse(odometry_config(GetParam()), "config_odometry.json"));
  auto frontend = OdometryEstimation::load_module(GetParam());
  ASSERT_TRUE(frontend);
  auto preprocessor = frontend->cloud_preprocessor();
  ASSERT_TRUE(preprocessor);
  std::vector<ImuData> imu;
  std::vector<LidarFrame::Ptr> frames;
  sim::simulate_in_memory(short_recording(5.0), sim::MemoryFeed{[&](const ImuData& s) { imu.push_back(s); },
                                                                [&](LidarFrame::Ptr f) { frames.push_back(preprocessor->preprocess(*f)); },
                                                                nullptr});
  std::vector<std::vector<double>> poses(2);
  std::vector<std::vector<Eigen::Vector3f>> saved_maps(2);
  int pass = 0;
  std::vector<double> frame_starts;
  for (const auto& f : frames) frame_starts.push_back(f->stamp);
  std::size_t not_at_a_scan_start = 0, pose_before_start = 0, last_map_points = 0, frames_without_map_points = 0, cpu_above_wall = 0;
  double cpu_seconds = 0.0;
  ScopedConnection connection = connect(OdometryCallbacks::on_new_frame, [&](const EstimationFrame::ConstPtr& f) {
    // #18: each frame says how many points the map holds once the scan joined it, and the CPU time
    // its thread spent on it, which one thread cannot spend faster than the wall clock (scans.csv).
    if (f->map_points == 0) ++frames_without_map_points;
    last_map_points = f->map_points;
    cpu_seconds += f->processing_cpu_seconds;
    if (f->processing_cpu_seconds > f->processing_seconds + 1e-4) {
      ++cpu_above_wall;
      ADD_FAILURE() << "frame " << f->id << ": CPU " << f->processing_cpu_seconds << " s over " << f->processing_seconds << " s of wall time";
    }
    // R-OUT-1: stamped with the scan start; the pose holds at or after it (the scan end).
    if (std::find(frame_starts.begin(), frame_starts.end(), f->stamp) == frame_starts.end()) ++not_at_a_scan_start;
    if (f->pose_stamp < f->stamp) ++pose_before_start;
    poses[static_cast<std::size_t>(pass)].push_back(f->pose_stamp);
    const auto t = f->T_world_imu.translation();
    poses[static_cast<std::size_t>(pass)].insert(poses[static_cast<std::size_t>(pass)].end(), {t.x(), t.y(), t.z()});
  });
  for (pass = 0; pass < 2; ++pass) {
    if (pass == 1) frontend->reset();
    std::size_t next_imu = 0;
    for (const auto& frame : frames) {
      // Sensor-time order, as the executor feeds it.
      for (; next_imu < imu.size() && imu[next_imu].stamp <= frame->stamp; ++next_imu) frontend->insert_imu(imu[next_imu]);
      frontend->insert_frame(frame);
      while (frontend->process_once()) {
      }
    }
    for (; next_imu < imu.size(); ++next_imu) frontend->insert_imu(imu[next_imu]);
    while (frontend->process_once()) {
    }
    EXPECT_TRUE(frontend->ok());
    std::vector<Eigen::Vector3f> map;
    ASSERT_TRUE(frontend->map_points(map));
    EXPECT_EQ(last_map_points, map.size()) << "pass " << pass;
    // #16 map.pcd: the record of what the map took, with the simulator's intensities (20 to 199 on
    // every return). In this small scene the map dropped nothing, so the record holds what the map
    // holds; superlio's representatives of neighbouring subvoxels can share a 0.1 m record cell.
    const std::string map_path = (std::filesystem::temp_directory_path() / ("asuka_conformance_map_" + std::to_string(::getpid()) + ".pcd")).string();
    ASSERT_TRUE(frontend->save_map(map_path));
    std::vector<float> intensity;
    std::string error;
    ASSERT_TRUE(read_pcd_intensity(map_path, saved_maps[static_cast<std::size_t>(pass)], intensity, &error)) << error;
    std::filesystem::remove(map_path);
    const auto& saved = saved_maps[static_cast<std::size_t>(pass)];
    if (GetParam() == "superlio") {
      EXPECT_LE(saved.size(), map.size());
      EXPECT_GE(saved.size(), map.size() * 95 / 100);
    } else {
      EXPECT_EQ(saved.size(), map.size());
    }
    ASSERT_FALSE(intensity.empty());
    EXPECT_GE(*std::min_element(intensity.begin(), intensity.end()), 20.0f);
    EXPECT_LT(*std::max_element(intensity.begin(), intensity.end()), 200.0f);
  }
  EXPECT_EQ(saved_maps[0], saved_maps[1]);  // reset() cleared the record
  connection.disconnect();
  EXPECT_EQ(frames_without_map_points, 0u);
  EXPECT_GT(cpu_seconds, 0.0);
  EXPECT_EQ(cpu_above_wall, 0u);
  ASSERT_GE(poses[0].size(), 4u * 20u);
  EXPECT_EQ(poses[0], poses[1]);
  EXPECT_EQ(not_at_a_scan_start, 0u);
  EXPECT_EQ(pose_before_start, 0u);
}

INSTANTIATE_TEST_SUITE_P(Frontends, Conformance, ::testing::ValuesIn(frontend_names()),
                         [](const ::testing::TestParamInfo<std::string>& param) { return param.param; });

INSTANTIATE_TEST_SUITE_P(Frontends, ConformanceFaults,
                         ::testing::Combine(::testing::ValuesIn(frontend_names()),
                                            ::testing::Values(Fault::LOOP, Fault::IMU_GAP, Fault::IMU_OUT_OF_ORDER, Fault::NAN_POINTS, Fault::EMPTY_FRAMES,
                                                              Fault::DROPPED_FRAMES, Fault::IMU_IN_G, Fault::LONG_IMU_GAP,
                                                              Fault::MOVING_START)),
                         [](const ::testing::TestParamInfo<std::tuple<std::string, Fault>>& param) {
                           return std::get<0>(param.param) + "_" + name_of(std::get<1>(param.param));
                         });

}  // namespace
}  // namespace asuka
