// A fake frontend, built only for tests as a real plugin (libasuka_odometry_fake.so). It records what
// it receives in a FakeProbe and can be told to throw, block, report !ok() or hold workload.

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include <fmt/format.h>

#include <asuka/config/config.hpp>
#include <asuka/core/callbacks.hpp>
#include <asuka/core/odometry_estimation.hpp>
#include <asuka/core/plugin_abi.hpp>

#include "fake_probe.hpp"

namespace {

std::shared_ptr<asuka::test::FakeProbe>& latest_probe() {
  static std::shared_ptr<asuka::test::FakeProbe> probe;
  return probe;
}

// Keeps every point except those tagged 0xFF, so tests can see that the host used it (R-PLUG-4).
class FakePreprocess : public asuka::CloudPreprocessor {
public:
  asuka::LidarFrame::Ptr preprocess(const asuka::LidarFrame& raw) const override {
    auto out = std::make_shared<asuka::LidarFrame>(raw);
    out->points.clear();
    for (const auto& p : raw.points) {
      if (p.tag != 0xFF) out->points.push_back(p);
    }
    return out;
  }
};

class FakeFrontend : public asuka::OdometryEstimation {
public:
  FakeFrontend() : probe_(std::make_shared<asuka::test::FakeProbe>()), preprocess_(std::make_shared<FakePreprocess>()) {
    // Reads its config in the constructor, as every frontend does (R-PLUG-3).
    const auto& config = asuka::GlobalConfig::instance().module("config_odometry");
    if (config.get<bool>("fake.fail_in_constructor", false)) throw asuka::ConfigError(config.name() + ": fake.fail_in_constructor is true");
    probe_->process_steps_per_event = config.get<int>("fake.process_steps_per_event", 0);
    uses_images_ = config.get<bool>("fake.uses_images", false);
    degenerate_along_x_ = config.get<bool>("fake.degenerate_along_x", false);
    latest_probe() = probe_;
  }

  void insert_imu(const asuka::ImuData& imu) override { insert("imu", imu.stamp); }
  void insert_frame(const asuka::LidarFrame::ConstPtr& frame) override {
    insert("frame", frame->stamp);
    last_frame_stamp_ = frame->stamp;
  }
  void insert_image(const asuka::Image::ConstPtr& image) override { insert("image", image->stamp); }
  bool uses_images() const override { return uses_images_; }

  bool process_once() override {
    bool emit = false;
    {
      std::lock_guard<std::mutex> lock(probe_->mutex);
      probe_->calls.push_back("process_once");
      if (pending_steps_ == 0) return false;
      --pending_steps_;
      if (pending_steps_ == 0 && pending_frame_) {
        pending_frame_ = false;
        ++probe_->frames_estimated;
        emit = true;
      }
    }
    if (emit) {
      auto result = std::make_shared<asuka::EstimationFrame>();
      result->stamp = last_frame_stamp_;
      result->pose_stamp = last_frame_stamp_;
      // A known extrinsic for the host's report: lidar 0.1, 0.2, 0.3 m from the IMU, turned 90 deg about z.
      result->T_imu_lidar.linear() << 0, -1, 0, 1, 0, 0, 0, 0, 1;
      result->T_imu_lidar.translation() << 0.1, 0.2, 0.3;
      if (degenerate_along_x_) {
        // #21: a corridor along world x: translation along x unconstrained (share 0.002 below the
        // threshold 0.01), the other five directions well constrained.
        asuka::Localizability loc;
        loc.eigenvalues << 0.002, 0.3, 0.4, 0.5, 0.6, 0.7;
        loc.directions.setIdentity();
        loc.directions.col(0).setZero();
        loc.directions(3, 0) = 1.0;  // translation x
        loc.directions.col(3).setZero();
        loc.directions(0, 3) = 1.0;  // rotation x takes its place
        loc.threshold = 0.01;
        loc.degenerate = 1;
        loc.points = 250;
        loc.projected = true;
        result->localizability = loc;
      }
      asuka::OdometryCallbacks::on_new_frame(result);
    }
    return true;
  }

  int workload() const override {
    std::lock_guard<std::mutex> lock(probe_->mutex);
    return pending_steps_ + probe_->workload_hold;
  }

  bool ok() const override {
    std::lock_guard<std::mutex> lock(probe_->mutex);
    return probe_->ok;
  }

  bool save_map(const std::string& path) override {
    probe_->log("save_map " + path);
    return true;
  }

  void reset() override { probe_->log("reset"); }

  asuka::CloudPreprocessor::Ptr cloud_preprocessor() const override { return preprocess_; }

private:
  void insert(const char* kind, double stamp) {
    const bool is_imu = std::string(kind) == "imu";
    std::function<void(bool, double)> hook;
    {
      std::lock_guard<std::mutex> lock(probe_->mutex);
      hook = probe_->on_feed;
    }
    if (hook) hook(is_imu, stamp);

    int sleep_us = 0;
    {
      std::lock_guard<std::mutex> lock(probe_->mutex);
      sleep_us = probe_->sleep_us_per_event;
    }
    if (sleep_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));

    std::unique_lock<std::mutex> lock(probe_->mutex);
    if (probe_->block) {
      ++probe_->blocked;
      probe_->cv.notify_all();
      probe_->cv.wait(lock, [this] { return !probe_->block; });
      --probe_->blocked;
    }
    probe_->calls.push_back(fmt::format("insert {} {:.6f}", kind, stamp));
    probe_->fed_stamps.push_back(stamp);
    if (is_imu) {
      ++probe_->imu_count;
    } else if (std::string(kind) == "frame") {
      ++probe_->frame_count;
    } else {
      ++probe_->image_count;
    }
    if (probe_->throw_on_next_inserts > 0) {
      --probe_->throw_on_next_inserts;
      throw std::runtime_error(fmt::format("fake failure at {:.6f}", stamp));
    }
    pending_steps_ = probe_->process_steps_per_event;
    pending_frame_ = std::string(kind) == "frame" && pending_steps_ > 0;
  }

  std::shared_ptr<asuka::test::FakeProbe> probe_;
  asuka::CloudPreprocessor::Ptr preprocess_;
  int pending_steps_ = 0;  // guarded by probe_->mutex (read by workload() from the test thread too)
  bool pending_frame_ = false;
  bool uses_images_ = false;
  bool degenerate_along_x_ = false;
  double last_frame_stamp_ = 0.0;
};

}  // namespace

ASUKA_PLUGIN_EXPORT_ABI_VERSION()

extern "C" asuka::OdometryEstimation* create_odometry_estimation() { return new FakeFrontend(); }

extern "C" asuka::test::FakeProbe* asuka_fake_frontend_probe() { return latest_probe().get(); }
