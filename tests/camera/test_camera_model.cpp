// The camera models (asuka/camera/camera_model.hpp): pinhole, radtan (OpenCV plumb_bob) and
// equidistant (OpenCV fisheye) projection against hand-computed values, round trips over whole
// images, analytic Jacobians against numeric ones, the validity region and the validation messages.

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <asuka/camera/camera_model.hpp>
#include <asuka/camera/image_pyramid.hpp>

namespace asuka::camera {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// An EuRoC-like 752x480 camera with the radtan coefficients of a typical wide-angle lens.
CameraIntrinsics radtan_intrinsics(bool with_k3 = false) {
  CameraIntrinsics c;
  c.width = 752;
  c.height = 480;
  c.fx = 458.654;
  c.fy = 457.296;
  c.cx = 367.215;
  c.cy = 248.375;
  c.distortion = Distortion::RADTAN;
  c.coeffs = {-0.28, 0.07, 1e-4, -2e-4};
  if (with_k3) c.coeffs.push_back(-0.004);
  return c;
}

/// A 640x512 camera behind a 180 deg fisheye lens (Kannala-Brandt coefficients of the magnitude
/// Kalibr reports for such lenses): 90 deg from the axis lands 399 px from the centre, so the image
/// corners (410 px) see slightly behind the camera plane.
CameraIntrinsics fisheye_intrinsics() {
  CameraIntrinsics c;
  c.width = 640;
  c.height = 512;
  c.fx = 250.0;
  c.fy = 250.0;
  c.cx = 319.5;
  c.cy = 255.5;
  c.distortion = Distortion::EQUIDISTANT;
  c.coeffs = {-0.013, 0.023, -0.012, 0.0024};
  return c;
}

CameraIntrinsics pinhole_intrinsics() {
  CameraIntrinsics c;
  c.width = 640;
  c.height = 480;
  c.fx = 520.0;
  c.fy = 515.0;
  c.cx = 321.3;
  c.cy = 239.1;
  return c;
}

std::vector<CameraIntrinsics> all_models() { return {pinhole_intrinsics(), radtan_intrinsics(false), radtan_intrinsics(true), fisheye_intrinsics()}; }

std::string name_of(const CameraIntrinsics& c) { return std::string(to_string(c.distortion)) + " with " + std::to_string(c.coeffs.size()) + " coefficients"; }

/// Pixels on a grid over the whole image, edges and corners included (the image spans [-0.5, size - 0.5]).
std::vector<Eigen::Vector2d> pixel_grid(const CameraModel& camera, double step) {
  std::vector<double> us, vs;
  for (double u = -0.5; u < camera.width() - 0.5; u += step) us.push_back(u);
  us.push_back(camera.width() - 0.5);
  for (double v = -0.5; v < camera.height() - 0.5; v += step) vs.push_back(v);
  vs.push_back(camera.height() - 0.5);
  std::vector<Eigen::Vector2d> grid;
  for (double v : vs) {
    for (double u : us) grid.emplace_back(u, v);
  }
  return grid;
}

/// Points the camera sees: bearings of pixels spread over the image (plus the axis), at random depths.
std::vector<Eigen::Vector3d> visible_points(const CameraModel& camera, int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, camera.width() - 1.0), v(0.0, camera.height() - 1.0), depth(0.3, 30.0);
  std::vector<Eigen::Vector3d> points = {Eigen::Vector3d(0.0, 0.0, 2.0)};
  for (int attempt = 0; attempt < 10 * count && static_cast<int>(points.size()) < count; ++attempt) {
    Eigen::Vector3d ray;
    if (camera.unproject(Eigen::Vector2d(u(rng), v(rng)), ray)) points.push_back(depth(rng) * ray);
  }
  EXPECT_EQ(static_cast<int>(points.size()), count) << "unproject fails inside the image";
  return points;
}

