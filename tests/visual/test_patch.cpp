// Reference patches, the plane-induced affine warp, the corner score and the visual map points of the
// direct visual frontends (asuka/visual/patch.hpp, visual_map.hpp; #19): the warp against the image of
// a textured plane rendered from a second pose, patch cutting at the border and its radiances, the
// Shi-Tomasi score on flat, ramp, edge and corner images, and the map's voxel, reference and box rules.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <Eigen/SVD>

#include <asuka/camera/camera_model.hpp>
#include <asuka/camera/image_pyramid.hpp>
#include <asuka/visual/patch.hpp>
#include <asuka/visual/visual_map.hpp>

#include "visual/plane_scene.hpp"

namespace asuka::visual {
namespace {

using camera::GrayImage;
namespace ts = test_scene;

/// The reference camera 4 m above the plane looking straight down; the current one about 2 m from
/// the point (0.05, 0.02, 0), tilted 17 deg and rolled 8.6 deg (19 deg from the reference): the plane
/// looks about twice as large, slanted and turned.
struct TwoViews {
  camera::CameraModel cam = ts::pinhole_camera();
  CameraPose ref = ts::look_at(Eigen::Vector3d(0.0, 0.0, 4.0), Eigen::Vector3d::Zero());
  CameraPose cur = ts::look_at(Eigen::Vector3d(0.5, -0.35, 1.9), Eigen::Vector3d(0.05, 0.02, 0.0), 0.15);
  GrayImage ref_image = ts::render(cam, ref);
  GrayImage cur_image = ts::render(cam, cur);
};

double mean_abs_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
  return sum / static_cast<double>(a.size());
}

TEST(PatchTest, AffineWarpedReferenceMatchesTheCurrentImageWhereTheIdentityDoesNot) {
  const TwoViews views;
  const std::vector<GrayImage> pyramid = camera::build_pyramid(views.ref_image, 3);
  ASSERT_EQ(pyramid.size(), 3u);
  constexpr int kHalf = 4;
  double sum_affine = 0.0, sum_identity = 0.0;
  int points = 0;
  for (int i = -1; i <= 1; ++i) {
    for (int j = -1; j <= 1; ++j) {
      const Eigen::Vector3d X(0.05 + 0.12 * i, 0.02 + 0.12 * j, 0.0);
      Eigen::Vector2d uv_ref, uv_cur;
      ASSERT_TRUE(ts::project(views.cam, views.ref, X, uv_ref));
      ASSERT_TRUE(ts::project(views.cam, views.cur, X, uv_cur));
      RefPatch patch;
      patch.pose = views.ref;
      patch.inverse_exposure = 1.0f;
      ASSERT_TRUE(patch.cut(pyramid, uv_ref, 3, kHalf, 4)) << X.transpose();
      EXPECT_EQ(patch.size, 16);
      EXPECT_EQ(patch.samples.size(), 3u * 16u * 16u);

      Eigen::Matrix2d A;
      ASSERT_TRUE(affine_warp(views.cam, views.ref, views.cur, X, ts::plane_normal(), A)) << X.transpose();
      // The current view is about twice as close: the warp shrinks by about 2 in both directions.
      const Eigen::Vector2d sv = Eigen::JacobiSVD<Eigen::Matrix2d>(A).singularValues();
      EXPECT_GT(sv.minCoeff(), 0.35) << A;
      EXPECT_LT(sv.maxCoeff(), 0.7) << A;

      std::vector<float> warped, unwarped, current;
      ASSERT_TRUE(patch.warp(0, kHalf, A, warped));
      ASSERT_TRUE(patch.warp(0, kHalf, Eigen::Matrix2d::Identity(), unwarped));
      ASSERT_TRUE(ts::sample_patch(views.cur_image, uv_cur, kHalf, current));
      ASSERT_EQ(warped.size(), current.size());
      const double affine = mean_abs_difference(warped, current);
      const double identity = mean_abs_difference(unwarped, current);
      // 8-bit rounding of the stored samples and bilinear interpolation: a fraction of a grey level.
      EXPECT_LT(affine, 1.5) << "point " << X.transpose() << " identity " << identity;
      sum_affine += affine;
      sum_identity += identity;
      ++points;
    }
  }
  EXPECT_EQ(points, 9);
  EXPECT_GT(sum_identity, 3.0 * sum_affine) << "affine " << sum_affine / points << " identity " << sum_identity / points;
}

TEST(PatchTest, AffineWarpFailsWhenThePlaneIsSeenEdgeOn) {
  const TwoViews views;
  const Eigen::Vector3d X(0.05, 0.02, 0.0);
  // 5 cm above the plane, 3 m away: the ray to X grazes the plane at 1 deg.
  const CameraPose grazing = ts::look_at(Eigen::Vector3d(-3.0, 0.02, 0.05), X);
  Eigen::Vector2d uv;
  ASSERT_TRUE(ts::project(views.cam, grazing, X, uv));  // the point itself is in view
  Eigen::Matrix2d A;
  EXPECT_TRUE(affine_warp(views.cam, views.ref, views.cur, X, ts::plane_normal(), A));
  EXPECT_FALSE(affine_warp(views.cam, grazing, views.cur, X, ts::plane_normal(), A));  // edge-on reference
  EXPECT_FALSE(affine_warp(views.cam, views.ref, grazing, X, ts::plane_normal(), A));  // edge-on current
  // A point behind the current camera does not project: no warp either.
  EXPECT_FALSE(affine_warp(views.cam, views.ref, views.cur, Eigen::Vector3d(0.5, -0.35, 3.0), ts::plane_normal(), A));
}

TEST(PatchTest, CutFailsNearTheBorderAndSucceedsInTheMiddle) {
  const TwoViews views;
  const std::vector<GrayImage> pyramid = camera::build_pyramid(views.ref_image, 3);
  RefPatch patch;
  EXPECT_TRUE(patch.cut(pyramid, Eigen::Vector2d(320.0, 240.0), 3, 4, 4));
  EXPECT_TRUE(patch.cut(pyramid, Eigen::Vector2d(20.0, 240.0), 1, 4, 4));   // 12.5 px of room at level 0
  EXPECT_FALSE(patch.cut(pyramid, Eigen::Vector2d(20.0, 240.0), 3, 4, 4));  // but not at level 2
  EXPECT_FALSE(patch.cut(pyramid, Eigen::Vector2d(5.0, 240.0), 1, 4, 4));
  EXPECT_FALSE(patch.cut(pyramid, Eigen::Vector2d(634.0, 240.0), 1, 4, 4));
  EXPECT_FALSE(patch.cut(pyramid, Eigen::Vector2d(320.0, 475.0), 1, 4, 4));
  EXPECT_FALSE(patch.cut(pyramid, Eigen::Vector2d(320.0, 240.0), 4, 4, 4));  // more levels than the pyramid
}

TEST(PatchTest, RadianceIsTheInverseExposureTimesTheImage) {
  const TwoViews views;
  const std::vector<GrayImage> pyramid = camera::build_pyramid(views.ref_image, 3);
  RefPatch patch;
  patch.inverse_exposure = 0.8f;
  // A half-pixel centre puts the level-0 samples on pixel centres: the patch centre is the mean of
  // four pixels, as bilinear sampling of the image at the centre is.
  const Eigen::Vector2d uv0(320.5, 240.5);
  ASSERT_TRUE(patch.cut(pyramid, uv0, 3, 4, 4));
  float image_value = 0.0f, radiance = 0.0f;
  ASSERT_TRUE(camera::sample(views.ref_image, uv0.x(), uv0.y(), image_value));
  ASSERT_TRUE(patch.radiance(0, Eigen::Vector2d::Zero(), radiance));
  EXPECT_NEAR(static_cast<double>(radiance), 0.8 * static_cast<double>(image_value), 0.5 * 0.8 + 1e-3);
  // The first stored sample: pixel (313, 233) rounded to 8 bits.
  ASSERT_TRUE(patch.radiance(0, Eigen::Vector2d(-7.5, -7.5), radiance));
  EXPECT_FLOAT_EQ(radiance, 0.8f * static_cast<float>(std::lround(views.ref_image.at(313, 233))));
  // Outside the stored samples, and levels it does not hold.
  EXPECT_FALSE(patch.radiance(0, Eigen::Vector2d(7.6, 0.0), radiance));
  EXPECT_FALSE(patch.radiance(3, Eigen::Vector2d::Zero(), radiance));
  std::vector<float> out;
  EXPECT_FALSE(patch.warp(0, 4, 3.0 * Eigen::Matrix2d::Identity(), out));  // reaches 10.5 px out
}

/// A 64 x 64 image of 8 px squares of grey 50 and 200.
GrayImage checkerboard() {
  GrayImage img(64, 64);
  for (int y = 0; y < 64; ++y) {
    for (int x = 0; x < 64; ++x) img.at(x, y) = ((x / 8 + y / 8) % 2 == 0) ? 50.0f : 200.0f;
  }
  return img;
}

TEST(PatchTest, CornerScoreIsZeroOnFlatRampAndEdgeAndLargeOnACorner) {
  const GrayImage flat(64, 64, 100.0f);
  EXPECT_NEAR(corner_score(flat, Eigen::Vector2d(32.0, 32.0)), 0.0, 1e-12);

  // A ramp has a gradient in one direction only: the smaller eigenvalue vanishes.
  GrayImage ramp(64, 64);
  for (int y = 0; y < 64; ++y) {
    for (int x = 0; x < 64; ++x) ramp.at(x, y) = static_cast<float>(20.0 + 1.5 * x + 1.0 * y);
  }
  EXPECT_NEAR(corner_score(ramp, Eigen::Vector2d(30.3, 27.6)), 0.0, 1e-6);

  const GrayImage board = checkerboard();
  // A straight edge (between columns 31 and 32, within one row of squares): zero again.
  EXPECT_NEAR(corner_score(board, Eigen::Vector2d(31.5, 19.5)), 0.0, 1e-9);
  // The corner where four squares meet: a 150 grey step along both axes, 4 of 25 samples each.
  EXPECT_NEAR(corner_score(board, Eigen::Vector2d(31.5, 31.5)), 4.0 * 150.0 * 150.0 / 25.0, 1e-3);
  // The grid leaves the image: 0.
  EXPECT_EQ(corner_score(board, Eigen::Vector2d(1.0, 1.0)), 0.0);
}

VisualPoint point_at(double x, double y, double z) {
  VisualPoint point;
  point.position = Eigen::Vector3d(x, y, z);
  return point;
}

TEST(VisualMapTest, HoldsOnePointPerVoxelAndErasingFreesIt) {
  VisualMapParams params;
  params.voxel_size = 0.5;
  VisualMap map(params);
  const auto first = map.add(point_at(0.1, 0.1, 0.1));
  ASSERT_TRUE(first.has_value());
  EXPECT_FALSE(map.add(point_at(0.4, 0.2, 0.3)).has_value());  // same voxel
  const auto second = map.add(point_at(0.7, 0.1, 0.1));
  ASSERT_TRUE(second.has_value());
  EXPECT_NE(*first, *second);
  EXPECT_EQ(map.size(), 2u);
  EXPECT_TRUE(map.occupied(Eigen::Vector3d(0.3, 0.3, 0.3)));

  map.erase(*first);
  EXPECT_EQ(map.size(), 1u);
  EXPECT_FALSE(map.alive(*first));
  EXPECT_FALSE(map.occupied(Eigen::Vector3d(0.3, 0.3, 0.3)));
  const auto again = map.add(point_at(0.4, 0.2, 0.3));
  ASSERT_TRUE(again.has_value());
  EXPECT_TRUE(map.alive(*again));
  EXPECT_EQ(map.size(), 2u);
  EXPECT_TRUE(map.at(*again).position == Eigen::Vector3d(0.4, 0.2, 0.3));
}

TEST(VisualMapTest, AddRefKeepsTheNewestMaxRefs) {
  VisualMapParams params;
  params.max_refs = 3;
  VisualMap map(params);
  const auto id = map.add(point_at(1.0, 2.0, 3.0));
  ASSERT_TRUE(id.has_value());
  for (std::uint32_t frame = 1; frame <= 5; ++frame) {
    RefPatch ref;
    ref.frame = frame;
    map.add_ref(*id, ref);
    EXPECT_EQ(map.at(*id).refs.size(), std::min<std::size_t>(frame, 3u));
  }
  const auto& refs = map.at(*id).refs;
  ASSERT_EQ(refs.size(), 3u);
  EXPECT_EQ(refs[0].frame, 3u);  // oldest first
  EXPECT_EQ(refs[1].frame, 4u);
  EXPECT_EQ(refs[2].frame, 5u);
}

TEST(VisualMapTest, RemoveOutsideDropsThePointsOutsideTheBox) {
  VisualMapParams params;
  params.voxel_size = 0.5;
  params.local_map_half_size = 10.0;
  VisualMap map(params);
  const auto inside = map.add(point_at(1.0, 1.0, 1.0));
  const auto corner = map.add(point_at(9.9, -9.9, 9.9));   // inside the cube, outside the sphere
  const auto beyond_x = map.add(point_at(12.0, 0.0, 0.0));
  const auto beyond_y = map.add(point_at(0.0, -11.0, 0.0));
  ASSERT_TRUE(inside && corner && beyond_x && beyond_y);
  map.remove_outside(Eigen::Vector3d::Zero());
  EXPECT_EQ(map.size(), 2u);
  EXPECT_TRUE(map.alive(*inside));
  EXPECT_TRUE(map.alive(*corner));
  EXPECT_FALSE(map.alive(*beyond_x));
  EXPECT_FALSE(map.alive(*beyond_y));
  EXPECT_FALSE(map.occupied(Eigen::Vector3d(12.0, 0.0, 0.0)));
  // Around another centre the box moves with it.
  map.remove_outside(Eigen::Vector3d(-5.0, 0.0, 0.0));
  EXPECT_EQ(map.size(), 1u);
  EXPECT_TRUE(map.alive(*inside));
  EXPECT_FALSE(map.alive(*corner));
}

}  // namespace
}  // namespace asuka::visual
