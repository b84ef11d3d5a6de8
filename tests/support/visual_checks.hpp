#pragma once
// Checks the visual frontends' tests share (fastlivo, srlivo): the estimated inverse exposure of
// every image (exposure.csv) against the simulator's auto-exposure (sim.json), relative to the first
// image the frontend used (the gauge), and a simulated camera bag.

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <asuka_sim/simulation.hpp>

namespace asuka::test {

inline sim::SimParams camera_bag(const std::string& scene, double duration, std::uint64_t seed = 1) {
  sim::SimParams p;
  p.scene = scene;
  p.duration = duration;
  p.seed = seed;
  p.camera.model = "pinhole";
  return p;
}

struct ExposureErrors {
  std::size_t images = 0;
  double mean = 0.0, max = 0.0;            ///< relative error of tau against the truth
  double true_min = 1e9, true_max = 0.0;   ///< the true exposure's range, relative to the gauge image
};

/// Reads `exposure_csv` and the images of `sim_json`; an estimated image time without a simulated
/// image is a test failure.
inline ExposureErrors exposure_errors(const std::filesystem::path& exposure_csv, const std::filesystem::path& sim_json) {
  std::ifstream sim_file(sim_json);
  const auto sim = nlohmann::json::parse(sim_file);
  std::map<long long, double> exposure;  // by image time in 0.1 ms
  for (const auto& image : sim["camera"]["images"]) exposure[std::llround(image["time_s"].get<double>() * 1e4)] = image["exposure_s"].get<double>();
  std::ifstream csv(exposure_csv);
  EXPECT_TRUE(csv.good()) << exposure_csv;
  ExposureErrors e;
  double first_exposure = 0.0, sum = 0.0;
  for (std::string line; std::getline(csv, line);) {
    if (line.empty() || line[0] == '#') continue;
    double t = 0.0, tau = 0.0;
    char comma = 0;
    std::istringstream(line) >> t >> comma >> tau;
    const auto it = exposure.find(std::llround(t * 1e4));
    EXPECT_NE(it, exposure.end()) << "no simulated image at " << line;
    if (it == exposure.end()) continue;
    if (e.images == 0) first_exposure = it->second;
    const double relative_exposure = it->second / first_exposure;  // the true tau is its inverse
    const double error = std::abs(tau * relative_exposure - 1.0);
    sum += error;
    e.max = std::max(e.max, error);
    e.true_min = std::min(e.true_min, relative_exposure);
    e.true_max = std::max(e.true_max, relative_exposure);
    ++e.images;
  }
  e.mean = e.images > 0 ? sum / static_cast<double>(e.images) : 0.0;
  std::printf("inverse exposure: mean relative error %.2f %%, max %.2f %% over %zu images (the exposure varied %.2f-%.2f)\n", 100 * e.mean, 100 * e.max,
              e.images, e.true_min, e.true_max);
  return e;
}

}  // namespace asuka::test
