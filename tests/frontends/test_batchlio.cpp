// batchlio (#6): the filter steps against their dense definitions, saturation, the two update forms,
// the high-rate pose stream, and the whole pipeline on short simulated bags. The long accuracy and
// speed runs are in benchmarks/run_frontends.sh, not here.

#include <cmath>
#include <cstdio>
#include <random>

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>

#include <asuka/config/config.hpp>
#include <asuka/core/callbacks.hpp>
#include <asuka/core/odometry_estimation.hpp>
#include <asuka/math/so3.hpp>
#include <asuka/util/logging.hpp>

#include "batchlio.hpp"
#include "support/host_run.hpp"
#include "support/sim_run.hpp"

namespace asuka {
namespace {

using batchlio::BatchLio;
using batchlio::BatchlioParams;
using batchlio::Covariance;
using batchlio::State;
using BatchlioTest = test::SimRunTest;

/// A filter state with a random (SPD) covariance, moving, at t = 100 s: for the step tests.
struct Filter {
  State x;
  Covariance P;
  double t = 100.0;
  const State& state() const { return x; }
  const Covariance& covariance() const { return P; }
};

Filter filter_in_motion(const BatchlioParams&, std::uint32_t seed) {
  Filter f;
  std::mt19937 rng(seed);
  std::normal_distribution<double> n(0.0, 1.0);
  Eigen::Matrix<double, 24, 24> L;
  for (int i = 0; i < 24; ++i)
    for (int j = 0; j < 24; ++j) L(i, j) = 0.1 * n(rng);
  Covariance P = L * L.transpose() + 1e-3 * Covariance::Identity();
  State x;
  x.R = so3::exp(Eigen::Vector3d(0.3, -0.2, 1.0));
  x.v = Eigen::Vector3d(1.0, -0.5, 0.2);
  x.omega = Eigen::Vector3d(0.5, -1.0, 2.0);
  x.acc = Eigen::Vector3d(0.4, 0.3, 9.9);
  f.x = x;
  f.P = P;
  return f;
}

TEST(BatchlioFilter, PropagationEqualsTheDenseTransition) {
  BatchlioParams params;
  Filter f = filter_in_motion(params, 1);
  const State x0 = f.state();
  const Covariance P0 = f.covariance();
  const double dt = 0.004;
  batchlio::propagate(f.x, f.P, f.t, 100.0 + dt, params);
  EXPECT_EQ(f.t, 100.0 + dt);

  // The error-state transition written out densely.
  constexpr int R = State::kRot, Pp = State::kPos, V = State::kVel, Bg = State::kBg, Ba = State::kBa, G = State::kGrav, W = State::kOmega, A = State::kAcc;
  Covariance F = Covariance::Identity();
  F.block<3, 3>(R, R) = so3::exp(-x0.omega * dt);
  F.block<3, 3>(R, W) = so3::right_jacobian(x0.omega * dt) * dt;
  F.block<3, 3>(Pp, V) = Eigen::Matrix3d::Identity() * dt;
  F.block<3, 3>(V, R) = -x0.R * so3::hat(x0.acc) * dt;
  F.block<3, 3>(V, A) = x0.R * dt;
  F.block<3, 3>(V, G) = Eigen::Matrix3d::Identity() * dt;
  Covariance Q = Covariance::Zero();
  Q.block<3, 3>(W, W).diagonal().setConstant(params.omega_process_cov * dt);
  Q.block<3, 3>(A, A).diagonal().setConstant(params.acc_process_cov * dt);
  Q.block<3, 3>(Bg, Bg).diagonal().setConstant(params.b_gyro_cov * dt);
  Q.block<3, 3>(Ba, Ba).diagonal().setConstant(params.b_acc_cov * dt);
  const Covariance expected = F * P0 * F.transpose() + Q;
  EXPECT_LT((f.covariance() - expected).norm(), 1e-10 * expected.norm());  // summation order only

  // The mean: constant angular velocity and specific force.
  const Eigen::Vector3d acc_world = x0.R * x0.acc + x0.g;
  EXPECT_LT((f.state().R - x0.R * so3::exp(x0.omega * dt)).norm(), 1e-12);
  EXPECT_LT((f.state().v - (x0.v + acc_world * dt)).norm(), 1e-12);
  EXPECT_LT((f.state().p - (x0.p + x0.v * dt + 0.5 * acc_world * dt * dt)).norm(), 1e-12);

  // The transition is right: a perturbed state propagated agrees with F applied to the perturbation.
  Eigen::Matrix<double, 24, 1> d = Eigen::Matrix<double, 24, 1>::Zero();
  d << 1e-6, -2e-6, 1e-6, 3e-6, 1e-6, -1e-6, 2e-6, -1e-6, 1e-6, 0, 0, 0, 0, 0, 0, 1e-6, 0, -1e-6, 2e-6, 1e-6, -3e-6, 1e-6, 2e-6, -1e-6;
  Filter g = filter_in_motion(params, 1);
  g.x = x0.plus(d);
  batchlio::propagate(g.x, g.P, g.t, 100.0 + dt, params);
  Eigen::Matrix<double, 24, 1> moved;
  moved.segment<3>(R) = so3::log(f.state().R.transpose() * g.state().R);
  moved.segment<3>(Pp) = g.state().p - f.state().p;
  moved.segment<3>(V) = g.state().v - f.state().v;
  moved.segment<15>(9) = d.segment<15>(9);
  EXPECT_LT((moved - F * d).norm(), 1e-3 * d.norm());
}

TEST(BatchlioFilter, SaturatedImuAxesAreNotUsed) {
  BatchlioParams params;
  params.satu_gyro = 4.0;
  params.satu_acc = 20.0;
  Filter f = filter_in_motion(params, 2);
  const State before = f.state();
  ImuData imu;
  imu.stamp = 100.0;
  imu.gyro = Eigen::Vector3d(4.0, -1.2, 2.3);  // x at the range limit
  imu.acc = Eigen::Vector3d(0.5, -20.0, 9.8);  // y at the range limit
  // Decouple the axes so that the test sees each row's own effect.
  Covariance P = Covariance::Identity() * 0.1;
  f.P = P;
  EXPECT_FALSE(batchlio::update_imu(f.x, f.P, imu, params));  // reported as saturated
  EXPECT_DOUBLE_EQ(f.state().omega.x(), before.omega.x());  // saturated: no information
  EXPECT_DOUBLE_EQ(f.state().acc.y(), before.acc.y());
  EXPECT_DOUBLE_EQ(f.covariance()(State::kOmega, State::kOmega), 0.1);
  // Unsaturated axes move toward the measurement (gain P / (2P + var) on state and bias each).
  EXPECT_LT(std::fabs(f.state().omega.y() + f.state().bg.y() - imu.gyro.y()), std::fabs(before.omega.y() + before.bg.y() - imu.gyro.y()));
  EXPECT_LT(std::fabs(f.state().acc.z() + f.state().ba.z() - imu.acc.z()), std::fabs(before.acc.z() + before.ba.z() - imu.acc.z()));
  EXPECT_LT(f.covariance()(State::kOmega + 1, State::kOmega + 1), 0.1);
}

TEST(BatchlioFilter, BatchAndSequentialPlaneUpdatesAgree) {
  // The same linear measurements through the window form (one 6x6 solve) and Point-LIO's scalar
  // form (one update per row) give the same posterior: a Kalman filter may take independent
  // measurements one at a time.
  BatchlioParams params;
  Filter batch = filter_in_motion(params, 3);
  Filter sequential = filter_in_motion(params, 3);
  std::mt19937 rng(4);
  std::normal_distribution<double> n(0.0, 1.0);
  std::vector<Eigen::Matrix<double, 1, 6>> h;
  std::vector<double> r;
  for (int i = 0; i < 25; ++i) {
    Eigen::Matrix<double, 1, 6> row;
    for (int k = 0; k < 6; ++k) row(k) = n(rng);
    h.push_back(row);
    r.push_back(0.05 * n(rng));
  }
  batchlio::update_planes(batch.x, batch.P, h, r, 0.0025, false);
  batchlio::update_planes(sequential.x, sequential.P, h, r, 0.0025, true);
  EXPECT_LT((batch.covariance() - sequential.covariance()).norm(), 1e-9 * batch.covariance().norm());
  EXPECT_LT((batch.state().p - sequential.state().p).norm(), 1e-10);
  EXPECT_LT(so3::log(batch.state().R.transpose() * sequential.state().R).norm(), 1e-10);
  EXPECT_LT((batch.state().omega - sequential.state().omega).norm(), 1e-9);
  // And the update did something: the pose became more certain.
  const double prior_trace = filter_in_motion(params, 3).covariance().topLeftCorner<6, 6>().trace();
  const double posterior_trace = batch.covariance().topLeftCorner<6, 6>().trace();
  EXPECT_LT(posterior_trace, prior_trace);
}

/// A resting sensor: registered at rest as before #17's pose hold (which registers no scan at rest),
/// since what the tests below look at is a registration that finds few or no planes.
BatchlioParams resting_params() {
  BatchlioParams params;
  params.common.init_imu_count = 20;
  params.common.hold_at_rest = false;
  return params;
}

/// Runs `f` on `frames` with an IMU at rest (gravity only, 200 Hz for `imu_seconds`); returns its log.
std::string run_at_rest(BatchLio& f, const std::vector<std::shared_ptr<LidarFrame>>& frames, double imu_seconds) {
  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(100);
  auto logger = module_logger("batchlio");
  logger->sinks().push_back(sink);
  for (int k = 0; 0.005 * k <= imu_seconds + 1e-9; ++k) {
    ImuData imu;
    imu.stamp = 0.005 * k;
    imu.acc = Eigen::Vector3d(0, 0, 9.80665);
    f.insert_imu(imu);
  }
  for (const auto& frame : frames) f.insert_frame(frame);
  while (f.process_once()) {
  }
  logger->sinks().pop_back();
  std::string log;
  for (const auto& line : sink->last_formatted()) log += line;
  return log;
}

TEST(BatchlioFilter, ScansWithoutPlaneMatchesAreWarnedAndCarriedByTheImu) {
  // 1 s of IMU, frames of a floor (the first scan builds the map), then frames of points far from
  // anything mapped. Those scans match no plane: warned, and the state (held by the IMU at rest)
  // stays put.
  BatchLio f(resting_params());
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-10.0f, 10.0f);
  std::vector<std::shared_ptr<LidarFrame>> frames;
  for (int n = 0; n < 8; ++n) {
    auto frame = std::make_shared<LidarFrame>();
    frame->stamp = 0.1 * n;
    for (int i = 0; i < 2000; ++i) {
      Point p;
      p.x = u(rng);
      p.y = u(rng);
      p.z = n < 4 ? -1.5f : 60.0f;  // floor, then far away
      p.offset_ms = 0.05f * static_cast<float>(i);
      frame->points.push_back(p);
    }
    frames.push_back(frame);
  }
  const std::string log = run_at_rest(f, frames, 1.0);
  EXPECT_NE(log.find("points matched map planes"), std::string::npos) << log;
  EXPECT_TRUE(f.ok());
  EXPECT_LT(f.state().p.norm(), 0.01);
}

TEST(BatchlioFilter, Issue17_AScanOfTooFewMatchesIsLeftToTheImuWholly) {
  // A resting sensor maps a floor and a wall 5 m ahead (the first frames), then sees frames of
  // points scattered far away plus a few on a wall 5 cm nearer than the mapped one: too few for a
  // scan (kMinPlaneMatches), and the warning says the IMU carries the state. It must: the windows
  // that hold them would each pull the state towards that wall (4 cm here; before #17's fix such
  // scans took a VLP-16's hand-held start 26 cm off within a second).
  BatchLio f(resting_params());
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-10.0f, 10.0f);
  constexpr int kPoints = 2000, kOnTheNearerWall = 20;
  std::vector<std::shared_ptr<LidarFrame>> frames;
  for (int n = 0; n < 14; ++n) {
    const bool map = n < 3;
    auto frame = std::make_shared<LidarFrame>();
    frame->stamp = 0.1 * n;
    for (int i = 0; i < kPoints; ++i) {
      Point p;
      if (map && i % 2 == 0) {  // the floor
        p.x = u(rng);
        p.y = u(rng);
        p.z = -1.5f;
      } else if (map || i % (kPoints / kOnTheNearerWall) == 0) {  // the wall; later 5 cm nearer
        p.x = map ? 5.0f : 4.95f;
        p.y = u(rng);
        p.z = 0.2f * u(rng);
      } else {  // scattered far above: no plane, then or later
        p.x = u(rng);
        p.y = u(rng);
        p.z = 60.0f + 2.0f * u(rng);
      }
      p.offset_ms = 0.05f * static_cast<float>(i);
      frame->points.push_back(p);
    }
    frames.push_back(frame);
  }
  const std::string log = run_at_rest(f, frames, 1.5);
  EXPECT_NE(log.find("points matched map planes"), std::string::npos) << log;
  EXPECT_TRUE(f.ok());
  EXPECT_LT(std::abs(f.state().p.x()), 0.002) << "the few matches moved the state";
}

