// #17: the scenes generated from a seed (generated_scenes.hpp). Every solid goes through Layout,
// which keeps it clear of every loop a trajectory can take; the structure a scene needs (walls,
// ceilings' beams) is required to be clear, so a generator that would block the path fails loudly
// (std::logic_error) instead of leaving a hole.

#include <asuka_sim/generated_scenes.hpp>
#include <asuka_sim/trajectory.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace asuka::sim {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kSampleSpacing = 0.5;  // [m] of loop_samples(): the clearance is measured with this margin
constexpr double kBump = 0.25;          // [m] the sensor's largest vertical excursion about its height (bumps)

/// The random draws of one scene: its own stream, so adding a draw to one generator changes no other.
class Draw {
public:
  Draw(std::uint64_t seed, std::uint64_t salt) : rng_(seed * 0x9E3779B97F4A7C15ULL + salt) {}
  double uniform(double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng_); }
  /// Between a and b, uniform in the logarithm (heights, sizes spanning a decade).
  double log_uniform(double a, double b) { return std::exp(uniform(std::log(a), std::log(b))); }
  bool chance(double p) { return uniform(0.0, 1.0) < p; }
  int integer(int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng_); }

private:
  std::mt19937_64 rng_;
};

/// The solids of a scene being generated, kept clear of every loop a trajectory can take in the
/// free region: the sensor, at its height give or take the bumps, stays `clearance` from each.
class Layout {
public:
  Layout(const Eigen::Vector2d& free_center, const Eigen::Vector2d& free_half_size, double sensor_height)
  : free_center_(free_center), free_half_size_(free_half_size), sensor_height_(sensor_height) {
    for (const auto& s : loop_samples(free_center, free_half_size, kSampleSpacing)) bins_[key(cell_of(s.x()), cell_of(s.y()))].push_back(s);
  }

  /// Adds `p` unless it would come within `clearance` [m] of the sensor on a loop; whether it did.
  bool add(const Primitive& p, double clearance) {
    if (!clear(p, clearance)) return false;
    primitives_.push_back(p);
    return true;
  }
  /// Structure the scene cannot do without (walls): throws std::logic_error if it is not clear.
  void require(const Primitive& p, double clearance, const char* what) {
    if (!add(p, clearance)) throw std::logic_error(std::string("generated scene: a ") + what + " stands on the trajectory's loop (a generator's bug)");
  }

  std::shared_ptr<Scene> build(const std::string& name, std::optional<double> ceiling, double cell_size) {
    auto scene = std::make_shared<Scene>(name, std::move(primitives_), 0.0, ceiling, cell_size);
    scene->free_center = free_center_;
    scene->free_half_size = free_half_size_;
    scene->sensor_height = sensor_height_;
    return scene;
  }

private:
  static constexpr double kCell = 2.0;  // [m] bins of the loop samples
  static int cell_of(double v) { return static_cast<int>(std::floor(v / kCell)); }
  static std::uint64_t key(int x, int y) { return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(x)) << 32) | static_cast<std::uint32_t>(y); }

  bool clear(const Primitive& p, double clearance) const {
    const double reach = clearance + kSampleSpacing;
    const auto b = p.bounds_xy();
    for (int x = cell_of(b[0] - reach); x <= cell_of(b[2] + reach); ++x) {
      for (int y = cell_of(b[1] - reach); y <= cell_of(b[3] + reach); ++y) {
        const auto it = bins_.find(key(x, y));
        if (it == bins_.end()) continue;
        for (const auto& s : it->second) {
          for (double dz : {-kBump, 0.0, kBump}) {
            if (p.distance(Eigen::Vector3d(s.x(), s.y(), sensor_height_ + dz)) < reach) return false;
          }
        }
      }
    }
    return true;
  }

  Eigen::Vector2d free_center_;
  Eigen::Vector2d free_half_size_;
  double sensor_height_;
  std::unordered_map<std::uint64_t, std::vector<Eigen::Vector2d>> bins_;
  std::vector<Primitive> primitives_;
};

