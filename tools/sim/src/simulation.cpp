// The simulation itself, with no ROS: the trajectory, the IMU and LiDAR measurements, the faults,
// and every message handed to a SimSink in the order a recorder receives it. simulator.cpp turns
// them into a ROS 1 bag; memory_feed.cpp into decoded data for asuka::Host.
#include <asuka_sim/simulation.hpp>

#include <asuka/lio/degeneracy.hpp>
#include <asuka_sim/degeneracy_truth.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>
#include <utility>

#include <asuka/lio/degeneracy.hpp>
#include <asuka_sim/degeneracy_truth.hpp>

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

/// The IMU faults that change what a sample reads or its stamp (#12), on the published copy.
void apply_imu_value_faults(const FaultParams& faults, std::vector<ImuSample>& samples) {
  const auto every = [](int n, std::size_t k) { return n > 0 && (k + 1) % static_cast<std::size_t>(n) == 0; };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t k = 0; k < samples.size(); ++k) {
    auto& m = samples[k].measured;
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
    if (k > 0 && every(faults.imu_duplicate_every, k)) m.stamp = samples[k - 1].measured.stamp;
  }
}

}  // namespace

SimOutput simulate(const SimParams& params, SimSink& sink) {
  validate(params);
  const auto scene = make_scene(params.scene, params.seed);
  const auto model = make_lidar(params.lidar);
  const Trajectory trajectory(params.trajectory, *scene);
  const Eigen::Isometry3d T_imu_lidar = params.extrinsic_set ? params.T_imu_lidar : model.T_imu_lidar;
  const auto imu = simulate_imu(trajectory, params.duration, params.imu, params.seed);

  SimOutput result;
  result.model = model;
  result.T_imu_lidar = T_imu_lidar;
  result.peaks = trajectory.peaks(params.duration);
  result.first_imu = imu.front();
  result.last_imu = imu.back();

  result.dead_reckoning = dead_reckoning(imu, trajectory, params.trajectory.static_duration, static_cast<double>(params.start_time));
  // Ground truth: the IMU pose at every IMU sample time (true clock).
  auto& gt = result.ground_truth;
  gt.reserve(imu.size());
  for (const auto& s : imu) gt.push_back({static_cast<double>(params.start_time) + s.measured.stamp, trajectory.pose(s.measured.stamp)});

  // IMU messages after the faults, in the order they are written: what the IMU publishes is a copy
  // with the value faults applied; gaps and record times follow the true sample times.
  const auto& faults = params.faults;
  std::vector<ImuSample> published = imu;
  apply_imu_value_faults(faults, published);
  std::vector<const ImuSample*> imu_order;
  // Record (receive) times stay in order; swapped pairs only swap what they carry.
  std::vector<double> imu_received;
  for (std::size_t k = 0; k < imu.size(); ++k) {
    const double t = imu[k].measured.stamp;
    if (faults.imu_gap_length > 0.0 && t >= faults.imu_gap_start && t < faults.imu_gap_start + faults.imu_gap_length) continue;
    imu_order.push_back(&published[k]);
    imu_received.push_back(static_cast<double>(params.start_time) + t + params.imu_time_offset + 0.001);
  }
  std::vector<std::size_t>& swapped = result.swapped_imu;
  if (faults.imu_out_of_order > 0 && imu_order.size() > 4) {
    // Evenly spread pairs, away from the first second (initialization).
    const std::size_t first = std::min(imu_order.size() - 2, static_cast<std::size_t>(params.imu.rate));
    const std::size_t span = imu_order.size() - 1 - first;
    for (int k = 0; k < faults.imu_out_of_order; ++k) {
      const std::size_t i = first + span * static_cast<std::size_t>(k + 1) / static_cast<std::size_t>(faults.imu_out_of_order + 1);
      std::swap(imu_order[i], imu_order[i + 1]);
      swapped.push_back(i);
    }
  }

  const double period = 1.0 / model.rate;
  const int frame_count = static_cast<int>(std::floor((params.duration - period) / period + 1e-9)) + 1;
  const int passes = faults.loop ? 2 : 1;
  const double pass_shift = params.duration + 1.0;  // [s] of record time between the two passes
  std::mt19937_64 rng(params.seed * 0x9E3779B97F4A7C15ULL + 7);
  std::uniform_real_distribution<double> uniform01(0.0, 1.0);
  std::vector<SimFrame> frames;  // cast once; the loop pass writes the same frames again
  std::vector<SurfaceSample> surfaces;
  constexpr double kTruthVoxel = 0.5;  // the frontends' default scan down-sampling [m]
  frames.reserve(static_cast<std::size_t>(frame_count));
  for (int k = 0; k < frame_count; ++k) {
    SimFrame f;
    f.period = period;
    const double true_start = k * period;
    surfaces.clear();
    f.points = cast_frame(model, *scene, trajectory, T_imu_lidar, true_start, params.lidar_noise, params.instantaneous, rng, &surfaces);
    result.degeneracy_truth.emplace_back(static_cast<double>(params.start_time) + true_start + period,
                                         frame_localizability(surfaces, trajectory.pose(true_start + period), kTruthVoxel, lio::kDefaultDegeneracyThreshold));
    f.clock0 = params.start_time;
    f.true_start = true_start;
    f.start = true_start + faults.lidar_time_offset;
    if (faults.nan_points > 0.0) {
      for (auto& p : f.points) {
        if (uniform01(rng) < faults.nan_points) p.p_lidar = Eigen::Vector3f::Constant(std::numeric_limits<float>::quiet_NaN());
      }
    }
    if (faults.empty_frame_every > 0 && (k + 1) % faults.empty_frame_every == 0) f.points.clear();
    frames.push_back(std::move(f));
  }

  // The camera (#13): images at each scan's end (triggered) or on a clock of their own, rendered
  // when written, so that memory does not grow with the duration.
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
    events.push_back({frames[static_cast<std::size_t>(k)].true_start + period + 0.01, false, static_cast<std::size_t>(k)});
  }
  for (std::size_t i = 0; i < image_times.size(); ++i) {
    if (cam.drop_every > 0 && (i + 1) % static_cast<std::size_t>(cam.drop_every) == 0) continue;
    // Read out after the exposure, then 15 ms over the wire.
    events.push_back({image_times[i] + 0.5 * result.image_exposures[i] + 0.015, true, i});
  }
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.received < b.received; });

  for (int pass = 0; pass < passes; ++pass) {
    const double shift = pass * pass_shift;
    std::size_t next_imu = 0;
    auto write_imu_until = [&](double record_time) {
      while (next_imu < imu_order.size() && imu_received[next_imu] + shift <= record_time) {
        sink.imu(imu_received[next_imu] + shift, *imu_order[next_imu]);
        ++next_imu;
      }
    };
    for (const auto& e : events) {
      if (!e.image) {
        const auto& f = frames[e.index];
        const double received = static_cast<double>(f.clock0) + f.true_start + period + 0.01 + shift;  // as written before images existed
        write_imu_until(received);
        sink.frame(received, f);
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
  }
  return result;
}

}  // namespace asuka::sim