TEST_F(BatchlioTest, R_PLUG_3_ABadKeyIsALoadErrorNamingIt) {
  // Loading, tracking and faults are the conformance suite's (test_conformance.cpp).
  std::string error;
  GlobalConfig::instance().set_module("config_odometry", Config::parse(R"({"mapping": {"batch_dt": -1}})", "c.json"));
  EXPECT_FALSE(OdometryEstimation::load_module("batchlio", &error));
  EXPECT_NE(error.find("batch_dt"), std::string::npos) << error;
}

TEST_F(BatchlioTest, AviaHandheldCourtyardTracksAndStreamsOnePosePerWindow) {
  sim::SimParams p;
  p.duration = 12.0;
  std::vector<HighRatePose> stream;
  std::size_t frames = 0;
  std::size_t out_of_order = 0;
  double last_frame_stamp = -1.0;
  std::size_t stream_after_frame_end = 0;
  auto pose_connection = connect(OdometryCallbacks::on_high_rate_pose, [&](const HighRatePose& pose) {
    if (!stream.empty() && pose.stamp < stream.back().stamp) ++out_of_order;
    if (pose.stamp <= last_frame_stamp) ++stream_after_frame_end;  // a window's pose must come before its scan's frame
    stream.push_back(pose);
  });
  auto frame_connection = connect(OdometryCallbacks::on_new_frame, [&](const EstimationFrame::ConstPtr& f) {
    ++frames;
    last_frame_stamp = f->pose_stamp;
  });
  const auto run = simulate_and_run(p, "livox", R"({"so_name": "batchlio", "imu": {"init_imu_count": 100}})");
  EXPECT_TRUE(run.ok);
  EXPECT_GE(run.trajectory.size(), 110u);
  EXPECT_LT(run.eval.ate.rmse, 0.03);  // measured 3.6 mm on 20 s; divergence is metres
  // R-IMU-1: the frames of the static initialization (more than 100 samples at 200 Hz: 0.5 s) are
  // consumed without output; the first estimate holds at the end of a later frame.
  ASSERT_FALSE(run.trajectory.empty());
  EXPECT_GT(run.trajectory.front().stamp - static_cast<double>(p.start_time), 0.5);
  EXPECT_LT(run.trajectory.front().stamp - static_cast<double>(p.start_time), 0.8);

  // One pose per 1 ms window: about 100 per 100 ms scan (fewer where a window holds no point).
  ASSERT_GT(frames, 100u);
  const double per_scan = static_cast<double>(stream.size()) / static_cast<double>(frames);
  std::printf("high-rate stream: %zu poses over %zu scans (%.1f per scan)\n", stream.size(), frames, per_scan);
  EXPECT_GT(per_scan, 60.0);
  EXPECT_LT(per_scan, 101.0);
  EXPECT_EQ(out_of_order, 0u);
  EXPECT_EQ(stream_after_frame_end, 0u);
  for (const auto& pose : stream) {
    ASSERT_GE(pose.latency_seconds, 0.0);
    ASSERT_LT(pose.latency_seconds, 1.0);
  }
}

