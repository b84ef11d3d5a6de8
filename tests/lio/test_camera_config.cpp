// #13: the camera block of a visual frontend's config (sensor.camera): values, T_imu_camera, and
// errors that name the key and the value.

#include <gtest/gtest.h>

#include <asuka/config/config.hpp>
#include <asuka/lio/camera_config.hpp>

namespace asuka::lio {
namespace {

std::string with(const std::string& camera_json) { return R"({"sensor": {"camera": )" + camera_json + "}}"; }

const char* kGood = R"({"width": 640, "height": 512, "fx": 420, "fy": 421, "cx": 319.5, "cy": 255.5, "distortion": "plumb_bob",
                        "coeffs": [-0.12, 0.03, 0.0002, -0.0001], "extrinsic_t": [0.06, 0.0, 0.03],
                        "extrinsic_R": [0, 0, 1, -1, 0, 0, 0, -1, 0]})";

TEST(CameraConfigTest, ReadsIntrinsicsDistortionAndTheExtrinsic) {
  const auto config = Config::parse(with(kGood), "config_odometry_fastlivo.json");
  const auto camera = CameraConfig::from_config(config);
  ASSERT_TRUE(camera);
  EXPECT_EQ(camera->intrinsics.width, 640);
  EXPECT_EQ(camera->intrinsics.fy, 421.0);
  EXPECT_EQ(camera->intrinsics.distortion, camera::Distortion::RADTAN);
  EXPECT_EQ(camera->intrinsics.coeffs.size(), 4u);
  // The camera looks along the IMU's x axis: its z axis is the IMU's x.
  EXPECT_TRUE(camera->T_imu_camera.linear().col(2).isApprox(Eigen::Vector3d::UnitX()));
  EXPECT_TRUE(camera->T_imu_camera.translation().isApprox(Eigen::Vector3d(0.06, 0.0, 0.03)));
  EXPECT_NO_THROW(camera::CameraModel(camera->intrinsics));
}

TEST(CameraConfigTest, NoBlockMeansNoCamera) {
  EXPECT_FALSE(CameraConfig::from_config(Config::parse(R"({"sensor": {}})", "c.json")));
}

TEST(CameraConfigTest, ErrorsNameTheKeyAndTheValue) {
  auto error_of = [](const std::string& camera_json) {
    try {
      CameraConfig::from_config(Config::parse(with(camera_json), "config_odometry_fastlivo.json"));
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto no_focal = error_of(R"({"width": 640, "height": 512, "fx": 0, "fy": 420, "cx": 319.5, "cy": 255.5})");
  EXPECT_NE(no_focal.find("config_odometry_fastlivo.json"), std::string::npos) << no_focal;
  EXPECT_NE(no_focal.find("sensor.camera"), std::string::npos) << no_focal;
  EXPECT_NE(no_focal.find("fx"), std::string::npos) << no_focal;

  const auto coeffs = error_of(R"({"width": 640, "height": 512, "fx": 420, "fy": 420, "cx": 319.5, "cy": 255.5, "distortion": "fisheye", "coeffs": [0.1]})");
  EXPECT_NE(coeffs.find("coeff"), std::string::npos) << coeffs;

  const auto missing = error_of(R"({"width": 640, "fx": 420, "fy": 420, "cx": 319.5, "cy": 255.5})");
  EXPECT_NE(missing.find("sensor.camera.height"), std::string::npos) << missing;

  const auto model = error_of(R"({"width": 640, "height": 512, "fx": 420, "fy": 420, "cx": 319.5, "cy": 255.5, "distortion": "kb8"})");
  EXPECT_NE(model.find("equidistant"), std::string::npos) << model;  // lists the valid names

  const auto rotation = error_of(R"({"width": 640, "height": 512, "fx": 420, "fy": 420, "cx": 319.5, "cy": 255.5,
                                     "extrinsic_R": [1, 0, 0, 0, 1, 0, 0, 0.5, 1]})");
  EXPECT_NE(rotation.find("sensor.camera.extrinsic_R"), std::string::npos) << rotation;
  EXPECT_NE(rotation.find("not a rotation matrix"), std::string::npos) << rotation;
}

}  // namespace
}  // namespace asuka::lio