TEST(CameraModelTest, DistortionNamesAndAliases) {
  EXPECT_STREQ(to_string(Distortion::NONE), "none");
  EXPECT_STREQ(to_string(Distortion::RADTAN), "radtan");
  EXPECT_STREQ(to_string(Distortion::EQUIDISTANT), "equidistant");
  const std::vector<std::pair<std::string, Distortion>> names = {{"none", Distortion::NONE},
                                                                 {"radtan", Distortion::RADTAN},
                                                                 {"plumb_bob", Distortion::RADTAN},
                                                                 {"equidistant", Distortion::EQUIDISTANT},
                                                                 {"fisheye", Distortion::EQUIDISTANT}};
  for (const auto& [name, expected] : names) {
    Distortion d = expected == Distortion::NONE ? Distortion::RADTAN : Distortion::NONE;
    EXPECT_TRUE(distortion_from_string(name, d)) << name;
    EXPECT_EQ(d, expected) << name;
  }
  Distortion d = Distortion::RADTAN;
  EXPECT_FALSE(distortion_from_string("kannala_brandt", d));
  EXPECT_FALSE(distortion_from_string("Radtan", d));
  EXPECT_EQ(d, Distortion::RADTAN);
}

TEST(CameraModelTest, CheckNamesTheFieldAndTheOffendingValue) {
  for (const auto& c : all_models()) EXPECT_EQ(CameraModel::check(c), "") << name_of(c);

  const auto message = [](const std::function<void(CameraIntrinsics&)>& edit, const CameraIntrinsics& base) {
    CameraIntrinsics c = base;
    edit(c);
    return CameraModel::check(c);
  };
  const CameraIntrinsics radtan = radtan_intrinsics();
  std::string m = message([](CameraIntrinsics& c) { c.fx = -458.5; }, radtan);
  EXPECT_NE(m.find("fx"), std::string::npos) << m;
  EXPECT_NE(m.find("-458.5"), std::string::npos) << m;
  EXPECT_NE(m.find("positive"), std::string::npos) << m;
  m = message([](CameraIntrinsics& c) { c.fy = 0.0; }, radtan);
  EXPECT_NE(m.find("fy is 0 "), std::string::npos) << m;
  m = message([](CameraIntrinsics& c) { c.fy = std::nan(""); }, radtan);
  EXPECT_NE(m.find("fy is nan"), std::string::npos) << m;
  m = message([](CameraIntrinsics& c) { c.width = 0; }, radtan);
  EXPECT_NE(m.find("width is 0"), std::string::npos) << m;
  m = message([](CameraIntrinsics& c) { c.height = -3; }, radtan);
  EXPECT_NE(m.find("height is -3"), std::string::npos) << m;
  m = message([](CameraIntrinsics& c) { c.cx = 800.25; }, radtan);
  EXPECT_NE(m.find("cx is 800.25"), std::string::npos) << m;
  EXPECT_NE(m.find("751.5"), std::string::npos) << m;  // the expected range's end
  m = message([](CameraIntrinsics& c) { c.cy = -1.0; }, radtan);
  EXPECT_NE(m.find("cy is -1"), std::string::npos) << m;

  m = message([](CameraIntrinsics& c) { c.coeffs = {-0.28, 0.07, 1e-4}; }, radtan);
  EXPECT_NE(m.find("'radtan' has 3 coefficients"), std::string::npos) << m;
  EXPECT_NE(m.find("expected 4"), std::string::npos) << m;
  m = message([](CameraIntrinsics& c) { c.coeffs.push_back(0.1); }, fisheye_intrinsics());
  EXPECT_NE(m.find("'equidistant' has 5 coefficients"), std::string::npos) << m;
  m = message([](CameraIntrinsics& c) { c.coeffs = {0.0}; }, pinhole_intrinsics());
  EXPECT_NE(m.find("'none' has 1 coefficients"), std::string::npos) << m;
  m = message([](CameraIntrinsics& c) { c.coeffs[2] = std::numeric_limits<double>::infinity(); }, radtan);
  EXPECT_NE(m.find("coefficient 2 (p1) is inf"), std::string::npos) << m;

  CameraIntrinsics bad = radtan;
  bad.fx = -458.5;
  try {
    CameraModel camera(bad);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("-458.5"), std::string::npos) << e.what();
  }
}