/// A tree: a trunk and, if `crown` > 0, a round crown of that radius at its top (kept above the
/// sensor). Added only if the trunk is clear; the crown then always is.
void add_tree(Layout& layout, double x, double y, double trunk_height, double trunk_radius, double crown, double clearance) {
  if (!layout.add(make_cylinder(x, y, trunk_height, trunk_radius), clearance)) return;
  if (crown > 0.0) layout.add(make_sphere(x, y, std::max(trunk_height, crown + 3.5), crown), clearance);
}

/// A mound of the ground: the cap of a sphere of radius `radius` standing `height` above z = 0.
Primitive mound(double x, double y, double radius, double height) { return make_sphere(x, y, height - radius, radius); }

/// A wall from (x0, y0) to (x1, y1) along x or y, `half_thickness` each side, standing on the ground.
Primitive wall(double x0, double y0, double x1, double y1, double half_thickness, double height) {
  const bool along_x = std::fabs(x1 - x0) >= std::fabs(y1 - y0);
  const double hx = along_x ? 0.5 * std::fabs(x1 - x0) : half_thickness;
  const double hy = along_x ? half_thickness : 0.5 * std::fabs(y1 - y0);
  return make_box(0.5 * (x0 + x1), 0.5 * (y0 + y1), 0.5 * height, hx, hy, 0.5 * height);
}

/// Alternating spans outwards from `inner` (streets of [street_min, street_max], blocks of
/// [block_min, block_max]) up to `outer`: the blocks' [begin, end] on the positive side.
std::vector<std::pair<double, double>> blocks_outwards(Draw& draw, double inner, double outer, double street_min, double street_max, double block_min,
                                                       double block_max) {
  std::vector<std::pair<double, double>> out;
  double edge = inner;
  while (edge < outer) {
    const double begin = edge + draw.uniform(street_min, street_max);
    const double end = begin + draw.uniform(block_min, block_max);
    out.emplace_back(begin, end);
    edge = end;
  }
  return out;
}

}  // namespace

