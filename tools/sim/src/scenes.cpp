// The named scenes. Sizes are chosen so that each has structure in three independent directions
// where scan matching should work, and lacks it where it should not (the corridor).

#include <asuka_sim/generated_scenes.hpp>
#include <asuka_sim/scene.hpp>

#include <cmath>
#include <random>
#include <stdexcept>

namespace asuka::sim {

namespace {

/// An outdoor square of about 70 m x 70 m closed by buildings of different heights (some yawed),
/// with street poles, trees (trunk + crown), parked boxes and benches inside.
std::shared_ptr<Scene> courtyard(std::uint64_t seed) {
  std::mt19937_64 rng(seed * 7919 + 11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Primitive> p;
  // Buildings around the square: a ring of blocks with gaps (streets) between them.
  const double L = 40.0;  // half size of the square
  for (int side = 0; side < 4; ++side) {
    for (int k = -3; k <= 3; ++k) {
      if (k == 0 && side % 2 == 0) continue;  // a street opening
      const double along = k * 11.0;
      const double height = 6.0 + 14.0 * u(rng);
      const double depth = 6.0 + 4.0 * u(rng);
      const double width = 4.0 + 1.0 * u(rng);
      const double yaw = (u(rng) < 0.3) ? (u(rng) - 0.5) * 0.5 : 0.0;
      const double off = L + depth;
      switch (side) {
        case 0: p.push_back(make_box(along, off, height / 2, width, depth, height / 2, yaw)); break;
        case 1: p.push_back(make_box(along, -off, height / 2, width, depth, height / 2, yaw)); break;
        case 2: p.push_back(make_box(off, along, height / 2, depth, width, height / 2, yaw)); break;
        default: p.push_back(make_box(-off, along, height / 2, depth, width, height / 2, yaw)); break;
      }
    }
  }
  // Street poles on a grid, trees, and clutter, kept out of the central driving loop's band.
  for (int i = -3; i <= 3; ++i) {
    for (int j : {-1, 1}) {
      p.push_back(make_cylinder(i * 10.0 + 2.0, j * 33.0, 6.0, 0.12));
      p.push_back(make_cylinder(j * 33.0, i * 10.0 - 3.0, 6.0, 0.12));
    }
  }
  for (int n = 0; n < 24; ++n) {
    const double x = (u(rng) - 0.5) * 70.0, y = (u(rng) - 0.5) * 70.0;
    if (std::max(std::fabs(x), std::fabs(y)) < 24.0) continue;  // keep the driving area free
    switch (n % 3) {
      case 0:  // tree
        p.push_back(make_cylinder(x, y, 3.0, 0.2));
        p.push_back(make_sphere(x, y, 4.2, 1.6 + u(rng)));
        break;
      case 1:  // parked car / container
        p.push_back(make_box(x, y, 0.8, 2.2, 1.0, 0.8, u(rng) * 3.14159));
        break;
      default:  // bench / planter
        p.push_back(make_box(x, y, 0.4, 1.0, 0.4, 0.4, u(rng) * 3.14159));
        break;
    }
  }
  // A few landmarks inside the square, off the driving loop, for vertical structure.
  p.push_back(make_box(8.0, -8.0, 2.0, 1.5, 1.5, 2.0, 0.3));
  p.push_back(make_box(-9.0, 7.0, 1.0, 2.0, 0.8, 1.0, -0.4));
  p.push_back(make_cylinder(20.0, -20.0, 10.0, 0.8));
  p.push_back(make_cylinder(-20.0, 20.0, 8.0, 0.6));
  auto scene = std::make_shared<Scene>("courtyard", std::move(p), 0.0, std::nullopt);
  scene->free_center = Eigen::Vector2d(0.0, 0.0);
  scene->free_half_size = Eigen::Vector2d(22.0, 22.0);
  scene->sensor_height = 1.3;
  return scene;
}

/// An indoor floor: a hall surrounded by rooms with doorways, 3 m ceiling, furniture.
std::shared_ptr<Scene> rooms(std::uint64_t seed) {
  std::mt19937_64 rng(seed * 104729 + 3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Primitive> p;
  const double H = 1.5;   // half wall height (3 m walls)
  const double t = 0.1;   // half wall thickness
  const double X = 15.0, Y = 10.0;  // outer half sizes
  // Outer walls.
  p.push_back(make_box(0, Y, H, X, t, H));
  p.push_back(make_box(0, -Y, H, X, t, H));
  p.push_back(make_box(X, 0, H, t, Y, H));
  p.push_back(make_box(-X, 0, H, t, Y, H));
  // Inner walls splitting rooms off the central hall (|y| < 4), with 1.2 m doorways.
  for (double y : {4.0, -4.0}) {
    for (double x0 = -X; x0 < X - 1e-9; x0 += 6.0) {
      const double door = x0 + 2.0;
      p.push_back(make_box((x0 + door) / 2.0, y, H, (door - x0) / 2.0, t, H));
      p.push_back(make_box((door + 1.2 + x0 + 6.0) / 2.0, y, H, (x0 + 6.0 - door - 1.2) / 2.0, t, H));
    }
  }
  for (double x = -9.0; x <= 9.0; x += 6.0) {
    p.push_back(make_box(x, 7.0, H, t, 3.0, H));
    p.push_back(make_box(x, -7.0, H, t, 3.0, H));
  }
  // Furniture: tables, cabinets, pillars.
  for (int n = 0; n < 30; ++n) {
    const double x = (u(rng) - 0.5) * 28.0, y = (u(rng) - 0.5) * 18.0;
    if (std::fabs(y) < 3.0) continue;  // keep the hall free
    if (n % 2 == 0) {
      p.push_back(make_box(x, y, 0.38, 0.6 + 0.4 * u(rng), 0.4 + 0.3 * u(rng), 0.38, u(rng)));
    } else {
      p.push_back(make_box(x, y, 0.9, 0.3, 0.5, 0.9, u(rng)));
    }
  }
  for (double x : {-10.5, -4.5, 4.5, 10.5}) p.push_back(make_cylinder(x, 3.2, 3.0, 0.25));
  auto scene = std::make_shared<Scene>("rooms", std::move(p), 0.0, 3.0, 3.0);
  scene->free_center = Eigen::Vector2d(0.0, 0.0);
  scene->free_half_size = Eigen::Vector2d(11.0, 2.0);
  scene->sensor_height = 1.2;
  return scene;
}

/// The walls of a straight corridor along x in 20 m segments (the grid stays fine-grained): boxes
/// 0.2 m thick and `height` high centred at y = +-`wall_y`, from x = -`half_length` to `half_length`.
void add_straight_walls(std::vector<Primitive>& p, double half_length, double wall_y, double height) {
  for (double x = -half_length; x < half_length; x += 20.0) {
    p.push_back(make_box(x + 10.0, wall_y, height / 2, 10.0, 0.1, height / 2));
    p.push_back(make_box(x + 10.0, -wall_y, height / 2, 10.0, 0.1, height / 2));
  }
}

/// A straight scene along +x: ground at 0, a ceiling, the region the trajectory may use.
std::shared_ptr<Scene> straight_scene(const std::string& name, std::vector<Primitive> p, double ceiling, const Eigen::Vector2d& free_half_size,
                                      double sensor_height) {
  auto scene = std::make_shared<Scene>(name, std::move(p), 0.0, ceiling, 10.0);
  scene->free_center = Eigen::Vector2d(0.0, 0.0);
  scene->free_half_size = free_half_size;
  scene->sensor_height = sensor_height;
  scene->straight = true;
  return scene;
}

/// A long straight corridor, 2.6 m wide and 3 m high, with ends far beyond any sensor's range:
/// along x nothing constrains the translation (the degenerate case a LIO must survive).
std::shared_ptr<Scene> corridor(std::uint64_t) {
  std::vector<Primitive> p;
  add_straight_walls(p, 1500.0, 1.4, 3.0);
  return straight_scene("corridor", std::move(p), 3.0, Eigen::Vector2d(500.0, 0.4), 1.2);
}

/// The corridor with real geometry every 10-20 m: a door frame (two jambs and a lintel standing
/// 0.12 m out of a wall), on one side or the other. Between frames the corridor is as degenerate as
/// the plain one; a frame in view constrains the translation along it.
std::shared_ptr<Scene> corridor_sparse(std::uint64_t seed) {
  std::mt19937_64 rng(seed * 0x2545F4914F6CDD1DULL + 29);
  std::uniform_real_distribution<double> gap(10.0, 20.0), unit(0.0, 1.0);
  std::vector<Primitive> p;
  add_straight_walls(p, 1500.0, 1.4, 3.0);
  const double depth = 0.06;  // half of the 0.12 m a frame stands out of the wall (inner face at |y| = 1.3)
  for (double x = -600.0 + gap(rng); x < 600.0; x += gap(rng)) {
    const double y = (unit(rng) < 0.5 ? 1.0 : -1.0) * (1.3 - depth);
    p.push_back(make_box(x, y, 1.05, 0.05, depth, 1.05));        // jamb
    p.push_back(make_box(x + 1.0, y, 1.05, 0.05, depth, 1.05));  // jamb, 0.9 m opening
    p.push_back(make_box(x + 0.5, y, 2.15, 0.55, depth, 0.05));  // lintel
  }
  return straight_scene("corridor_sparse", std::move(p), 3.0, Eigen::Vector2d(500.0, 0.4), 1.2);
}

/// A straight two-lane road tunnel for a vehicle with a spinning lidar: 10 m between the walls,
/// 6.5 m to the ceiling, a continuous 0.3 m kerb along each wall. Everything runs along x, so
/// nothing constrains the translation along the tunnel.
std::shared_ptr<Scene> tunnel(std::uint64_t) {
  std::vector<Primitive> p;
  add_straight_walls(p, 2000.0, 5.1, 6.5);
  for (double x = -2000.0; x < 2000.0; x += 20.0) {
    p.push_back(make_box(x + 10.0, 4.6, 0.15, 10.0, 0.4, 0.15));  // kerbs
    p.push_back(make_box(x + 10.0, -4.6, 0.15, 10.0, 0.4, 0.15));
  }
  return straight_scene("tunnel", std::move(p), 6.5, Eigen::Vector2d(1000.0, 2.0), 1.8);
}

/// Flat ground and nothing else: only the height, roll and pitch are constrained; the horizontal
/// translation and the yaw are not.
std::shared_ptr<Scene> open_field(std::uint64_t) {
  auto scene = std::make_shared<Scene>("open_field", std::vector<Primitive>{}, 0.0, std::nullopt);
  scene->free_center = Eigen::Vector2d(0.0, 0.0);
  scene->free_half_size = Eigen::Vector2d(30.0, 30.0);
  scene->sensor_height = 1.3;
  return scene;
}

}  // namespace

/// The corridor with the same geometry (the LiDAR is as degenerate along it) but posters, door frames
/// and floor markings painted at irregular spacing: where a visual frontend must earn its place.
std::shared_ptr<Scene> corridor_textured(std::uint64_t seed) {
  auto scene = corridor(seed);
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + 13);
  std::uniform_real_distribution<double> gap(2.0, 7.0), unit(0.0, 1.0);
  auto& decals = scene->decals;
  for (double x = -600.0; x < 600.0; x += gap(rng)) {
    const double side = unit(rng) < 0.5 ? 1.3 : -1.3;
    const double kind = unit(rng);
    Decal d;
    d.y_side = side;
    if (kind < 0.45) {
      d.kind = Decal::Kind::POSTER;
      d.x_min = x;
      d.x_max = x + 0.5 + 0.5 * unit(rng);
      d.z_min = 1.0 + 0.4 * unit(rng);
      d.z_max = d.z_min + 0.6 + 0.3 * unit(rng);
      d.pattern = static_cast<int>(unit(rng) * 4.0);
    } else if (kind < 0.75) {
      d.kind = Decal::Kind::DOOR_FRAME;
      d.x_min = x;
      d.x_max = x + 1.0;
      d.z_min = 0.0;
      d.z_max = 2.1;
    } else {
      d.kind = Decal::Kind::FLOOR_MARKING;
      d.y_side = 0.0;
      d.x_min = x;
      d.x_max = x + 0.1 + 0.15 * unit(rng);
    }
    decals.push_back(d);
  }
  return scene;
}

std::vector<std::string> scene_names() {
  return {"courtyard", "rooms", "corridor", "corridor_textured", "corridor_sparse", "tunnel", "open_field", "city", "forest", "indoor", "garage", "field"};
}

std::shared_ptr<Scene> make_scene(const std::string& name, std::uint64_t seed) {
  if (name == "courtyard") return courtyard(seed);
  if (name == "rooms") return rooms(seed);
  if (name == "corridor") return corridor(seed);
  if (name == "corridor_textured") return corridor_textured(seed);
  if (name == "corridor_sparse") return corridor_sparse(seed);
  if (name == "tunnel") return tunnel(seed);
  if (name == "open_field") return open_field(seed);
  if (name == "city") return generated_city(seed);
  if (name == "forest") return generated_forest(seed);
  if (name == "indoor") return generated_indoor(seed);
  if (name == "garage") return generated_garage(seed);
  if (name == "field") return generated_field(seed);
  std::string known;
  for (const auto& n : scene_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown scene '" + name + "'; expected one of: " + known);
}

}  // namespace asuka::sim