TEST_F(BatchlioTest, ZeroBatchIsPointByPointAndAgreesWithSingletonWindows) {
  // batch_dt = 0 runs Point-LIO's scalar update per point; a window too short to hold two points
  // (0.1 us; the simulated Avia fires every 4 us) runs the window form on one point each time.
  // Different code, same mathematics: the trajectories agree to numerical noise.
  sim::SimParams p;
  p.duration = 5.0;
  const auto pointwise = simulate_and_run(p, "livox", R"({"so_name": "batchlio", "mapping": {"batch_dt": 0.0}})", "sim");
  const auto singleton = simulate_and_run(p, "livox", R"({"so_name": "batchlio", "mapping": {"batch_dt": 1e-7}})", "sim");
  ASSERT_EQ(pointwise.trajectory.size(), singleton.trajectory.size());
  ASSERT_GT(pointwise.trajectory.size(), 20u);
  double max_dp = 0.0, max_dr = 0.0;
  for (std::size_t i = 0; i < pointwise.trajectory.size(); ++i) {
    const auto& a = pointwise.trajectory[i].T_world_imu;
    const auto& b = singleton.trajectory[i].T_world_imu;
    max_dp = std::max(max_dp, (a.translation() - b.translation()).norm());
    max_dr = std::max(max_dr, so3::log(a.linear().transpose() * b.linear()).norm());
  }
  std::printf("batch_dt 0 vs 1e-7: max position difference %.3g m, rotation %.3g rad\n", max_dp, max_dr);
  EXPECT_LT(max_dp, 1e-6);
  EXPECT_LT(max_dr, 1e-6);
  EXPECT_LT(pointwise.eval.ate.rmse, 0.03);
}