std::shared_ptr<Scene> generated_city(std::uint64_t seed) {
  Draw draw(seed, 0xC171);
  const Eigen::Vector2d free_half(draw.uniform(16.0, 24.0), draw.uniform(14.0, 22.0));
  Layout layout(Eigen::Vector2d::Zero(), free_half, 1.3);
  // The plaza is the grid's central cell; streets of 10-18 m and blocks of 25-50 m alternate outwards.
  const Eigen::Vector2d plaza(free_half.x() + draw.uniform(2.0, 6.0), free_half.y() + draw.uniform(2.0, 6.0));
  std::vector<std::pair<double, double>> spans[2];
  for (int axis = 0; axis < 2; ++axis) {
    const auto positive = blocks_outwards(draw, plaza[axis], 130.0, 10.0, 18.0, 25.0, 50.0);
    const auto negative = blocks_outwards(draw, plaza[axis], 130.0, 10.0, 18.0, 25.0, 50.0);
    for (auto it = negative.rbegin(); it != negative.rend(); ++it) spans[axis].emplace_back(-it->second, -it->first);
    spans[axis].emplace_back(-plaza[axis], plaza[axis]);  // the plaza's row and column
    spans[axis].insert(spans[axis].end(), positive.begin(), positive.end());
  }
  for (const auto& [x0, x1] : spans[0]) {
    for (const auto& [y0, y1] : spans[1]) {
      const bool is_plaza = x0 < 0.0 && x1 > 0.0 && y0 < 0.0 && y1 > 0.0;
      if (is_plaza) continue;
      // A block of 1-3 lots cut along its longer side.
      const bool cut_x = (x1 - x0) >= (y1 - y0);
      const int lots = draw.integer(1, 3);
      const double a0 = cut_x ? x0 : y0, a1 = cut_x ? x1 : y1;
      for (int k = 0; k < lots; ++k) {
        double l0 = a0 + (a1 - a0) * k / lots, l1 = a0 + (a1 - a0) * (k + 1) / lots;
        if (k > 0) l0 += draw.uniform(0.0, 2.0);  // a passage between neighbours
        const double bx0 = cut_x ? l0 : x0, bx1 = cut_x ? l1 : x1, by0 = cut_x ? y0 : l0, by1 = cut_x ? y1 : l1;
        const double cx = 0.5 * (bx0 + bx1), cy = 0.5 * (by0 + by1);
        if (draw.chance(0.12)) {  // a car park: cars in a row
          for (int n = draw.integer(0, 6); n > 0; --n) {
            layout.add(make_box(draw.uniform(bx0 + 2.5, bx1 - 2.5), draw.uniform(by0 + 2.5, by1 - 2.5), 0.75, 2.2, 0.95, 0.75, draw.uniform(-0.2, 0.2) + (draw.chance(0.5) ? 0.0 : 0.5 * kPi)), 1.5);
          }
          continue;
        }
        const double setback_x = draw.uniform(0.0, 6.0), setback_y = draw.uniform(0.0, 6.0);
        const double hx = std::max(2.0, 0.5 * (bx1 - bx0) - setback_x), hy = std::max(2.0, 0.5 * (by1 - by0) - setback_y);
        const double height = draw.log_uniform(4.0, 45.0);
        const double yaw = draw.chance(0.2) ? draw.uniform(-0.25, 0.25) : 0.0;
        const double shrink = yaw != 0.0 ? 0.8 : 1.0;  // a turned building stays inside its lot
        if (!layout.add(make_box(cx, cy, 0.5 * height, shrink * hx, shrink * hy, 0.5 * height, yaw), 2.0)) continue;
        if (draw.chance(0.3)) {  // a tower on a podium
          const double extra = draw.uniform(10.0, 40.0);
          layout.add(make_box(cx + draw.uniform(-0.2, 0.2) * hx, cy + draw.uniform(-0.2, 0.2) * hy, height + 0.5 * extra, draw.uniform(0.35, 0.6) * hx,
                              draw.uniform(0.35, 0.6) * hy, 0.5 * extra, yaw),
                     2.0);
        }
      }
      // Along the block's edges facing a street near the plaza: poles, trees and parked cars on the kerb.
      if (std::max(std::min(std::fabs(x0), std::fabs(x1)), std::min(std::fabs(y0), std::fabs(y1))) > 90.0) continue;
      for (int edge = 0; edge < 4; ++edge) {
        const bool along_x = edge < 2;
        const double fixed = edge == 0 ? y0 - 1.0 : edge == 1 ? y1 + 1.0 : edge == 2 ? x0 - 1.0 : x1 + 1.0;  // 1 m into the street
        const double out = (edge == 0 || edge == 2) ? -1.0 : 1.0;
        const double from = along_x ? x0 : y0, to = along_x ? x1 : y1;
        const double pole_gap = draw.uniform(12.0, 25.0);
        const bool trees = draw.chance(0.4), cars = draw.chance(0.5);
        for (double s = from + draw.uniform(0.0, pole_gap); s < to; s += pole_gap) {
          const double px = along_x ? s : fixed, py = along_x ? fixed : s;
          layout.add(make_cylinder(px, py, draw.uniform(5.0, 9.0), draw.uniform(0.08, 0.15)), 1.5);
          if (trees) {
            const double ts = s + 0.5 * pole_gap;
            if (ts < to) add_tree(layout, along_x ? ts : fixed, along_x ? fixed : ts, draw.uniform(2.5, 4.0), draw.uniform(0.12, 0.25), draw.uniform(1.2, 2.5), 1.5);
          }
        }
        if (cars) {
          for (double s = from + draw.uniform(2.0, 8.0); s + 2.2 < to; s += draw.uniform(5.0, 14.0)) {
            const double off = fixed + out * 1.8;
            layout.add(make_box(along_x ? s : off, along_x ? off : s, 0.75, along_x ? 2.2 : 0.95, along_x ? 0.95 : 2.2, 0.75, draw.uniform(-0.05, 0.05)), 1.5);
          }
        }
      }
    }
  }
  // The plaza: a fountain, kiosks, trees, benches and poles wherever they clear the loops.
  for (int n = draw.integer(6, 16); n > 0; --n) {
    const double x = draw.uniform(-plaza.x(), plaza.x()), y = draw.uniform(-plaza.y(), plaza.y());
    switch (draw.integer(0, 4)) {
      case 0: layout.add(make_cylinder(x, y, draw.uniform(0.5, 1.2), draw.uniform(2.0, 5.0)), 2.0); break;
      case 1: layout.add(make_box(x, y, 1.3, draw.uniform(1.0, 2.0), draw.uniform(1.0, 2.0), 1.3, draw.uniform(0.0, kPi)), 2.0); break;
      case 2: add_tree(layout, x, y, draw.uniform(2.5, 4.0), draw.uniform(0.15, 0.3), draw.uniform(1.5, 3.0), 2.0); break;
      case 3: layout.add(make_box(x, y, 0.4, 1.0, 0.35, 0.4, draw.uniform(0.0, kPi)), 2.0); break;
      default: layout.add(make_cylinder(x, y, draw.uniform(3.0, 8.0), draw.uniform(0.1, 0.6)), 2.0); break;
    }
  }
  return layout.build("city", std::nullopt, 5.0);
}