TEST(CameraModelTest, DistortionMatchesTheClosedFormByHand) {
  // radtan, k1 = -0.28, k2 = 0.07, p1 = 1e-4, p2 = -2e-4, k3 = 0, at xn = (0.3, -0.2):
  //   r^2 = 0.09 + 0.04 = 0.13
  //   R   = 1 + k1 r^2 + k2 r^4 = 1 - 0.0364 + 0.07 * 0.0169 = 0.964783
  //   xd  = x R + 2 p1 x y + p2 (r^2 + 2 x^2) = 0.2894349 - 0.000012 - 0.000062 = 0.2893609
  //   yd  = y R + p1 (r^2 + 2 y^2) + 2 p2 x y = -0.1929566 + 0.000021 + 0.000024 = -0.1929116
  const CameraModel radtan(radtan_intrinsics());
  const Eigen::Vector2d xd = radtan.distort(Eigen::Vector2d(0.3, -0.2));
  EXPECT_NEAR(xd.x(), 0.2893609, 1e-15);
  EXPECT_NEAR(xd.y(), -0.1929116, 1e-15);
  // ... and the pixel of the point (0.3, -0.2, 1) * 2.5: u = fx xd + cx, v = fy yd + cy.
  Eigen::Vector2d uv;
  ASSERT_TRUE(radtan.project(Eigen::Vector3d(0.75, -0.5, 2.5), uv));
  EXPECT_NEAR(uv.x(), 458.654 * 0.2893609 + 367.215, 1e-12);
  EXPECT_NEAR(uv.y(), 457.296 * -0.1929116 + 248.375, 1e-12);

  // equidistant, k = (-0.013, 0.023, -0.012, 0.0024), at xn = (0.6, 0.8) (r = 1):
  //   theta   = atan(1) = pi / 4 = 0.7853981633974483
  //   theta_d = theta (1 + k1 theta^2 + k2 theta^4 + k3 theta^6 + k4 theta^8) = 0.7840342840868795
  //   xd      = theta_d / r * xn = (0.4704205704521277, 0.6272274272695036)
  const CameraModel fisheye(fisheye_intrinsics());
  const double t = kPi / 4.0, t2 = t * t;
  const double theta_d = t * (1.0 - 0.013 * t2 + 0.023 * t2 * t2 - 0.012 * t2 * t2 * t2 + 0.0024 * t2 * t2 * t2 * t2);
  EXPECT_NEAR(theta_d, 0.7840342840868795, 1e-15);
  const Eigen::Vector2d xf = fisheye.distort(Eigen::Vector2d(0.6, 0.8));
  EXPECT_NEAR(xf.x(), 0.4704205704521277, 1e-15);
  EXPECT_NEAR(xf.y(), 0.6272274272695036, 1e-15);
  // A point 90 deg off the axis (z = 0): theta = pi / 2, theta_d = 1.5969404386502852, u = fx theta_d + cx.
  ASSERT_TRUE(fisheye.project(Eigen::Vector3d(0.0, 3.0, 0.0), uv));
  EXPECT_NEAR(uv.x(), 319.5, 1e-12);
  EXPECT_NEAR(uv.y(), 250.0 * 1.5969404386502852 + 255.5, 1e-9);

  // pinhole: u = fx x / z + cx.
  const CameraModel pinhole(pinhole_intrinsics());
  ASSERT_TRUE(pinhole.project(Eigen::Vector3d(0.5, -0.25, 2.0), uv));
  EXPECT_NEAR(uv.x(), 520.0 * 0.25 + 321.3, 1e-12);
  EXPECT_NEAR(uv.y(), 515.0 * -0.125 + 239.1, 1e-12);
}

TEST(CameraModelTest, UnprojectThenProjectRoundTripsOverTheWholeImage) {
  for (const auto& intrinsics : all_models()) {
    const CameraModel camera(intrinsics);
    int behind = 0;
    double worst = 0.0;
    const auto grid = pixel_grid(camera, 4.0);
    for (const auto& uv : grid) {
      Eigen::Vector3d ray;
      ASSERT_TRUE(camera.unproject(uv, ray)) << name_of(intrinsics) << " at " << uv.transpose();
      EXPECT_NEAR(ray.norm(), 1.0, 1e-12);
      if (ray.z() <= 0.0) ++behind;
      for (double depth : {0.5, 7.0}) {
        Eigen::Vector2d back;
        ASSERT_TRUE(camera.project(depth * ray, back)) << name_of(intrinsics) << " at " << uv.transpose();
        worst = std::max(worst, (back - uv).norm());
        EXPECT_NEAR(back.x(), uv.x(), 1e-9) << name_of(intrinsics) << " at " << uv.transpose();
        EXPECT_NEAR(back.y(), uv.y(), 1e-9) << name_of(intrinsics) << " at " << uv.transpose();
      }
    }
    // The fisheye corners look past 90 deg: the round trip must cover rays with z <= 0 too.
    EXPECT_EQ(behind > 0, intrinsics.distortion == Distortion::EQUIDISTANT) << name_of(intrinsics) << ": " << behind << " rays with z <= 0";
    EXPECT_LT(worst, 1e-9) << name_of(intrinsics);
  }
}

