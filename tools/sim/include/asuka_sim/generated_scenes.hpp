#pragma once
// #17: scenes generated from a seed. A result over ten seeds of a fixed scene is a result over one
// world; these draw the world itself from the seed (sizes, spacing, heights, setbacks, what stands
// where), so that a benchmark over seeds is a benchmark over worlds. Each keeps every solid clear of
// every loop a trajectory can take in it (loop_samples() in trajectory.hpp), so any profile, fixed
// or random motion, can run in any of them. docs/simulator.md describes each.

#include <cstdint>
#include <memory>

#include <asuka_sim/scene.hpp>

namespace asuka::sim {

/// City blocks around a plaza: a street grid of random widths, blocks of 1-3 lots with buildings of
/// random size, height (4-45 m, some with a tower) and setback, some yawed, some lots left as car
/// parks; poles, trees and parked cars along the streets; a fountain, kiosks and trees in the plaza.
std::shared_ptr<Scene> generated_city(std::uint64_t seed);

/// A forest on uneven ground: trunks of random radius and height at a random density (some with a
/// crown), mounds, bushes, fallen logs and rocks.
std::shared_ptr<Scene> generated_forest(std::uint64_t seed);

/// An office floor: a hall with rooms of random width on both sides, doorways at random places (some
/// rooms open to the hall), a random ceiling height, furniture, pillars, and a stairwell with two
/// flights and a landing.
std::shared_ptr<Scene> generated_indoor(std::uint64_t seed);

/// A parking garage: a low ceiling with beams, a grid of square or round pillars at random spacing,
/// cars parked at random occupancy, outer walls with entries.
std::shared_ptr<Scene> generated_garage(std::uint64_t seed);

/// An open field with sparse structure: rolling ground, hedgerows with trees at 20-60 m beyond the
/// field's edge with gaps, a few isolated trees, barns, bales and a line of power poles.
std::shared_ptr<Scene> generated_field(std::uint64_t seed);

}  // namespace asuka::sim
