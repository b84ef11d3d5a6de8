#include <asuka_sim/memory_feed.hpp>

namespace asuka::sim {

LidarType lidar_type_of(const LidarModel& model) {
  switch (model.format) {
    case CloudFormat::LIVOX:
      return LidarType::LIVOX;
    case CloudFormat::VELODYNE:
      return LidarType::VELODYNE;
    case CloudFormat::OUSTER:
      return LidarType::OUSTER;
    case CloudFormat::ROBOSENSE:
      return LidarType::ROBOSENSE;
    case CloudFormat::HESAI:
      return LidarType::HESAI;
  }
  return LidarType::LIVOX;
}

namespace {

class MemorySink : public SimSink {
public:
  MemorySink(const SimParams& params, const MemoryFeed& feed) : params_(params), feed_(feed), type_(lidar_type_of(make_lidar(params.lidar))) {}

  void imu(double, const ImuSample& sample) override {
    ImuData imu = sample.measured;
    imu.stamp = static_cast<double>(params_.start_time) + sample.measured.stamp + params_.imu_time_offset;
    if (params_.acc_in_g) imu.acc /= kGravity;
    if (feed_.imu) feed_.imu(imu);
  }

  void frame(double, const SimFrame& f) override {
    auto frame = std::make_shared<LidarFrame>();
    frame->stamp = static_cast<double>(f.clock0) + f.start;
    frame->lidar_type = type_;
    frame->has_point_time = !params_.faults.no_point_time;
    frame->points.reserve(f.points.size());
    for (const auto& p : f.points) {
      Point q;
      q.x = p.p_lidar.x();
      q.y = p.p_lidar.y();
      q.z = p.p_lidar.z();
      q.intensity = p.intensity;
      q.offset_ms = frame->has_point_time ? static_cast<float>(p.offset * 1e3) : 0.0f;
      q.ring = p.ring;
      q.line = static_cast<std::uint8_t>(p.ring);
      frame->points.push_back(q);
    }
    if (feed_.frame) feed_.frame(std::move(frame));
  }

  void image(double, const SimImage& sim) override {
    if (!feed_.image) return;
    auto image = std::make_shared<Image>();
    image->stamp = static_cast<double>(sim.clock0) + sim.stamp;
    image->exposure_seconds = sim.exposure;
    image->width = sim.width;
    image->height = sim.height;
    image->encoding = sim.channels == 3 ? ImageEncoding::RGB8 : ImageEncoding::MONO8;
    image->stride = static_cast<std::size_t>(sim.width * sim.channels);
    auto pixels = std::make_shared<std::vector<std::uint8_t>>(sim.pixels);
    image->pixels = std::shared_ptr<const std::uint8_t>(pixels, pixels->data());
    feed_.image(std::move(image));
  }

  void ground_truth(const StampedPose& pose) override { truth_.ground_truth.push_back(pose); }
  void dead_reckoning(const StampedPose& pose) override { truth_.dead_reckoning.push_back(pose); }
  void degeneracy_truth(double stamp, const Localizability& truth) override { truth_.degeneracy_truth.emplace_back(stamp, truth); }

  /// The series the simulation handed out, moved into `out`.
  void move_truth_into(SimOutput& out) {
    out.ground_truth = std::move(truth_.ground_truth);
    out.dead_reckoning = std::move(truth_.dead_reckoning);
    out.degeneracy_truth = std::move(truth_.degeneracy_truth);
  }

private:
  const SimParams& params_;
  const MemoryFeed& feed_;
  LidarType type_;
  SimOutput truth_;
};

}  // namespace

SimOutput simulate_in_memory(const SimParams& params, const MemoryFeed& feed) {
  MemorySink sink(params, feed);
  SimOutput out = simulate(params, sink);
  sink.move_truth_into(out);
  return out;
}

}  // namespace asuka::sim