TEST(CameraModelTest, ProjectThenUnprojectGivesTheBearing) {
  for (const auto& intrinsics : all_models()) {
    const CameraModel camera(intrinsics);
    for (const auto& p : visible_points(camera, 500, 7)) {
      Eigen::Vector2d uv;
      ASSERT_TRUE(camera.project(p, uv)) << name_of(intrinsics) << " " << p.transpose();
      Eigen::Vector3d ray;
      ASSERT_TRUE(camera.unproject(uv, ray)) << name_of(intrinsics) << " " << uv.transpose();
      EXPECT_LT((ray - p.normalized()).norm(), 1e-11) << name_of(intrinsics) << " " << p.transpose();
    }
  }
}

TEST(CameraModelTest, UndistortInvertsDistortInNormalizedCoordinates) {
  for (const auto& intrinsics : all_models()) {
    const CameraModel camera(intrinsics);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> coordinate(-1.2, 1.2);
    for (int i = 0; i < 500; ++i) {
      const Eigen::Vector2d xn(coordinate(rng), coordinate(rng));
      const Eigen::Vector2d xd = camera.distort(xn);
      Eigen::Vector2d back;
      ASSERT_TRUE(camera.undistort(xd, back)) << name_of(intrinsics) << " " << xn.transpose();
      EXPECT_LT((back - xn).norm(), 1e-11) << name_of(intrinsics) << " " << xn.transpose();
      EXPECT_LT((camera.distort(back) - xd).norm(), CameraModel::kUndistortTolerance) << name_of(intrinsics);
    }
  }
}

TEST(CameraModelTest, ProjectJacobianMatchesCentralDifferences) {
  for (const auto& intrinsics : all_models()) {
    const CameraModel camera(intrinsics);
    auto points = visible_points(camera, 400, 11);
    points.push_back(Eigen::Vector3d(1e-12, -2e-12, 1.5));  // next to the axis: the fisheye's series branch
    if (intrinsics.distortion == Distortion::EQUIDISTANT) {
      points.push_back(Eigen::Vector3d(2.0, 1.0, 0.0));    // 90 deg
      points.push_back(Eigen::Vector3d(-1.0, 0.5, -0.2));  // behind the camera plane
    }
    for (const auto& p : points) {
      Eigen::Vector2d uv;
      Eigen::Matrix<double, 2, 3> J;
      ASSERT_TRUE(camera.project(p, uv, &J)) << name_of(intrinsics) << " " << p.transpose();
      Eigen::Matrix<double, 2, 3> numeric;
      const double h = 1e-5 * p.norm();
      for (int k = 0; k < 3; ++k) {
        Eigen::Vector3d plus = p, minus = p;
        plus[k] += h;
        minus[k] -= h;
        Eigen::Vector2d uv_plus, uv_minus;
        ASSERT_TRUE(camera.project(plus, uv_plus) && camera.project(minus, uv_minus));
        numeric.col(k) = (uv_plus - uv_minus) / (2.0 * h);
      }
      const double scale = J.norm();
      for (int r = 0; r < 2; ++r) {
        for (int k = 0; k < 3; ++k) EXPECT_NEAR(J(r, k), numeric(r, k), 1e-6 * scale) << name_of(intrinsics) << " at " << p.transpose();
      }
    }
  }
}