std::shared_ptr<Scene> generated_forest(std::uint64_t seed) {
  Draw draw(seed, 0xF0E5);
  const Eigen::Vector2d free_half(draw.uniform(12.0, 20.0), draw.uniform(9.0, 15.0));
  Layout layout(Eigen::Vector2d::Zero(), free_half, 1.3);
  const double radius = 60.0;
  const auto anywhere = [&]() {
    const double r = radius * std::sqrt(draw.uniform(0.0, 1.0)), a = draw.uniform(0.0, 2.0 * kPi);
    return Eigen::Vector2d(r * std::cos(a), r * std::sin(a));
  };
  // The ground: mounds low enough to pass under the sensor, where the path crosses them.
  for (int n = draw.integer(20, 40); n > 0; --n) {
    const auto c = anywhere();
    layout.add(mound(c.x(), c.y(), draw.uniform(5.0, 15.0), draw.uniform(0.2, 0.7)), 0.6);
  }
  // Trunks at a density of 0.015-0.05 per m^2 (170-570 trunks), a share of them with a crown.
  const double density = draw.uniform(0.015, 0.05);
  const double broadleaf = draw.uniform(0.2, 0.7);
  const int trunks = static_cast<int>(density * kPi * radius * radius);
  for (int n = 0; n < trunks; ++n) {
    const auto c = anywhere();
    const double trunk_radius = draw.log_uniform(0.08, 0.45);
    const double height = draw.uniform(6.0, 20.0);
    const double crown = draw.chance(broadleaf) ? draw.uniform(1.5, 3.5) : 0.0;
    add_tree(layout, c.x(), c.y(), height, trunk_radius, crown, 1.0);
  }
  // Bushes, fallen logs and rocks.
  for (int n = draw.integer(30, 80); n > 0; --n) {
    const auto c = anywhere();
    const double r = draw.uniform(0.3, 0.9);
    layout.add(make_sphere(c.x(), c.y(), 0.5 * r, r), 0.8);
  }
  for (int n = draw.integer(5, 15); n > 0; --n) {
    const auto c = anywhere();
    const double r = draw.uniform(0.15, 0.3);
    layout.add(make_box(c.x(), c.y(), r, draw.uniform(1.5, 4.0), r, r, draw.uniform(0.0, kPi)), 0.8);
  }
  for (int n = draw.integer(10, 30); n > 0; --n) {
    const auto c = anywhere();
    const double r = draw.uniform(0.3, 1.2);
    layout.add(make_sphere(c.x(), c.y(), -0.3 * r, r), 0.8);
  }
  return layout.build("forest", std::nullopt, 4.0);
}