TEST_F(BatchlioTest, ExtremeProfileWithASaturatedGyroKeepsTracking) {
  // 320 deg/s bursts against a 250 deg/s gyro and a 2 g accelerometer: an IMU-driven filter is
  // propagated with the clipped rate (fastlio drifts metres on the 30 s bag); batchlio leaves the
  // saturated axes out and lets the lidar carry the rotation.
  sim::SimParams p;
  p.duration = 12.0;
  p.trajectory.profile = "extreme";
  p.imu.gyro_range = 4.36;
  p.imu.acc_range = 19.6;
  const auto run = simulate_and_run(p, "livox", R"({"so_name": "batchlio", "imu": {"satu_gyro": 4.36, "satu_acc": 19.6}})");
  EXPECT_TRUE(run.ok);
  EXPECT_GE(run.trajectory.size(), 110u);
  EXPECT_LT(run.eval.ate.rmse, 0.05);  // measured 1.5 cm on 30 s
}

TEST_F(BatchlioTest, Issue21_WithTheProjectionAlongTheCorridorAsTheImuAlone) {
  // #21 (R-DEG-2, R-DEG-4): with mapping.degeneracy_projection, the axis of a featureless corridor
  // gets no information from the LiDAR, so the error along it grows as the IMU alone's does. The
  // projected direction is held fixed while the scans find the same (DegenerateDirectionLatch), and the
  // static start's prior couples gravity to the accel bias. Measured on these 20 s walks (ends along
  // the axis; the IMU alone -0.77 / -0.76 / +0.82 m): +0.83 / -0.97 / +1.07 m; with each scan's own
  // direction +1.25 / +0.00 / +2.48 m (seed 3 fails); without the coupling +6.2 / -2.7 / +2.5 m.
  // The projection is batchlio's default since 2026-12-07 (off, the axis drifted by metres).
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    const auto [ok, filter, imu_alone] = test::corridor_walk_against_the_imu_alone(R"({"so_name": "batchlio"})", seed, 20.0);
    ASSERT_TRUE(ok);
    EXPECT_LT(filter.ate_axes_rmse.x(), 1.5 * imu_alone.ate_axes_rmse.x() + 0.1);
    EXPECT_LT(std::fabs(filter.final_error.x()), 1.5 * std::fabs(imu_alone.final_error.x()) + 0.2);
    EXPECT_LT(filter.ate_axes_rmse.y(), 0.02);
    EXPECT_LT(filter.ate_axes_rmse.z(), 0.02);
  }
}