TEST(CameraModelTest, DistortJacobianMatchesCentralDifferences) {
  for (const auto& intrinsics : all_models()) {
    const CameraModel camera(intrinsics);
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> coordinate(-1.5, 1.5);
    std::vector<Eigen::Vector2d> points = {Eigen::Vector2d::Zero(), Eigen::Vector2d(3e-9, -1e-9), Eigen::Vector2d(0.0, 0.7)};
    for (int i = 0; i < 300; ++i) points.emplace_back(coordinate(rng), coordinate(rng));
    for (const auto& xn : points) {
      Eigen::Matrix2d J;
      const Eigen::Vector2d xd = camera.distort(xn, &J);
      EXPECT_EQ(xd, camera.distort(xn));  // the Jacobian does not change the value
      Eigen::Matrix2d numeric;
      const double h = 1e-6;
      for (int k = 0; k < 2; ++k) {
        Eigen::Vector2d plus = xn, minus = xn;
        plus[k] += h;
        minus[k] -= h;
        numeric.col(k) = (camera.distort(plus) - camera.distort(minus)) / (2.0 * h);
      }
      const double scale = J.norm();
      for (int r = 0; r < 2; ++r) {
        for (int k = 0; k < 2; ++k) EXPECT_NEAR(J(r, k), numeric(r, k), 1e-6 * scale) << name_of(intrinsics) << " at " << xn.transpose();
      }
    }
  }
}

TEST(CameraModelTest, PointsBehindTheCameraOrPastTheFoldAreRefused) {
  Eigen::Vector2d uv(-7.0, -7.0);
  for (const auto& intrinsics : {pinhole_intrinsics(), radtan_intrinsics()}) {
    const CameraModel camera(intrinsics);
    EXPECT_FALSE(camera.project(Eigen::Vector3d(0.1, 0.2, 0.0), uv)) << name_of(intrinsics);
    EXPECT_FALSE(camera.project(Eigen::Vector3d(0.1, 0.2, -1.0), uv)) << name_of(intrinsics);
    EXPECT_FALSE(camera.project(Eigen::Vector3d(0.0, 0.0, 1e-12), uv)) << name_of(intrinsics);
    EXPECT_FALSE(camera.project(Eigen::Vector3d(std::nan(""), 0.0, 1.0), uv)) << name_of(intrinsics);
    EXPECT_EQ(uv, Eigen::Vector2d(-7.0, -7.0));                 // untouched
    EXPECT_DOUBLE_EQ(camera.max_incidence_angle(), kPi / 2.0);  // these coefficients do not fold
  }

  // Fisheye: anything below the maximum angle, z <= 0 included; never the origin or straight behind.
  const CameraModel fisheye(fisheye_intrinsics());
  EXPECT_DOUBLE_EQ(fisheye.max_incidence_angle(), kPi);  // theta_d keeps growing up to pi
  EXPECT_TRUE(fisheye.project(Eigen::Vector3d(1.0, 0.0, -0.1), uv));
  EXPECT_TRUE(fisheye.project(Eigen::Vector3d(1e-3, 0.0, -1.0), uv));
  EXPECT_FALSE(fisheye.project(Eigen::Vector3d(0.0, 0.0, -1.0), uv));
  EXPECT_FALSE(fisheye.project(Eigen::Vector3d::Zero(), uv));
  Eigen::Vector2d xn;
  // Undistort has no normalized coordinates for rays at or past 90 deg; unproject does (z < 0).
  const double theta_d_80deg = fisheye.distort(Eigen::Vector2d(std::tan(80.0 * kPi / 180.0), 0.0)).x();
  EXPECT_TRUE(fisheye.undistort(Eigen::Vector2d(theta_d_80deg, 0.0), xn));
  EXPECT_NEAR(xn.x(), std::tan(80.0 * kPi / 180.0), 1e-10);
  EXPECT_FALSE(fisheye.undistort(Eigen::Vector2d(1.7, 0.0), xn));  // theta_d(pi/2) = 1.597
  Eigen::Vector3d ray;
  ASSERT_TRUE(fisheye.unproject(Eigen::Vector2d(319.5 + 250.0 * 1.7, 255.5), ray));
  EXPECT_LT(ray.z(), 0.0);

  // radtan k1 = -0.28 alone: d(r (1 + k1 r^2))/dr = 1 - 0.84 r^2 vanishes at r = 1 / sqrt(0.84) = 1.0910894511799618,
  // where r (1 + k1 r^2) peaks at 0.7273929674533078.
  CameraIntrinsics folding = radtan_intrinsics();
  folding.coeffs = {-0.28, 0.0, 0.0, 0.0};
  const CameraModel radtan(folding);
  EXPECT_NEAR(radtan.max_incidence_angle(), std::atan(1.0910894511799618), 1e-12);
  EXPECT_TRUE(radtan.project(Eigen::Vector3d(1.08, 0.0, 1.0), uv));
  EXPECT_FALSE(radtan.project(Eigen::Vector3d(1.1, 0.0, 1.0), uv));
  EXPECT_FALSE(radtan.project(Eigen::Vector3d(0.0, 3.0, 1.0), uv));  // would land back inside: 3 (1 - 0.28 * 9) = -4.56
  EXPECT_TRUE(radtan.undistort(Eigen::Vector2d(0.72, 0.0), xn));
  EXPECT_LT(xn.norm(), 1.0910894511799618);
  EXPECT_FALSE(radtan.undistort(Eigen::Vector2d(0.73, 0.0), xn));  // no solution before the fold

  // Fisheye k1 = -0.3 alone: d(theta (1 - 0.3 theta^2))/dtheta = 1 - 0.9 theta^2 vanishes at 1.0540925533894598,
  // where theta_d peaks at 0.7027283689263066.
  CameraIntrinsics folding_fisheye = fisheye_intrinsics();
  folding_fisheye.coeffs = {-0.3, 0.0, 0.0, 0.0};
  const CameraModel short_fisheye(folding_fisheye);
  EXPECT_NEAR(short_fisheye.max_incidence_angle(), 1.0540925533894598, 1e-12);
  EXPECT_TRUE(short_fisheye.project(Eigen::Vector3d(std::tan(1.05), 0.0, 1.0), uv));
  EXPECT_FALSE(short_fisheye.project(Eigen::Vector3d(std::tan(1.06), 0.0, 1.0), uv));
  EXPECT_TRUE(short_fisheye.unproject(Eigen::Vector2d(319.5 + 250.0 * 0.70, 255.5), ray));
  EXPECT_NEAR(std::acos(ray.z()), 1.0, 1e-9);  // 1 - 0.3 * 1^3 = 0.70
  EXPECT_FALSE(short_fisheye.unproject(Eigen::Vector2d(319.5 + 250.0 * 0.71, 255.5), ray));
  EXPECT_FALSE(short_fisheye.unproject(Eigen::Vector2d(std::nan(""), 255.5), ray));
}

