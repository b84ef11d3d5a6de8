#pragma once
// Colour accuracy of a coloured map of a simulated bag (#20): how far the map's point colours are from
// what the simulated camera sees at those points. No ROS.
//
// A visual frontend colours its map in radiance, in the gauge of one image: colour = 255 * 0.9 * g0 *
// radiance (camera_sim.hpp: surface_radiance), with g0 the exposure gain of an image the checker cannot
// know. So the check reports the error twice: with the gain of the bag's first image (the gauge a
// frontend that takes its first image as the reference should have), and after the one global gain that
// best maps the expected colours onto the map's (an error that a gain cannot explain is in the colours).
//
// A map point is checked where the scene surface that a camera position sees in the point's direction
// lies within a tolerance of the point; points off every surface (or hidden from every camera position
// tried) are not, nor are those whose expected colour saturates (the renderer clamps at 255).

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <asuka_sim/scene.hpp>

namespace asuka::sim {

struct ColourCheckParams {
  double tolerance = 0.05;           ///< [m] a scene hit this close to a map point (plus tolerance_fraction of the range) is its surface
  double tolerance_fraction = 0.01;  ///< of the range from the camera position to the point
  double saturation = 250.0;         ///< [grey levels] points whose expected colour exceeds this in a channel are not checked
  double reference_gain = 1.0;       ///< the gauge: exposure gain of the bag's first image (its exposure / kNominalExposure)
  bool rgb = true;                   ///< the images were rgb8; false: grey (mono8, JPEG), the expected channels equal
  int viewpoints = 3;                ///< nearest camera positions cast from, nearest first, until one sees the point's surface
  double viewpoint_spacing = 0.05;   ///< [m] camera positions closer than this to the previous one kept are dropped (speed)
  int threads = 2;                   ///< the result does not depend on it
};

struct ColourCheckResult {
  std::size_t points = 0;      ///< map points
  std::size_t on_surface = 0;  ///< points within the tolerance of the surface a camera position sees in their direction
  std::size_t saturated = 0;   ///< of those, not checked: an expected channel above `saturation` at the fitted gain
  std::size_t checked = 0;     ///< compared: on_surface - saturated
  // Errors are per point the absolute difference between measured and expected colour averaged over
  // the three channels [grey levels], then the mean or median over the checked points.
  double reference_gain = 1.0;          ///< the gauge (ColourCheckParams::reference_gain)
  double reference_mean_error = 0.0;    ///< [grey levels] expected at reference_gain
  double reference_median_error = 0.0;  ///< [grey levels]
  double gain = 0.0;                    ///< the global gain that minimizes the mean error (a weighted median of measured / expected)
  double mean_error = 0.0;              ///< [grey levels] expected at `gain`
  double median_error = 0.0;            ///< [grey levels]

  double checked_fraction() const { return points ? static_cast<double>(checked) / static_cast<double>(points) : 0.0; }
};

/// The colour that the simulated camera gives the surface point p seen from `origin` at exposure gain
/// 1 [grey levels, before noise and clamping]: 255 * 0.9 * surface_radiance. `hit` is the scene hit of
/// the ray from `origin` through p.
Eigen::Vector3d expected_colour(const Scene& scene, const Hit& hit, const Eigen::Vector3d& p, const Eigen::Vector3d& origin, bool rgb);

/// Checks the colours `rgb` of the map `points` (both in the simulator's world frame [m]) against the
/// scene, seen from `camera_positions` (world [m]: where the camera was when the bag's images were
/// taken, or any positions on the trajectory). One colour per point.
ColourCheckResult check_colours(const Scene& scene, const std::vector<Eigen::Vector3d>& camera_positions, const std::vector<Eigen::Vector3f>& points,
                                const std::vector<std::array<std::uint8_t, 3>>& rgb, const ColourCheckParams& params = {});

/// One line: "colour check: N points, M checked (P %): mean |error| E grey levels after a global gain of
/// G (E0 with the first image's gain G0), median D".
std::string format_colour_check(const ColourCheckResult& result);

}  // namespace asuka::sim
