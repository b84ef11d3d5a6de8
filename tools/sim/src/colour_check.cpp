#include <asuka_sim/colour_check.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <thread>
#include <utility>

#include <asuka/util/weighted_median.hpp>
#include <asuka_sim/camera_sim.hpp>

namespace asuka::sim {

namespace {

constexpr double kFullScale = 255.0 * 0.9;  // [grey levels] radiance 1 at gain 1 (CameraRenderer::render)
constexpr double kMinRange = 0.02;          // [m] the renderer's ray casts start there

/// One map point on a surface: its expected colour at gain 1 and its measured colour [grey levels].
struct Sample {
  Eigen::Vector3d expected = Eigen::Vector3d::Zero();
  Eigen::Vector3d measured = Eigen::Vector3d::Zero();
};

/// Camera positions thinned to `spacing` along their sequence (a static start repeats one position
/// thousands of times; the nearest-position search is linear in their number).
std::vector<Eigen::Vector3d> thin(const std::vector<Eigen::Vector3d>& positions, double spacing) {
  std::vector<Eigen::Vector3d> kept;
  for (const auto& p : positions) {
    if (!p.allFinite()) continue;
    if (kept.empty() || (p - kept.back()).squaredNorm() >= spacing * spacing) kept.push_back(p);
  }
  return kept;
}

/// The expected colour at gain 1 of the surface under q, cast from the nearest camera positions in
/// turn; nothing when none of them sees a surface within the tolerance of q.
std::optional<Eigen::Vector3d> expected_at(const Scene& scene, const std::vector<Eigen::Vector3d>& origins, const Eigen::Vector3d& q,
                                           const ColourCheckParams& params) {
  // The `viewpoints` nearest positions, nearest first (a small insertion-sorted list).
  const std::size_t k = static_cast<std::size_t>(std::max(1, params.viewpoints));
  std::vector<std::pair<double, std::size_t>> nearest;
  nearest.reserve(k + 1);
  for (std::size_t i = 0; i < origins.size(); ++i) {
    const double d2 = (origins[i] - q).squaredNorm();
    if (nearest.size() == k && d2 >= nearest.back().first) continue;
    auto at = std::upper_bound(nearest.begin(), nearest.end(), std::make_pair(d2, i));
    nearest.insert(at, {d2, i});
    if (nearest.size() > k) nearest.pop_back();
  }
  // q must lie on a surface: within the tolerance of the nearest one.
  if (!(scene.distance(q) <= params.tolerance)) return std::nullopt;
  for (const auto& [d2, i] : nearest) {
    const Eigen::Vector3d& o = origins[i];
    const double range = std::sqrt(d2);
    if (range <= kMinRange) continue;
    const Eigen::Vector3d d = (q - o) / range;
    const double tolerance = params.tolerance + params.tolerance_fraction * range;
    // Along the ray a point off the surface by t is met t / cos(incidence) from it: on ground seen at
    // a grazing angle a centimetre of height is decimetres along the ray (cos floored at 0.05).
    const auto hit = scene.cast(o, d, kMinRange, range + tolerance / 0.05);
    if (!hit) continue;  // q floats in front of every surface in that direction
    const Eigen::Vector3d at = o + hit->range * d;
    const Eigen::Vector3d normal = scene.normal(*hit, at, o);
    const double cos_incidence = std::max(0.05, std::abs(normal.dot(d)));
    if (std::abs(hit->range - range) > tolerance / cos_incidence) continue;  // hidden from o, or another surface
    // The colour of the surface under q: q moved onto the hit's plane along its normal.
    const Eigen::Vector3d foot = q - normal.dot(q - at) * normal;
    return expected_colour(scene, *hit, foot, o, params.rgb);
  }
  return std::nullopt;
}

/// The gain g minimizing sum |m - g e| over the channels of the samples in use (e > 0): the median of
/// m / e weighted by e. `fallback` when there is nothing to fit.
double fit_gain(const std::vector<Sample>& samples, const std::vector<char>& use, double fallback) {
  std::vector<std::pair<double, double>> ratios;  // (m / e, e)
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (!use[i]) continue;
    for (int c = 0; c < 3; ++c) {
      const double e = samples[i].expected[c];
      if (e > 0.0) ratios.emplace_back(samples[i].measured[c] / e, e);
    }
  }
  return weighted_median(ratios).value_or(fallback);
}

/// |measured - gain * expected| averaged over the channels [grey levels].
double point_error(const Sample& s, double gain) { return (s.measured - gain * s.expected).cwiseAbs().mean(); }

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  return 0.5 * (upper + *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid)));
}

}  // namespace