TEST(CameraModelTest, InImageIsWhereSamplingWorks) {
  const CameraModel camera(fisheye_intrinsics());  // 640 x 512
  EXPECT_TRUE(camera.in_image(Eigen::Vector2d(0.0, 0.0)));
  EXPECT_FALSE(camera.in_image(Eigen::Vector2d(-1e-9, 10.0)));
  EXPECT_TRUE(camera.in_image(Eigen::Vector2d(639.0 - 1e-9, 511.0 - 1e-9)));
  EXPECT_FALSE(camera.in_image(Eigen::Vector2d(639.0, 10.0)));
  EXPECT_FALSE(camera.in_image(Eigen::Vector2d(10.0, 511.0)));
  EXPECT_TRUE(camera.in_image(Eigen::Vector2d(3.0, 3.0), 3.0));
  EXPECT_FALSE(camera.in_image(Eigen::Vector2d(2.99, 3.0), 3.0));
  EXPECT_TRUE(camera.in_image(Eigen::Vector2d(636.0 - 1e-9, 3.0), 3.0));
  EXPECT_FALSE(camera.in_image(Eigen::Vector2d(636.0, 3.0), 3.0));
  EXPECT_FALSE(camera.in_image(Eigen::Vector2d(std::nan(""), 3.0)));

  // With border b, every offset of at most b from uv samples.
  const GrayImage image(640, 512, 1.0f);
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-5.0, 645.0), v(-5.0, 517.0);
  const double border = 2.0;
  for (int i = 0; i < 2000; ++i) {
    const Eigen::Vector2d uv(u(rng), v(rng));
    float value = 0.0f;
    EXPECT_EQ(camera.in_image(uv), sample(image, uv.x(), uv.y(), value)) << uv.transpose();
    if (!camera.in_image(uv, border)) continue;
    for (double du : {-border, 0.0, border}) {
      for (double dv : {-border, 0.0, border}) EXPECT_TRUE(sample(image, uv.x() + du, uv.y() + dv, value)) << uv.transpose();
    }
  }
}

}  // namespace
}  // namespace asuka::camera
