// The simulation itself, with no ROS: the trajectory, the IMU and LiDAR measurements, the faults,
// and every message handed to a SimSink in the order a recorder receives it. simulator.cpp turns
// them into a ROS 1 bag; memory_feed.cpp into decoded data for asuka::Host.
#include <asuka_sim/simulation.hpp>

#include <asuka/lio/degeneracy.hpp>
#include <asuka_sim/degeneracy_truth.hpp>

#include <algorithm>
#include <deque>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <utility>

namespace asuka::sim {

double point_time_unit_scale(const std::string& unit) {
  if (unit == "s") return 1.0;
  if (unit == "ms") return 1e3;
  if (unit == "us") return 1e6;
  if (unit == "ns") return 1e9;
  throw std::invalid_argument("unknown point time unit '" + unit + "'; expected s, ms, us or ns");
}

namespace {

void validate(const SimParams& p) {
  auto positive = [](double v, const char* what) {
    if (!(v > 0.0) || !std::isfinite(v)) throw std::invalid_argument(std::string(what) + " must be a positive number");
  };
  auto non_negative = [](double v, const char* what) {
    if (!(v >= 0.0) || !std::isfinite(v)) throw std::invalid_argument(std::string(what) + " must be >= 0");
  };
  positive(p.duration, "--duration");
  positive(p.imu.rate, "--imu-rate");
  non_negative(p.imu.acc_noise_density, "--acc-noise");
  non_negative(p.imu.gyro_noise_density, "--gyro-noise");
  non_negative(p.imu.acc_bias_walk, "--acc-bias-walk");
  non_negative(p.imu.gyro_bias_walk, "--gyro-bias-walk");
  non_negative(p.imu.acc_bias_initial, "--acc-bias");
  non_negative(p.imu.gyro_bias_initial, "--gyro-bias");
  non_negative(p.imu.gyro_range, "--gyro-range");
  non_negative(p.imu.acc_range, "--acc-range");
  non_negative(p.lidar_noise.range_noise, "--range-noise");
  if (!(p.lidar_noise.dropout >= 0.0 && p.lidar_noise.dropout < 1.0)) throw std::invalid_argument("--dropout must be in [0, 1)");
  if (!(p.faults.nan_points >= 0.0 && p.faults.nan_points <= 1.0)) throw std::invalid_argument("--nan-points must be in [0, 1]");
  if (p.faults.empty_frame_every < 0 || p.faults.drop_frame_every < 0 || p.faults.imu_out_of_order < 0) {
    throw std::invalid_argument("--empty-frame-every, --drop-frame-every and --imu-out-of-order must be >= 0");
  }
  if (p.faults.imu_nan_every < 0 || p.faults.imu_spike_every < 0 || p.faults.imu_duplicate_every < 0) {
    throw std::invalid_argument("--fault-imu-nan-every, --fault-imu-spike-every and --fault-imu-duplicate-every must be >= 0");
  }
  non_negative(p.faults.imu_zeros_at_start, "--fault-imu-zeros-at-start");
  non_negative(p.faults.lidar_late_start, "--fault-lidar-late-start");
  if (!p.faults.point_time_unit.empty()) point_time_unit_scale(p.faults.point_time_unit);
  if (p.trajectory.static_duration < 0.0 || p.trajectory.ramp_duration < 0.0) throw std::invalid_argument("--static must be >= 0");
  const auto& c = p.camera;
  if (!c.model.empty()) {
    make_camera(c.model);  // throws for an unknown name
    positive(c.rate, "--camera-rate");
    non_negative(c.noise, "--camera-noise");
    if (c.format != "mono8" && c.format != "rgb8" && c.format != "jpeg") throw std::invalid_argument("--camera-format must be mono8, rgb8 or jpeg");
    if (c.jpeg_quality < 1 || c.jpeg_quality > 100) throw std::invalid_argument("--camera-jpeg-quality must be in [1, 100]");
    if (c.drop_every < 0 || c.corrupt_jpeg_every < 0) throw std::invalid_argument("--fault-image-drop-every and --fault-corrupt-jpeg-every must be >= 0");
    const double lidar_rate = make_lidar(p.lidar).rate;
    if (!c.free_running && std::fabs(c.rate - lidar_rate) > 1e-9) {
      throw std::invalid_argument("--camera-rate " + std::to_string(c.rate) + " Hz: a camera triggered by the lidar runs at the lidar's rate (" +
                                  std::to_string(lidar_rate) + " Hz); add --camera-free-running for a rate of its own");
    }
  }
}

/// The IMU faults that change what a sample reads or its stamp (#12), on the published copy of
/// sample k; `previous_stamp` is what the sample before it was published with.
void apply_imu_value_faults(const FaultParams& faults, std::size_t k, double previous_stamp, ImuSample& sample) {
  const auto every = [](int n, std::size_t i) { return n > 0 && (i + 1) % static_cast<std::size_t>(n) == 0; };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto& m = sample.measured;
  if (faults.gyro_in_deg) m.gyro *= 180.0 / 3.14159265358979323846;
  if (faults.imu_zero_acc) m.acc.setZero();
  if (m.stamp < faults.imu_zeros_at_start) {
    m.acc.setZero();
    m.gyro.setZero();
  }
  if (every(faults.imu_spike_every, k)) {
    m.gyro = Eigen::Vector3d(1000.0, 0.0, 0.0);
    m.acc = Eigen::Vector3d(0.0, 0.0, 1000.0);
  }
  if (every(faults.imu_nan_every, k)) {
    m.acc = Eigen::Vector3d::Constant(nan);
    m.gyro = Eigen::Vector3d::Constant(nan);
  }
  if (k > 0 && every(faults.imu_duplicate_every, k)) m.stamp = previous_stamp;
}

bool in_imu_gap(const FaultParams& faults, double t) {
  return faults.imu_gap_length > 0.0 && t >= faults.imu_gap_start && t < faults.imu_gap_start + faults.imu_gap_length;
}

/// The IMU messages of one pass in the order they are written, drawn as they are needed: value
/// faults applied, the gap left out, the out-of-order pairs swapped (record times stay in order; a
/// swapped pair only swaps what it carries). With a `sink` for the truth (the first pass), every
/// sample's ground truth and dead reckoning go there as it is drawn.
class ImuStream {
public:
  ImuStream(const SimParams& params, const Trajectory& trajectory, const std::vector<std::size_t>& swapped, SimSink* truth_sink)
      : params_(params),
        trajectory_(trajectory),
        generator_(trajectory, params.duration, params.imu, params.seed),
        swapped_(swapped),
        truth_sink_(truth_sink),
        dead_reckoning_(trajectory, params.trajectory.static_duration, static_cast<double>(params.start_time)) {}