std::shared_ptr<Scene> generated_indoor(std::uint64_t seed) {
  Draw draw(seed, 0x1D00);
  const double ceiling = draw.uniform(2.6, 3.8);
  const double X = draw.uniform(14.0, 22.0), Y = draw.uniform(9.0, 13.0);
  const double hall = draw.uniform(2.0, 3.2);  // half width of the central hall
  const double t = 0.1;                        // half thickness of the walls
  // The loops run along the hall, 1.2 m from its walls at their widest.
  const Eigen::Vector2d free_half(X - 4.5, (hall - 1.2) / 0.7);
  Layout layout(Eigen::Vector2d::Zero(), free_half, 1.2);
  layout.require(wall(-X, Y, X, Y, t, ceiling), 0.5, "wall");
  layout.require(wall(-X, -Y, X, -Y, t, ceiling), 0.5, "wall");
  layout.require(wall(X, -Y, X, Y, t, ceiling), 0.5, "wall");
  layout.require(wall(-X, -Y, -X, Y, t, ceiling), 0.5, "wall");
  for (double side : {1.0, -1.0}) {
    // Rooms of 3.5-8 m along the hall; the first on the +y side is the stairwell.
    double x0 = -X;
    bool first = true;
    while (x0 < X - 1e-9) {
      double x1 = x0 + draw.uniform(3.5, 8.0);
      if (X - x1 < 3.5) x1 = X;  // no sliver of a room at the end
      const bool stairwell = first && side > 0.0;
      if (x1 < X) layout.require(wall(x1, side * hall, x1, side * Y, t, ceiling), 0.5, "wall");
      // The wall to the hall: open (20 %), or with a doorway of 0.9-1.8 m at a random place.
      if (stairwell || !draw.chance(0.2)) {
        const double door = draw.uniform(0.9, 1.8);
        const double d0 = draw.uniform(x0 + 0.4, x1 - 0.4 - door);
        if (d0 - x0 > 0.05) layout.require(wall(x0, side * hall, d0, side * hall, t, ceiling), 0.5, "wall");
        if (x1 - d0 - door > 0.05) layout.require(wall(d0 + door, side * hall, x1, side * hall, t, ceiling), 0.5, "wall");
      }
      const double y_near = side * (hall + 0.3), y_far = side * (Y - 0.3);
      if (stairwell) {
        // Two flights of 0.28 m treads side by side, each rising half the floor height, and a landing.
        const int steps = static_cast<int>(std::ceil(ceiling / 0.18));
        const double rise = ceiling / steps;
        const int half_steps = steps / 2;
        const double run = 0.28, width = 1.1;
        const double xa = x0 + 0.3 + 0.5 * width, xb = xa + width;
        const double start = y_near + side * 0.8;
        for (int i = 0; i < half_steps; ++i) {
          const double y = start + side * (i + 0.5) * run;
          const double top = (i + 1) * rise;
          layout.require(make_box(xa, y, 0.5 * top, 0.5 * width, 0.5 * run, 0.5 * top), 0.6, "stair");
        }
        const double landing_y = start + side * (half_steps * run + 0.6);
        const double landing_top = half_steps * rise;
        layout.require(make_box(0.5 * (xa + xb), landing_y, 0.5 * landing_top, width, 0.6, 0.5 * landing_top), 0.6, "landing");
        for (int i = half_steps; i < steps - 1; ++i) {
          const double y = start + side * (half_steps * run - (i - half_steps + 0.5) * run);
          const double top = (i + 1) * rise;
          layout.require(make_box(xb, y, 0.5 * top, 0.5 * width, 0.5 * run, 0.5 * top), 0.6, "stair");
        }
      } else {
        // Desks, cabinets and shelves.
        for (int n = draw.integer(0, 5); n > 0; --n) {
          const double x = draw.uniform(x0 + 0.8, x1 - 0.8), y = draw.uniform(std::min(y_near, y_far) + 0.5, std::max(y_near, y_far) - 0.5);
          if (draw.chance(0.5)) {
            layout.add(make_box(x, y, 0.37, draw.uniform(0.5, 0.9), draw.uniform(0.35, 0.5), 0.37, draw.uniform(-0.3, 0.3)), 0.8);
          } else {
            const double h = draw.uniform(0.6, 1.0);
            layout.add(make_box(x, y, h, draw.uniform(0.2, 0.3), draw.uniform(0.4, 0.8), h, draw.chance(0.5) ? 0.0 : 0.5 * kPi), 0.8);
          }
        }
      }
      x0 = x1;
      first = false;
    }
  }
  // The hall: a row of pillars along each wall (where they clear the loops), benches and plants.
  if (draw.chance(0.6)) {
    const double gap = draw.uniform(4.0, 7.0), r = draw.uniform(0.15, 0.3);
    for (double side : {1.0, -1.0}) {
      for (double x = -X + draw.uniform(1.0, gap); x < X - 1.0; x += gap) layout.add(make_cylinder(x, side * (hall - 0.5), ceiling, r), 0.8);
    }
  }
  for (int n = draw.integer(2, 8); n > 0; --n) {
    const double side = draw.chance(0.5) ? 1.0 : -1.0;
    layout.add(make_box(draw.uniform(-X + 1.0, X - 1.0), side * (hall - 0.35), 0.35, draw.uniform(0.3, 0.9), 0.2, 0.35), 0.8);
  }
  return layout.build("indoor", ceiling, 3.0);
}