Eigen::Vector3d expected_colour(const Scene& scene, const Hit& hit, const Eigen::Vector3d& p, const Eigen::Vector3d& origin, bool rgb) {
  return kFullScale * surface_radiance(scene, hit, p, origin, rgb);
}

ColourCheckResult check_colours(const Scene& scene, const std::vector<Eigen::Vector3d>& camera_positions, const std::vector<Eigen::Vector3f>& points,
                                const std::vector<std::array<std::uint8_t, 3>>& rgb, const ColourCheckParams& params) {
  ColourCheckResult result;
  result.points = points.size();
  result.reference_gain = params.reference_gain;
  result.gain = params.reference_gain;
  const std::size_t n = std::min(points.size(), rgb.size());
  const auto origins = thin(camera_positions, params.viewpoint_spacing);

  // Every point's expected colour (in parallel: a few ray casts each), then the samples in order.
  std::vector<std::optional<Eigen::Vector3d>> expected(n);
  auto run = [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      if (points[i].allFinite()) expected[i] = expected_at(scene, origins, points[i].cast<double>(), params);
    }
  };
  const std::size_t threads = static_cast<std::size_t>(std::max(1, params.threads));
  std::vector<std::thread> workers;
  for (std::size_t t = 1; t < threads; ++t) workers.emplace_back(run, n * t / threads, n * (t + 1) / threads);
  run(0, n / threads);
  for (auto& worker : workers) worker.join();

  std::vector<Sample> samples;
  for (std::size_t i = 0; i < n; ++i) {
    if (!expected[i]) continue;
    samples.push_back({*expected[i], Eigen::Vector3d(rgb[i][0], rgb[i][1], rgb[i][2])});
  }
  result.on_surface = samples.size();
  if (samples.empty()) return result;

  // The gain and the saturated points depend on each other: fit on every point (channels the map
  // clamped at 255 left out), drop the points that saturate at that gain, refit, until the set holds.
  std::vector<char> use(samples.size(), 1);
  std::vector<char> unclamped(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) unclamped[i] = samples[i].measured.maxCoeff() < 255.0 ? 1 : 0;
  double gain = fit_gain(samples, unclamped, params.reference_gain);
  for (int iteration = 0; iteration < 10; ++iteration) {
    bool changed = false;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const char keep = gain * samples[i].expected.maxCoeff() <= params.saturation ? 1 : 0;
      changed = changed || keep != use[i];
      use[i] = keep;
    }
    if (iteration > 0 && !changed) break;
    gain = fit_gain(samples, use, gain);
  }
  result.gain = gain;

  std::vector<double> errors, reference_errors;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (!use[i]) continue;
    errors.push_back(point_error(samples[i], gain));
    reference_errors.push_back(point_error(samples[i], params.reference_gain));
  }
  result.checked = errors.size();
  result.saturated = result.on_surface - result.checked;
  if (errors.empty()) return result;
  auto mean = [](const std::vector<double>& v) {
    double sum = 0.0;
    for (double x : v) sum += x;
    return sum / static_cast<double>(v.size());
  };
  result.mean_error = mean(errors);
  result.median_error = median(errors);
  result.reference_mean_error = mean(reference_errors);
  result.reference_median_error = median(reference_errors);
  return result;
}

std::string format_colour_check(const ColourCheckResult& r) {
  char line[400];
  std::snprintf(line, sizeof(line),
                "colour check: %zu points, %zu checked (%.0f %%): mean |error| %.1f grey levels after a global gain of %.3f (%.1f with the first "
                "image's gain %.3f), median %.1f",
                r.points, r.checked, 100.0 * r.checked_fraction(), r.mean_error, r.gain, r.reference_mean_error, r.reference_gain, r.median_error);
  return line;
}

}  // namespace asuka::sim