  bool empty() {
    fill();
    return ready_.empty();
  }
  /// [s] the record time of the next message; call only while !empty().
  double next_received() {
    fill();
    return ready_.front().first;
  }
  const ImuSample& front() { return ready_.front().second; }
  void pop() { ready_.pop_front(); }
  const ImuSample& first_drawn() const { return first_; }
  const ImuSample& last_drawn() const { return last_; }

private:
  /// Draws the next sample outside the gap; false at the end.
  bool draw(double& received, ImuSample& published) {
    while (!generator_.done()) {
      const std::size_t k = drawn_++;
      const ImuSample sample = generator_.next();
      if (k == 0) first_ = sample;
      last_ = sample;
      if (truth_sink_) {
        const double t = static_cast<double>(params_.start_time) + sample.measured.stamp;
        truth_sink_->ground_truth({t, trajectory_.pose(sample.measured.stamp)});
        poses_.clear();
        dead_reckoning_.add(sample, poses_);
        for (const auto& pose : poses_) truth_sink_->dead_reckoning(pose);
      }
      published = sample;
      apply_imu_value_faults(params_.faults, k, previous_stamp_, published);
      previous_stamp_ = published.measured.stamp;
      if (in_imu_gap(params_.faults, sample.measured.stamp)) continue;
      received = static_cast<double>(params_.start_time) + sample.measured.stamp + params_.imu_time_offset + 0.001;
      return true;
    }
    return false;
  }

  void fill() {
    if (!ready_.empty()) return;
    double received = 0.0;
    ImuSample sample;
    if (!draw(received, sample)) return;
    const std::size_t position = position_++;
    if (next_swap_ < swapped_.size() && swapped_[next_swap_] == position) {
      ++next_swap_;
      double received_b = 0.0;
      ImuSample sample_b;
      if (draw(received_b, sample_b)) {
        ++position_;
        ready_.emplace_back(received, sample_b);
        ready_.emplace_back(received_b, sample);
        return;
      }
    }
    ready_.emplace_back(received, sample);
  }