std::shared_ptr<Scene> generated_garage(std::uint64_t seed) {
  Draw draw(seed, 0x6A2A);
  const double ceiling = draw.uniform(2.6, 3.2);
  const double X = draw.uniform(24.0, 36.0), Y = draw.uniform(16.0, 26.0);
  const double sx = draw.uniform(7.5, 9.0), sy = draw.uniform(5.5, 7.5);  // pillar spacing
  const bool round = draw.chance(0.3);
  const double pillar = draw.uniform(0.25, 0.45);  // half width or radius
  const double occupancy = draw.uniform(0.4, 0.9);
  const Eigen::Vector2d free_half(X - 6.0, Y - 6.0);
  Layout layout(Eigen::Vector2d::Zero(), free_half, 1.2);
  // Outer walls with one or two entries of 6-8 m on random sides.
  bool entry[4] = {false, false, false, false};
  for (int n = draw.integer(1, 2); n > 0; --n) entry[draw.integer(0, 3)] = true;
  for (int side = 0; side < 4; ++side) {
    const bool along_x = side < 2;
    const double fixed = side == 0 ? -Y : side == 1 ? Y : side == 2 ? -X : X;
    const double half = along_x ? X : Y;
    const auto add = [&](double a, double b) {
      layout.require(along_x ? wall(a, fixed, b, fixed, 0.15, ceiling) : wall(fixed, a, fixed, b, 0.15, ceiling), 0.6, "wall");
    };
    if (!entry[side]) {
      add(-half, half);
      continue;
    }
    const double width = draw.uniform(6.0, 8.0), at = draw.uniform(-half + 2.0, half - 2.0 - width);
    add(-half, at);
    add(at + width, half);
  }
  // Pillars on a grid, beams along its rows under the ceiling, cars in the bays either side of a row.
  const double bx = -X + draw.uniform(1.0, sx), by = -Y + draw.uniform(1.0, sy);
  const double beam = draw.uniform(0.1, 0.15);  // half depth: the beams' underside stays 0.85 m above the sensor
  for (double y = by; y < Y - 0.5; y += sy) {
    layout.require(make_box(0.0, y, ceiling - beam, X, 0.2, beam), 0.3, "beam");
    for (double x = bx; x < X - 0.5; x += sx) {
      layout.add(round ? make_cylinder(x, y, ceiling, pillar) : make_box(x, y, 0.5 * ceiling, pillar, pillar, 0.5 * ceiling), 1.0);
      for (double side : {1.0, -1.0}) {
        for (int k = 0; k < 3; ++k) {
          if (!draw.chance(occupancy)) continue;
          const double tall = draw.chance(0.15) ? 1.1 : 0.75;  // vans among the cars
          layout.add(make_box(x + (k + 0.5) * sx / 3.0, y + side * 2.7, tall, 0.95, 2.2, tall, draw.uniform(-0.08, 0.08)), 1.0);
        }
      }
    }
  }
  return layout.build("garage", ceiling, 4.0);
}

