// #13: the visual synchronizer re-cuts the LiDAR stream at image times. Synchronized, unsynchronized,
// faster and slower cameras, dropped and stale images, no camera at all, and a silent LiDAR; every
// point handed out once, in the package whose interval holds its time.

#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include <asuka/lio/visual_synchronizer.hpp>

namespace asuka::lio {
namespace {

constexpr double kT0 = 100.0;

Image::ConstPtr image_at(double t) {
  auto image = std::make_shared<Image>();
  image->stamp = t;
  image->width = 2;
  image->height = 2;
  image->stride = 2;
  image->pixels = std::shared_ptr<const std::uint8_t>(new std::uint8_t[4](), std::default_delete<std::uint8_t[]>());
  return image;
}

/// A 10 Hz scan starting at `start`: 100 points, point j at j ms, x = its absolute time (to check).
LidarFrame::ConstPtr scan_at(double start) {
  auto frame = std::make_shared<LidarFrame>();
  frame->stamp = start;
  frame->lidar_type = LidarType::LIVOX;
  for (int j = 0; j < 100; ++j) {
    Point p;
    p.offset_ms = static_cast<float>(j);
    p.x = static_cast<float>(start - kT0 + j * 1e-3);  // the time, relative to kT0 (float keeps it exact enough)
    frame->points.push_back(p);
  }
  return frame;
}

struct Run {
  std::vector<VisualPackage> packages;
  std::size_t points_fed = 0;
};

/// Feeds 1.2 s of data as drivers deliver it: IMU at 200 Hz as it happens, each scan at its end,
/// each image `image_latency` after its time; pops after every input, as a frontend does.
Run run(const std::vector<double>& image_times, VisualSynchronizer& sync, double image_latency = 0.01, double lidar_until = 1e9) {
  struct Input {
    double arrival;
    int kind;  // 0 imu, 1 scan, 2 image
    double t;
  };
  std::vector<Input> inputs;
  for (int i = 0; i <= 240; ++i) inputs.push_back({kT0 + i * 0.005, 0, kT0 + i * 0.005});
  Run r;
  for (int k = 0; k < 12; ++k) {
    const double start = kT0 + 0.1 * k;
    if (start >= kT0 + lidar_until) break;
    inputs.push_back({start + 0.0995, 1, start});
    r.points_fed += 100;
  }
  for (double t : image_times) inputs.push_back({kT0 + t + image_latency, 2, kT0 + t});
  std::stable_sort(inputs.begin(), inputs.end(), [](const Input& a, const Input& b) { return a.arrival < b.arrival; });
  for (const auto& in : inputs) {
    if (in.kind == 0) {
      ImuData imu;
      imu.stamp = in.t;
      sync.push_imu(imu);
    } else if (in.kind == 1) {
      sync.push_frame(scan_at(in.t));
    } else {
      sync.push_image(image_at(in.t));
    }
    VisualPackage p;
    while (sync.pop(p)) r.packages.push_back(p);
  }
  return r;
}

/// Every package: points in (begin, end] (the first: [begin, end]), in time order, offsets from
/// begin; IMU in (previous end, end]; packages contiguous (an image package begins at the previous
/// end; a LiDAR-only package of one whole frame at that frame's start, after the previous end).
/// Returns the points handed out.
std::size_t check_packages(const std::vector<VisualPackage>& packages) {
  std::size_t points = 0;
  double previous_end = -1e300;
  double last_point = -1e300;
  for (std::size_t k = 0; k < packages.size(); ++k) {
    const auto& p = packages[k];
    EXPECT_LE(p.begin, p.end) << k;
    if (k > 0 && p.image) {
      EXPECT_DOUBLE_EQ(p.begin, previous_end) << k;
    } else if (k > 0) {
      EXPECT_GE(p.begin, previous_end) << k;
      if (!p.frame->points.empty()) {
        EXPECT_EQ(p.frame->points.front().offset_ms, 0.0f) << k;  // begins at its first point: the scan start
      }
    }
    EXPECT_DOUBLE_EQ(p.frame->stamp, p.begin) << k;
    for (const auto& pt : p.frame->points) {
      const double t = p.begin + static_cast<double>(pt.offset_ms) * 1e-3;
      EXPECT_NEAR(t, kT0 + static_cast<double>(pt.x), 1e-5) << k;  // the point keeps its own time
      EXPECT_LE(t, p.end + 1e-9) << k;
      if (k > 0) {
        EXPECT_GT(t, p.begin - 1e-9) << k;
      }
      EXPECT_GE(t, last_point - 1e-9) << k;
      last_point = t;
    }
    for (const auto& imu : p.imu) {
      EXPECT_LE(imu.stamp, p.end) << k;
      EXPECT_GT(imu.stamp, previous_end) << k;
    }
    if (p.image) {
      EXPECT_DOUBLE_EQ(p.image->stamp, p.end) << k;
    }
    points += p.frame->points.size();
    previous_end = p.end;
  }
  return points;
}

std::vector<double> times(double first, double period, double last) {
  std::vector<double> t;
  for (double x = first; x <= last + 1e-9; x += period) t.push_back(x);
  return t;
}

TEST(VisualSynchronizerTest, SynchronizedCameraGivesOneScanPerImage) {
  // Triggered at each scan's end (half a point period after its last point: no point sits on a cut).
  VisualSynchronizer sync;
  const auto r = run(times(0.0995, 0.1, 1.0995), sync);
  ASSERT_EQ(r.packages.size(), 11u);
  check_packages(r.packages);
  for (const auto& p : r.packages) {
    ASSERT_TRUE(p.image);
    EXPECT_EQ(p.frame->points.size(), 100u);
    EXPECT_GE(p.imu.size(), 19u);
  }
  EXPECT_EQ(sync.diagnostics().image_packages, 11u);
  EXPECT_EQ(sync.diagnostics().lidar_only_packages, 0u);
}

TEST(VisualSynchronizerTest, UnsynchronizedCameraSplitsScansAtImageTimes) {
  VisualSynchronizer sync;
  const auto r = run(times(0.033, 0.1, 1.033), sync);
  ASSERT_EQ(r.packages.size(), 11u);
  EXPECT_EQ(check_packages(r.packages), 34u + 10u * 100u);
  for (std::size_t k = 1; k < r.packages.size(); ++k) {
    // 66 points of one scan and 34 of the next, under one image
    EXPECT_EQ(r.packages[k].frame->points.size(), 100u) << k;
    EXPECT_NEAR(r.packages[k].end - r.packages[k].begin, 0.1, 1e-9);
  }
}

TEST(VisualSynchronizerTest, FasterCameraSplitsEveryScan) {
  VisualSynchronizer sync;
  const auto r = run(times(0.02, 0.05, 1.12), sync);
  ASSERT_EQ(r.packages.size(), 23u);
  EXPECT_EQ(check_packages(r.packages), 1100u + 21u);
  for (std::size_t k = 1; k + 1 < r.packages.size(); ++k) {
    EXPECT_EQ(r.packages[k].frame->points.size(), 50u) << k;
  }
}

TEST(VisualSynchronizerTest, SweepReconstructionHandsOutEveryPointExactlyOnceInOrderWithSweepsEndingAtImageStamps) {
  // #20 (srlivo's sweep reconstruction): a free-running 15 Hz camera with a 37 ms phase against a
  // 10 Hz lidar. Every point up to the last image is in exactly one sweep (its time, carried in x,
  // appears once), in time order, and each sweep ends at its image's stamp.
  VisualSynchronizer sync;
  const auto image_times = times(0.037, 1.0 / 15.0, 1.15);
  const auto r = run(image_times, sync);
  ASSERT_EQ(r.packages.size(), image_times.size());
  check_packages(r.packages);
  std::vector<float> seen;
  for (std::size_t k = 0; k < r.packages.size(); ++k) {
    ASSERT_TRUE(r.packages[k].image) << k;
    EXPECT_DOUBLE_EQ(r.packages[k].end, kT0 + image_times[k]) << k;
    for (const auto& pt : r.packages[k].frame->points) seen.push_back(pt.x);
  }
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end());  // no point twice
  // Every point fed up to the last image: scans start at 0, 0.1, ...; point j of scan k at 0.1 k + j ms.
  std::size_t expected = 0;
  for (int k = 0; k < 12; ++k) {
    for (int j = 0; j < 100; ++j) expected += 0.1 * k + j * 1e-3 <= image_times.back() + 1e-9 ? 1 : 0;
  }
  EXPECT_EQ(seen.size(), expected);
}

TEST(VisualSynchronizerTest, SlowerCameraMergesScans) {
  VisualSynchronizer sync;
  const auto r = run(times(0.15, 0.2, 1.15), sync);
  ASSERT_EQ(r.packages.size(), 6u);
  check_packages(r.packages);
  for (std::size_t k = 1; k < r.packages.size(); ++k) {
    EXPECT_EQ(r.packages[k].frame->points.size(), 200u) << k;
  }
}

TEST(VisualSynchronizerTest, ADroppedImageWidensTheNextPackage) {
  auto t = times(0.05, 0.1, 1.05);
  t.erase(t.begin() + 4);  // 0.45 never arrives
  VisualSynchronizer sync;
  const auto r = run(t, sync);
  ASSERT_EQ(r.packages.size(), 10u);
  check_packages(r.packages);
  EXPECT_NEAR(r.packages[4].end - r.packages[4].begin, 0.2, 1e-9);
  EXPECT_EQ(r.packages[4].frame->points.size(), 200u);
}

TEST(VisualSynchronizerTest, AnImageOlderThanTheStateIsDroppedAndCounted) {
  VisualSynchronizer sync;
  auto t = times(0.05, 0.1, 1.05);
  const auto r = run(t, sync);
  const std::size_t before = r.packages.size();
  sync.push_image(image_at(kT0 + 0.5));  // long after its time: the state is at 1.05
  VisualPackage p;
  EXPECT_FALSE(sync.pop(p));
  EXPECT_EQ(sync.diagnostics().stale_images, 1u);
  EXPECT_EQ(r.packages.size(), before);
}

TEST(VisualSynchronizerTest, WithoutImagesScansAreCutAtTheirEndsAfterTheTimeout) {
  VisualSynchronizer sync;
  const auto r = run({}, sync);
  // The last scans stay buffered: nothing tells yet that no image will come for them.
  ASSERT_GE(r.packages.size(), 6u);
  check_packages(r.packages);
  for (std::size_t k = 0; k < r.packages.size(); ++k) {
    const auto& p = r.packages[k];
    EXPECT_FALSE(p.image);
    EXPECT_EQ(p.frame->points.size(), 100u);
    // Stamped at the scan start, as a ScanPackage (R-OUT-1 holds for a visual frontend without images).
    EXPECT_NEAR(p.begin, kT0 + 0.1 * static_cast<double>(k), 1e-9) << k;
  }
  EXPECT_EQ(sync.diagnostics().lidar_only_packages, r.packages.size());

  VisualSyncParams off;
  off.image_timeout = 0.0;
  VisualSynchronizer waits(off);
  EXPECT_TRUE(run({}, waits).packages.empty());
}

TEST(VisualSynchronizerTest, WithoutACameraEveryScanIsCutAsSoonAsTheImuCoversIt) {
  VisualSyncParams no_camera;
  no_camera.expect_images = false;
  VisualSynchronizer sync(no_camera);
  VisualSynchronizer waiting;  // expects images: holds the last image_timeout of scans back
  const auto r = run(times(0.05, 0.1, 1.05), sync);  // images arrive but are not this frontend's input
  const auto w = run({}, waiting);
  check_packages(r.packages);
  // Nothing is held back: every scan the IMU covers, as ScanSynchronizer would.
  EXPECT_GE(r.packages.size(), w.packages.size() + 4);
  for (std::size_t k = 0; k < r.packages.size(); ++k) {
    EXPECT_FALSE(r.packages[k].image);
    EXPECT_EQ(r.packages[k].frame->points.size(), 100u) << k;
    EXPECT_NEAR(r.packages[k].begin, kT0 + 0.1 * static_cast<double>(k), 1e-9) << k;
  }
  EXPECT_EQ(sync.diagnostics().stale_images, 0u);  // ignored, not "dropped" with a warning
  EXPECT_EQ(sync.images_buffered(), 0u);
}

TEST(VisualSynchronizerTest, ClearForgetsTheImuHistory) {
  VisualSynchronizer sync;
  sync.collect_imu_history(true);
  run({}, sync);
  EXPECT_FALSE(sync.imu_history().empty());
  sync.clear();
  EXPECT_TRUE(sync.imu_history().empty());  // a reset during initialization must not initialize from old samples
}

TEST(VisualSynchronizerTest, ASilentLidarDoesNotStallTheCamera) {
  VisualSynchronizer sync;
  const auto r = run(times(0.05, 0.1, 1.05), sync, 0.01, 0.3);  // scans stop after 0.3 s
  EXPECT_EQ(check_packages(r.packages), 300u);
  // 0.05, 0.15, 0.25 with their points; 0.35 ... 0.65 once the IMU is max_lidar_wait past them (it
  // ends at 1.2 s); the later images wait for more IMU.
  ASSERT_EQ(r.packages.size(), 7u);
  EXPECT_EQ(sync.diagnostics().lidar_gaps, 4u);
  EXPECT_TRUE(r.packages.back().frame->points.empty());
  ASSERT_TRUE(r.packages.back().image);
  EXPECT_NEAR(r.packages.back().end, kT0 + 0.65, 1e-9);
}

TEST(VisualSynchronizerTest, LateScansDoNotHoldBackAndEarlyPointsAreNotLost) {
  // Images arrive before the scan that covers them: the package waits for the scan.
  VisualSynchronizer sync;
  const auto r = run(times(0.05, 0.1, 1.05), sync, -0.04);
  ASSERT_EQ(r.packages.size(), 11u);
  EXPECT_EQ(check_packages(r.packages), 51u + 10u * 100u);  // the first: points at 0 ... 50 ms
}

}  // namespace
}  // namespace asuka::lio