// #17: the RS-16 hall walk (test::rs16_hall_walk), where the floor's and the hall ends' scan lines lie
// farther apart than the 16-line presets' 0.6 m search block: a scan found degenerate runs again with
// the wide reach, within the scan as the iterated filters widen (with the nearest blocks only the
// scans find almost no plane and the walk is dead reckoning: 1.9 m off here, 1.1 cm with it).
TEST_F(BatchlioTest, Issue17_ADegenerateScanRunsAgainReachingFartherForPlanesDownAHall) {
  // Shown under Point-LIO's process noise, batchlio's default until 2026-12-07 (#17, docs/frontends/
  // batchlio.md, "Process noise"): with it the nearest blocks alone leave the walk to the IMU (4.2 m).
  const auto runs = test::rs16_hall_walk_with_and_without_wide_reach("batchlio", "", R"("process": {"omega_process_cov": 100, "acc_process_cov": 1000})");
  ASSERT_TRUE(runs.wide.ok);
  EXPECT_GT(runs.wide.eval.coverage, 0.9);
  EXPECT_LT(runs.wide.eval.ate.rmse, 0.05);
  // The premise: the nearest blocks only.
  ASSERT_TRUE(runs.nearest.ok);
  EXPECT_GT(runs.nearest.eval.ate.rmse, 3.0 * runs.wide.eval.ate.rmse);
  // With the defaults the walk holds (as fastlio's test: its premise is shown under the earlier
  // settings). Measured 1.0 cm, and 2.0 cm without the wide reach (3.5 cm before the projection
  // became batchlio's default).
  const auto defaults = test::rs16_hall_walk_with_and_without_wide_reach("batchlio");
  ASSERT_TRUE(defaults.wide.ok);
  EXPECT_LT(defaults.wide.eval.ate.rmse, 0.03);
}

}  // namespace
}  // namespace asuka
