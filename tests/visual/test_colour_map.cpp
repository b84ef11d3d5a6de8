// The coloured point map of srlivo (asuka/visual/colour_map.hpp; #20) and the image-stream checks the
// visual frontends share (asuka/visual/image_stream.hpp): one point per voxel at the first return's
// position, each handed out once per frame; the colour fusion is a Kalman filter whose variance grows
// with time between observations; the image_gap and visual_inconsistent rules.

#include <cmath>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <asuka/visual/colour_map.hpp>
#include <asuka/visual/image_stream.hpp>

namespace asuka::visual {
namespace {

TEST(ColourMapTest, OnePointPerVoxelAtTheFirstReturnAndEachHandedOutOncePerFrame) {
  ColourMap map(ColourMapParams{0.1, 4.0, 100.0});
  std::vector<std::size_t> ids;
  // Three returns in one 10 cm voxel, one in the next.
  map.insert({{0.01, 0.01, 0.01}, {0.05, 0.05, 0.05}, {0.09, 0.02, 0.03}, {0.15, 0.01, 0.01}}, 1, ids);
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(map.size(), 2u);
  EXPECT_TRUE(map.at(ids[0]).position.isApprox(Eigen::Vector3f(0.01f, 0.01f, 0.01f)));
  EXPECT_TRUE(map.at(ids[1]).position.isApprox(Eigen::Vector3f(0.15f, 0.01f, 0.01f)));
  // The same voxel in the same frame again: not handed out twice.
  map.insert({{0.02, 0.02, 0.02}}, 1, ids);
  EXPECT_EQ(ids.size(), 2u);
  // In the next frame it is, and keeps its first position.
  std::vector<std::size_t> next;
  map.insert({{0.08, 0.08, 0.08}}, 2, next);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0], ids[0]);
  EXPECT_TRUE(map.at(next[0]).position.isApprox(Eigen::Vector3f(0.01f, 0.01f, 0.01f)));
  EXPECT_EQ(map.at(next[0]).frame, 2u);
}

TEST(ColourMapTest, FusionIsAKalmanUpdateWhoseVarianceGrowsBetweenObservations) {
  ColourMap map(ColourMapParams{0.1, 4.0, 100.0});
  std::vector<std::size_t> ids;
  map.insert({{1.0, 2.0, 3.0}}, 1, ids);
  ColourPoint& p = map.at(ids[0]);
  EXPECT_EQ(p.observations, 0u);
  map.fuse(p, 100.0f, Eigen::Vector3f(90, 100, 110), 16.0f, 10.0);
  EXPECT_FLOAT_EQ(p.radiance, 100.0f);
  EXPECT_FLOAT_EQ(p.variance, 16.0f);
  // A second observation at the same time with the same variance: the mean, half the variance; rgb
  // with the same gain.
  map.fuse(p, 120.0f, Eigen::Vector3f(110, 120, 130), 16.0f, 10.0);
  EXPECT_FLOAT_EQ(p.radiance, 110.0f);
  EXPECT_FLOAT_EQ(p.variance, 8.0f);
  EXPECT_TRUE(p.rgb.isApprox(Eigen::Vector3f(100, 110, 120)));
  EXPECT_EQ(p.observations, 2u);
  // 2 s later the colour is less certain by drift * 2 s ...
  EXPECT_FLOAT_EQ(map.variance_at(p, 12.0), 8.0f + 4.0f * 2.0f);
  // ... so a new observation of variance 16 gets half the weight.
  map.fuse(p, 130.0f, Eigen::Vector3f(130, 130, 130), 16.0f, 12.0);
  EXPECT_FLOAT_EQ(p.radiance, 120.0f);
  EXPECT_FLOAT_EQ(p.variance, 8.0f);
  // Time never runs backwards into a smaller variance.
  EXPECT_FLOAT_EQ(map.variance_at(p, 5.0), 8.0f);
}

TEST(ColourMapTest, RemoveOutsideDropsThePointsOutsideTheLocalBox) {
  ColourMap map(ColourMapParams{0.1, 4.0, 10.0});
  std::vector<std::size_t> ids;
  map.insert({{0.0, 0.0, 0.0}, {9.0, 0.0, 0.0}, {11.0, 0.0, 0.0}, {0.0, -20.0, 0.0}}, 1, ids);
  EXPECT_EQ(map.remove_outside(Eigen::Vector3d::Zero()), 2u);
  EXPECT_EQ(map.size(), 2u);
  // Everything inside the box: nothing removed, ids stay valid.
  EXPECT_EQ(map.remove_outside(Eigen::Vector3d(1.0, 0.0, 0.0)), 0u);
  EXPECT_EQ(map.size(), 2u);
  // The bounds follow the removal: moving far enough drops the point left behind, and a new point
  // extends them again.
  EXPECT_EQ(map.remove_outside(Eigen::Vector3d(18.5, 0.0, 0.0)), 1u);
  EXPECT_EQ(map.size(), 1u);
  std::vector<std::size_t> more;
  map.insert({{40.0, 0.0, 0.0}}, 2, more);
  EXPECT_EQ(map.remove_outside(Eigen::Vector3d(18.5, 0.0, 0.0)), 1u);
  EXPECT_EQ(map.size(), 1u);
  EXPECT_GT(map.memory_bytes(), 2 * sizeof(ColourPoint));
}

struct Capture {
  std::shared_ptr<std::ostringstream> text = std::make_shared<std::ostringstream>();
  std::shared_ptr<spdlog::logger> logger = std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(*text));
};

TEST(ImageStreamTest, AGapIsNamedWithTheMissingImagesAndTheLearntRate) {
  Capture c;
  ImageMonitor monitor(c.logger);
  double t = 100.0;
  for (int i = 0; i < 10; ++i, t += 0.1) monitor.note_time(t);
  EXPECT_EQ(monitor.gaps(), 0u);
  monitor.note_time(t + 0.2);  // two images missing
  EXPECT_EQ(monitor.gaps(), 1u);
  EXPECT_NE(c.text->str().find("image_gap: no image for 0.300 s"), std::string::npos) << c.text->str();
  EXPECT_NE(c.text->str().find("about 2 images at 10.0 Hz missing"), std::string::npos) << c.text->str();
  // Every other image lost for a while: the period is still the camera's, so every gap is counted.
  t += 0.2;
  for (int i = 0; i < 3; ++i) monitor.note_time(t += 0.2);
  EXPECT_EQ(monitor.gaps(), 4u);
}

TEST(ImageStreamTest, InconsistencyIsJudgedPerWindowOfImages) {
  Capture c;
  ConsistencyMonitor consistent(10, c.logger);
  for (int i = 0; i < 40; ++i) {
    consistent.add_update(3.0);
    consistent.end_image(100, 10, 100.0 + 0.1 * i);
  }
  EXPECT_EQ(consistent.inconsistent_windows(), 0u);
  // Mostly outliers ...
  ConsistencyMonitor outliers(10, c.logger);
  for (int i = 0; i < 20; ++i) outliers.end_image(100, 60, 100.0 + 0.1 * i);
  EXPECT_EQ(outliers.inconsistent_windows(), 1u);
  // ... or corrections far beyond the covariance.
  ConsistencyMonitor pulled(10, c.logger);
  for (int i = 0; i < 20; ++i) {
    pulled.add_update(30.0);
    pulled.end_image(100, 5, 100.0 + 0.1 * i);
  }
  EXPECT_EQ(pulled.inconsistent_windows(), 1u);
  EXPECT_NE(c.text->str().find("time_offset_camera_to_imu"), std::string::npos);
}

}  // namespace
}  // namespace asuka::visual