std::shared_ptr<Scene> generated_field(std::uint64_t seed) {
  Draw draw(seed, 0xF1E1);
  const Eigen::Vector2d free_half(draw.uniform(20.0, 30.0), draw.uniform(18.0, 28.0));
  Layout layout(Eigen::Vector2d::Zero(), free_half, 1.3);
  // Rolling ground.
  for (int n = draw.integer(5, 15); n > 0; --n) {
    layout.add(mound(draw.uniform(-80.0, 80.0), draw.uniform(-80.0, 80.0), draw.uniform(20.0, 45.0), draw.uniform(0.2, 0.6)), 0.6);
  }
  // Hedgerows 20-60 m beyond the field's edge, in segments with gaps, with trees along them.
  for (int side = 0; side < 4; ++side) {
    const bool along_x = side < 2;
    const double edge = (along_x ? free_half.y() : free_half.x()) + draw.uniform(20.0, 60.0);
    const double fixed = (side % 2 == 0 ? -1.0 : 1.0) * edge;
    const double thick = draw.uniform(0.6, 1.2), height = draw.uniform(1.5, 3.5);
    const double tree_gap = draw.uniform(8.0, 25.0);
    for (double s = -120.0; s < 120.0;) {
      const double length = draw.uniform(20.0, 60.0);
      const double e = std::min(120.0, s + length);
      layout.add(along_x ? make_box(0.5 * (s + e), fixed, 0.5 * height, 0.5 * (e - s), thick, 0.5 * height)
                         : make_box(fixed, 0.5 * (s + e), 0.5 * height, thick, 0.5 * (e - s), 0.5 * height),
                 1.5);
      for (double a = s + draw.uniform(0.0, tree_gap); a < e; a += tree_gap) {
        if (!draw.chance(0.7)) continue;
        add_tree(layout, along_x ? a : fixed, along_x ? fixed : a, draw.uniform(4.0, 9.0), draw.uniform(0.2, 0.5), draw.uniform(2.0, 4.0), 1.5);
      }
      s = e + draw.uniform(5.0, 20.0);
    }
  }
  // A few isolated trees, barns and bales, and a line of power poles, where they clear the loops.
  const double reach = free_half.maxCoeff() + 20.0;
  for (int n = draw.integer(2, 8); n > 0; --n) {
    add_tree(layout, draw.uniform(-reach, reach), draw.uniform(-reach, reach), draw.uniform(4.0, 9.0), draw.uniform(0.2, 0.5), draw.uniform(2.0, 4.0), 2.0);
  }
  for (int n = draw.integer(0, 2); n > 0; --n) {
    const double h = draw.uniform(2.5, 4.0);
    layout.add(make_box(draw.uniform(-reach, reach), draw.uniform(-reach, reach), h, draw.uniform(4.0, 10.0), draw.uniform(3.0, 6.0), h, draw.uniform(0.0, kPi)), 2.0);
  }
  for (int n = draw.integer(0, 12); n > 0; --n) {
    const double x = draw.uniform(-reach, reach), y = draw.uniform(-reach, reach);
    if (draw.chance(0.5)) {
      layout.add(make_cylinder(x, y, 1.2, 0.75), 2.0);
    } else {
      layout.add(make_box(x, y, 0.45, 1.2, 0.6, 0.45, draw.uniform(0.0, kPi)), 2.0);
    }
  }
  if (draw.chance(0.6)) {
    const double heading = draw.uniform(0.0, kPi), offset = draw.uniform(-reach, reach), gap = draw.uniform(35.0, 50.0);
    const Eigen::Vector2d dir(std::cos(heading), std::sin(heading)), normal(-dir.y(), dir.x());
    for (double s = -150.0; s < 150.0; s += gap) {
      const Eigen::Vector2d p = offset * normal + s * dir;
      layout.add(make_cylinder(p.x(), p.y(), draw.uniform(9.0, 11.0), 0.15), 2.0);
    }
  }
  return layout.build("field", std::nullopt, 6.0);
}

}  // namespace asuka::sim
