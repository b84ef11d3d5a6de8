// #18: a run's per-scan record in bounded memory. RunningStats' quantiles against a sorted list;
// RunRecord streams the trajectory, scans.csv, localizability.csv and the high-rate stream as they
// come (what a crash leaves on disk), keeps them in memory without a directory, and only counts them
// in summary mode.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <asuka/host/run_record.hpp>
#include <asuka/io/trajectory_io.hpp>
#include <asuka/util/process_memory.hpp>
#include <asuka/util/running_stats.hpp>

namespace asuka {
namespace {

namespace fs = std::filesystem;

double sorted_quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

TEST(RunningStatsTest, QuantilesAreWithinOnePercentOfTheSortedValues) {
  std::mt19937 rng(3);
  // Per-scan times: a log-normal body around 3 ms with rare spikes up to 200 ms.
  std::lognormal_distribution<double> body(std::log(3e-3), 0.3);
  std::uniform_real_distribution<double> spike(20e-3, 200e-3);
  std::vector<double> values;
  RunningStats stats;
  for (int i = 0; i < 36000; ++i) {
    const double v = i % 997 == 0 ? spike(rng) : body(rng);
    values.push_back(v);
    stats.add(v);
  }
  double sum = 0.0;
  for (double v : values) sum += v;
  EXPECT_EQ(stats.count(), values.size());
  EXPECT_NEAR(stats.mean(), sum / static_cast<double>(values.size()), 1e-12);
  EXPECT_EQ(stats.max(), *std::max_element(values.begin(), values.end()));
  for (double q : {0.0, 0.5, 0.9, 0.95, 0.99, 0.999}) {
    const double exact = sorted_quantile(values, q);
    EXPECT_LE(stats.quantile(q), exact * 1.0101) << q;
    EXPECT_GE(stats.quantile(q), exact / 1.0101) << q;
  }
  EXPECT_EQ(stats.quantile(1.0), stats.max());
  // NaN is not a time: ignored.
  stats.add(std::nan(""));
  EXPECT_EQ(stats.count(), values.size());
  EXPECT_EQ(RunningStats().quantile(0.5), 0.0);
}

StampedPose pose_at(double t) {
  StampedPose p;
  p.stamp = t;
  p.T_world_imu.translation() = Eigen::Vector3d(t, 2.0 * t, 0.5);
  return p;
}

EstimationFrame frame_at(double t, double seconds, std::size_t map_points = 0, const Localizability* loc = nullptr) {
  EstimationFrame f;
  f.pose_stamp = t;
  f.T_world_imu = pose_at(t).T_world_imu;
  f.processing_seconds = seconds;
  f.processing_cpu_seconds = 0.5 * seconds;
  f.map_points = map_points;
  if (loc) f.localizability = *loc;
  return f;
}

std::size_t lines_of(const std::string& path) {
  std::ifstream in(path);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += (!line.empty() && line[0] != '#') ? 1 : 0;
  return n;
}

class RunRecordTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("asuka_run_record_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(RunRecordTest, StreamedFilesHoldEveryScanAndAreOnDiskBeforeTheEnd) {
  RunRecord record(dir_.string());
  Localizability loc;
  loc.degenerate = 1;
  loc.eigenvalues << 0.001, 0.1, 0.2, 0.3, 0.4, 0.5;
  const std::size_t scans = 3 * RunRecord::kFlushEvery + 7;
  for (std::size_t k = 0; k < scans; ++k) {
    const double t = 100.0 + 0.1 * static_cast<double>(k);
    record.scan(frame_at(t, 0.002 + (k == 50 ? 0.1 : 0.0), 1000 + k, k % 2 == 0 ? &loc : nullptr), 64u << 20);
    for (int h = 0; h < 10; ++h) record.high_rate(pose_at(t + 0.01 * h), 0.05);
  }
  // Before close: what was flushed is already there (a run that ends badly leaves it).
  EXPECT_GE(lines_of((dir_ / "trajectory.tum").string()), 3 * RunRecord::kFlushEvery);
  EXPECT_GE(lines_of((dir_ / "scans.csv").string()), 3 * RunRecord::kFlushEvery);
  std::string error;
  ASSERT_TRUE(record.close(&error)) << error;

  std::vector<StampedPose> trajectory, high_rate;
  ASSERT_TRUE(read_tum(record.trajectory_path(), trajectory, &error)) << error;
  ASSERT_EQ(trajectory.size(), scans);
  EXPECT_NEAR(trajectory[5].T_world_imu.translation().y(), 2.0 * trajectory[5].stamp, 1e-6);
  ASSERT_TRUE(read_tum(record.high_rate_path(), high_rate, &error)) << error;
  EXPECT_EQ(high_rate.size(), 10 * scans);
  EXPECT_EQ(lines_of(record.scans_path()), scans);
  EXPECT_EQ(lines_of(record.localizability_path()), (scans + 1) / 2);
  {
    std::ifstream in(record.scans_path());
    std::string header, first;
    std::getline(in, header);
    std::getline(in, first);
    EXPECT_EQ(header + "\n", kScansCsvHeader);
    EXPECT_EQ(first, "100.000000,2.0000,64.0,1000,1.0000");
  }
  // Nothing kept in memory, the summaries are.
  EXPECT_TRUE(record.trajectory().empty());
  EXPECT_TRUE(record.high_rate_trajectory().empty());
  EXPECT_EQ(record.scans(), scans);
  EXPECT_NEAR(record.scan_seconds().max(), 0.102, 1e-12);
  EXPECT_NEAR(record.scan_seconds().quantile(0.5), 0.002, 0.002 * 0.011);
  EXPECT_EQ(record.high_rate_poses(), 10 * scans);
  EXPECT_NEAR(record.high_rate_latency().mean(), 0.05, 1e-12);
}

TEST_F(RunRecordTest, MemoryModeKeepsTheSeriesAndSummaryModeOnlyCounts) {
  RunRecord memory;
  RunRecord summary = RunRecord::summary_only();
  for (int k = 0; k < 20; ++k) {
    memory.scan(frame_at(k, 0.001 * k), 0);
    summary.scan(frame_at(k, 0.001 * k), 0);
    memory.high_rate(pose_at(k), 0.01);
    summary.high_rate(pose_at(k), 0.01);
  }
  EXPECT_EQ(memory.trajectory().size(), 20u);
  EXPECT_EQ(memory.scan_seconds().count(), 20u);
  EXPECT_EQ(memory.high_rate_trajectory().size(), 20u);
  EXPECT_TRUE(summary.trajectory().empty());
  EXPECT_TRUE(summary.high_rate_trajectory().empty());
  EXPECT_EQ(summary.scans(), 20u);
  EXPECT_EQ(summary.scan_seconds().max(), memory.scan_seconds().max());
  EXPECT_EQ(memory.trajectory_path(), "");  // nothing streamed
  summary.scan(frame_at(21, std::nan("")), 0);  // a frontend's NaN time: still a scan
  EXPECT_EQ(summary.scans(), 21u);
  EXPECT_EQ(summary.scan_seconds().count(), 20u);
  std::string error;
  EXPECT_TRUE(memory.close(&error));
}

TEST_F(RunRecordTest, AnUnwritableDirectoryIsAnErrorNamingTheFile) {
  RunRecord record((dir_ / "missing" / "deeper").string());
  record.scan(frame_at(1.0, 0.001), 0);
  std::string error;
  EXPECT_NE(record.error().find("trajectory.tum"), std::string::npos) << record.error();  // known at once
  EXPECT_FALSE(record.close(&error));
  EXPECT_NE(error.find("trajectory.tum"), std::string::npos) << error;
  EXPECT_EQ(record.scans(), 1u);  // still counted
}

TEST(ProcessMemoryTest, ResidentMemoryIsReadAndFollowsAnAllocation) {
  const std::size_t before = resident_bytes();
  ASSERT_GT(before, 0u);
  std::vector<char> block(64u << 20, 1);  // touched: resident
  asm volatile("" : : "r"(block.data()) : "memory");  // the fill happens, and before the reading below
  const std::size_t during = resident_bytes();
  EXPECT_GT(during, before + (48u << 20));
  EXPECT_GE(peak_resident_bytes(), during - (1u << 20));
  EXPECT_EQ(block[12345], 1);
}

}  // namespace
}  // namespace asuka