  const SimParams& params_;
  const Trajectory& trajectory_;
  ImuGenerator generator_;
  const std::vector<std::size_t>& swapped_;
  SimSink* truth_sink_;
  DeadReckoning dead_reckoning_;
  std::vector<StampedPose> poses_;
  std::deque<std::pair<double, ImuSample>> ready_;
  std::size_t drawn_ = 0, position_ = 0, next_swap_ = 0;
  double previous_stamp_ = 0.0;
  ImuSample first_, last_;
};

}  // namespace

SimOutput simulate(const SimParams& params, SimSink& sink) {
  validate(params);
  const auto scene = make_scene(params.scene, params.seed);
  const auto model = make_lidar(params.lidar);
  const Trajectory trajectory(params.trajectory, *scene);
  const Eigen::Isometry3d T_imu_lidar = params.extrinsic_set ? params.T_imu_lidar : model.T_imu_lidar;
  const auto& faults = params.faults;

  SimOutput result;
  result.model = model;
  result.T_imu_lidar = T_imu_lidar;
  result.peaks = trajectory.peaks(params.duration);

  // The out-of-order IMU pairs: evenly spread over the messages written (the gap left out), away
  // from the first second (initialization). Only stamps are needed to count them.
  std::vector<std::size_t>& swapped = result.swapped_imu;
  if (faults.imu_out_of_order > 0) {
    const ImuGenerator clock(trajectory, params.duration, params.imu, params.seed);
    std::size_t written = 0;
    for (std::size_t k = 0; k < clock.count(); ++k) written += in_imu_gap(faults, clock.stamp(k)) ? 0 : 1;
    if (written > 4) {
      const std::size_t first = std::min(written - 2, static_cast<std::size_t>(params.imu.rate));
      const std::size_t span = written - 1 - first;
      for (int k = 0; k < faults.imu_out_of_order; ++k) {
        const std::size_t i = first + span * static_cast<std::size_t>(k + 1) / static_cast<std::size_t>(faults.imu_out_of_order + 1);
        // Pairs that share or touch a message would swap one twice: too many for the recording.
        if (!swapped.empty() && i < swapped.back() + 2) {
          throw std::invalid_argument("--fault-imu-out-of-order " + std::to_string(faults.imu_out_of_order) + ": at most " +
                                      std::to_string(span / 3) + " pairs fit in this recording's IMU messages after its first second");
        }
        swapped.push_back(i);
      }
    }
  }

  const double period = 1.0 / model.rate;
  const int frame_count = static_cast<int>(std::floor((params.duration - period) / period + 1e-9)) + 1;
  const int passes = faults.loop ? 2 : 1;
  const double pass_shift = params.duration + 1.0;  // [s] of record time between the two passes
  const std::uint64_t frame_seed = params.seed * 0x9E3779B97F4A7C15ULL + 7;
  constexpr double kTruthVoxel = 0.5;  // the frontends' default scan down-sampling [m]

  // The camera (#13): images at each scan's end (triggered) or on a clock of their own, rendered
  // when written.
  const auto& cam = params.camera;
  std::unique_ptr<CameraRenderer> renderer;
  std::vector<double> image_times;
  if (!cam.model.empty()) {
    result.camera = make_camera(cam.model);
    renderer = std::make_unique<CameraRenderer>(*result.camera, *scene, params.seed);
    if (cam.free_running) {
      for (int k = 0;; ++k) {
        const double t = cam.phase + k / cam.rate;
        if (t > params.duration - 1e-9) break;
        image_times.push_back(t);
      }
    } else {
      for (int k = 0; k < frame_count; ++k) image_times.push_back((k + 1) * period - 1e-4);  // with the scan's last point
    }
    for (std::size_t i = 0; i < image_times.size(); ++i) {
      result.image_times.push_back(image_times[i]);
      result.image_exposures.push_back(kNominalExposure * exposure_gain(image_times[i], cam.auto_exposure));
      if (cam.drop_every > 0 && (i + 1) % static_cast<std::size_t>(cam.drop_every) == 0) result.dropped_images.push_back(static_cast<int>(i));
    }
  }

  // Frames and images in the order a recorder receives them.
  struct Event {
    double received;  // relative to clock0, before the pass shift
    bool image;
    std::size_t index;
  };
  std::vector<Event> events;
  for (int k = 0; k < frame_count; ++k) {
    // Drivers publish 10 ms after the sweep really ended, whatever their clock says.
    if (faults.drop_frame_every > 0 && (k + 1) % faults.drop_frame_every == 0) continue;
    if (k * period < faults.lidar_late_start - 1e-9) continue;
    events.push_back({k * period + period + 0.01, false, static_cast<std::size_t>(k)});
  }
  for (std::size_t i = 0; i < image_times.size(); ++i) {
    if (cam.drop_every > 0 && (i + 1) % static_cast<std::size_t>(cam.drop_every) == 0) continue;
    // Read out after the exposure, then 15 ms over the wire.
    events.push_back({image_times[i] + 0.5 * result.image_exposures[i] + 0.015, true, i});
  }
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.received < b.received; });

  // Each pass draws the same IMU samples and casts the same frames again (the same seeds), so
  // that nothing is kept between the passes of a looped recording.
  for (int pass = 0; pass < passes; ++pass) {
    const bool first_pass = pass == 0;
    const double shift = pass * pass_shift;
    ImuStream imu(params, trajectory, swapped, first_pass ? &sink : nullptr);
    auto write_imu_until = [&](double record_time) {
      while (!imu.empty() && imu.next_received() + shift <= record_time) {
        sink.imu(imu.next_received() + shift, imu.front());
        imu.pop();
      }
    };
    // Frames are cast in order (the random draws of one follow the draws of the one before), dropped
    // ones too.
    std::mt19937_64 rng(frame_seed);
    std::uniform_real_distribution<double> uniform01(0.0, 1.0);
    std::vector<SurfaceSample> surfaces;
    int next_cast = 0;
    SimFrame frame;
    auto cast_until = [&](int k) {
      while (next_cast <= k) {
        SimFrame& f = frame;
        f.period = period;
        const double true_start = next_cast * period;
        surfaces.clear();
        f.points = cast_frame(model, *scene, trajectory, T_imu_lidar, true_start, params.lidar_noise, params.instantaneous, rng, &surfaces);
        if (first_pass) {
          sink.degeneracy_truth(static_cast<double>(params.start_time) + true_start + period,
                                frame_localizability(surfaces, trajectory.pose(true_start + period), kTruthVoxel, lio::kDefaultDegeneracyThreshold));
        }
        f.clock0 = params.start_time;
        f.true_start = true_start;
        f.start = true_start + faults.lidar_time_offset;
        if (faults.nan_points > 0.0) {
          for (auto& p : f.points) {
            if (uniform01(rng) < faults.nan_points) p.p_lidar = Eigen::Vector3f::Constant(std::numeric_limits<float>::quiet_NaN());
          }
        }
        if (faults.empty_frame_every > 0 && (next_cast + 1) % faults.empty_frame_every == 0) f.points.clear();
        ++next_cast;
      }
    };
    for (const auto& e : events) {
      if (!e.image) {
        cast_until(static_cast<int>(e.index));
        const double received = static_cast<double>(frame.clock0) + frame.true_start + period + 0.01 + shift;  // as written before images existed
        write_imu_until(received);
        sink.frame(received, frame);
        continue;
      }
      const double received = static_cast<double>(params.start_time) + e.received + shift;
      write_imu_until(received);
      SimImage image;
      image.clock0 = params.start_time;
      image.index = static_cast<int>(e.index);
      image.true_time = image_times[e.index];
      image.stamp = image.true_time + cam.time_offset;
      image.exposure = result.image_exposures[e.index];
      const Eigen::Isometry3d T_world_camera = trajectory.pose(image.true_time) * result.camera->T_imu_camera;
      renderer->render(T_world_camera, exposure_gain(image.true_time, cam.auto_exposure), cam.format == "rgb8", cam.noise, image);
      sink.image(received, image);
    }
    write_imu_until(std::numeric_limits<double>::infinity());
    if (first_pass) {
      cast_until(frame_count - 1);  // the degeneracy truth of frames dropped at the end
      result.first_imu = imu.first_drawn();
      result.last_imu = imu.last_drawn();
    }
  }
  return result;
}

}  // namespace asuka::sim
