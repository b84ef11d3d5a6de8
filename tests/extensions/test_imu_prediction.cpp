// imu_prediction extension (R-CB-2): anchored on estimates at 10 Hz, it predicts the body state at
// IMU rate; against an analytic ground truth the error between anchors stays small, and a late
// anchor is re-propagated through the samples that came after it.

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include <asuka/core/callbacks.hpp>
#include <asuka/core/extension_module.hpp>

namespace asuka {
namespace {

constexpr double kG = 9.80665;

/// A smooth trajectory with an analytic position and angular velocity; orientation integrated
/// finely (20 kHz) so that it is exact to far below the errors under test.
class GroundTruth {
public:
  explicit GroundTruth(double duration) {
    const double dt = 1.0 / 20000.0;
    Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
    for (double t = 0.0; t <= duration + 1e-9; t += dt) {
      rotations_.push_back(R);
      const Eigen::Vector3d w = omega(t + 0.5 * dt);
      R = R * Eigen::AngleAxisd(w.norm() * dt, w.normalized()).toRotationMatrix();
    }
    dt_ = dt;
  }
  static Eigen::Vector3d omega(double t) { return {0.3 * std::sin(1.1 * t), 0.2 * std::cos(0.7 * t), 0.8 * std::sin(0.5 * t) + 0.3}; }
  static Eigen::Vector3d position(double t) { return {2.0 * std::sin(0.5 * t), 1.5 * std::cos(0.4 * t) - 1.5, 0.3 * std::sin(0.9 * t)}; }
  static Eigen::Vector3d velocity(double t) { return {1.0 * std::cos(0.5 * t), -0.6 * std::sin(0.4 * t), 0.27 * std::cos(0.9 * t)}; }
  static Eigen::Vector3d acceleration(double t) { return {-0.5 * std::sin(0.5 * t), -0.24 * std::cos(0.4 * t), -0.243 * std::sin(0.9 * t)}; }
  Eigen::Matrix3d rotation(double t) const { return rotations_.at(static_cast<std::size_t>(std::lround(t / dt_))); }

  ImuData imu(double t) const {
    ImuData s;
    s.stamp = t;
    s.gyro = omega(t);
    s.acc = rotation(t).transpose() * (acceleration(t) - Eigen::Vector3d(0.0, 0.0, -kG));  // specific force
    return s;
  }
  EstimationFrame::Ptr anchor(double t) const {
    auto f = std::make_shared<EstimationFrame>();
    f->stamp = t - 0.1;
    f->pose_stamp = t;
    f->T_world_imu.linear() = rotation(t);
    f->T_world_imu.translation() = position(t);
    f->v_world = velocity(t);
    return f;
  }

private:
  std::vector<Eigen::Matrix3d> rotations_;
  double dt_ = 0.0;
};

class ImuPredictionTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string error;
    extension = ExtensionModule::load_module(std::string(ASUKA_BINARY_DIR) + "/lib/libasuka_extension_imu_prediction.so", &error);
    ASSERT_TRUE(extension) << error;
    connection = connect(OdometryCallbacks::on_imu_prediction, [this](const PredictedState& s) { predictions.push_back(s); });
  }

  ExtensionModule::Ptr extension;
  ScopedConnection connection;
  std::vector<PredictedState> predictions;
};

TEST_F(ImuPredictionTest, R_CB_2_PredictsBetweenAnchorsAtImuRate) {
  const GroundTruth gt(5.0);
  const double imu_dt = 1.0 / 200.0;
  for (int k = 0; k <= 1000; ++k) {
    const double t = k * imu_dt;
    OdometryCallbacks::on_insert_imu(gt.imu(t));
    if (k % 20 == 0) OdometryCallbacks::on_new_frame(gt.anchor(t));  // 10 Hz, as a frontend emits
  }
  // One prediction per IMU sample after the first anchor, plus one per anchor.
  EXPECT_EQ(predictions.size(), 1000u + 51u);
  double max_position = 0.0;
  double max_angle = 0.0;
  for (const auto& s : predictions) {
    max_position = std::max(max_position, (s.T_world_imu.translation() - GroundTruth::position(s.stamp)).norm());
    max_angle = std::max(max_angle, Eigen::AngleAxisd(gt.rotation(s.stamp).transpose() * s.T_world_imu.linear()).angle());
    EXPECT_LT((s.v_world - GroundTruth::velocity(s.stamp)).norm(), 1e-3) << s.stamp;
  }
  // Errors of the trapezoid integration over at most 0.1 s at 200 Hz; a wrong gravity sign or a
  // frame mix-up gives centimetres.
  EXPECT_LT(max_position, 1e-4);
  EXPECT_LT(max_angle, 1e-4);
  EXPECT_TRUE(extension->ok());
}

TEST_F(ImuPredictionTest, R_CB_2_LateAnchorIsRepropagated) {
  const GroundTruth gt(2.0);
  const double imu_dt = 1.0 / 200.0;
  for (int k = 0; k <= 60; ++k) OdometryCallbacks::on_insert_imu(gt.imu(k * imu_dt));
  // The estimate for t = 0.2 arrives when the IMU has reached 0.3 (a slow frontend).
  predictions.clear();
  OdometryCallbacks::on_new_frame(gt.anchor(0.2));
  ASSERT_EQ(predictions.size(), 1u);
  EXPECT_NEAR(predictions[0].stamp, 0.3, 1e-9);
  EXPECT_LT((predictions[0].T_world_imu.translation() - GroundTruth::position(0.3)).norm(), 1e-4);
}

TEST_F(ImuPredictionTest, NoPredictionBeforeTheFirstEstimate) {
  const GroundTruth gt(1.0);
  for (int k = 0; k < 50; ++k) OdometryCallbacks::on_insert_imu(gt.imu(k * 0.005));
  EXPECT_TRUE(predictions.empty());
}

}  // namespace
}  // namespace asuka
