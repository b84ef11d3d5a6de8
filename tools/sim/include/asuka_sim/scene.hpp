#pragma once
// Scenes made of analytic primitives, ray-cast exactly: ground and ceiling planes, boxes (optionally
// yawed), vertical cylinders and spheres. A uniform 2D grid over x-y holds the bounded primitives so
// that a ray only tests those in the cells it crosses.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace asuka::sim {

struct Hit {
  double range = 0.0;  ///< distance along the (unit) ray [m]
  int primitive = -1;  ///< index in Scene::primitives(), -1 for a plane
};

/// One bounded solid. Coordinates in the world frame [m]; z up.
struct Primitive {
  enum class Kind { BOX, CYLINDER, SPHERE };
  Kind kind = Kind::BOX;
  Eigen::Vector3d center = Eigen::Vector3d::Zero();
  Eigen::Vector3d half_size = Eigen::Vector3d::Ones();  ///< BOX: half extents in its own frame
  double yaw = 0.0;                                    ///< BOX: rotation about z [rad]
  double radius = 0.5;                                 ///< CYLINDER (vertical, height 2*half_size.z), SPHERE

  /// Nearest intersection with range in (t_min, t_max) of the ray o + t d (|d| = 1).
  std::optional<double> intersect(const Eigen::Vector3d& o, const Eigen::Vector3d& d, double t_min, double t_max) const;
  /// Distance from p to the primitive's surface [m] (0 on it).
  double distance(const Eigen::Vector3d& p) const;
  /// Outward unit normal of the surface at p (a point on it).
  Eigen::Vector3d normal(const Eigen::Vector3d& p) const;
  /// Axis-aligned x-y bounds (min x, min y, max x, max y).
  Eigen::Vector4d bounds_xy() const;
};

/// A box centred at (x, y, z) with half extents (hx, hy, hz), turned by `yaw` about z.
Primitive make_box(double x, double y, double z, double hx, double hy, double hz, double yaw = 0.0);
/// A vertical cylinder standing on z = `base` (default the ground), `height` tall.
Primitive make_cylinder(double x, double y, double height, double radius, double base = 0.0);
Primitive make_sphere(double x, double y, double z, double radius);

/// A flat mark painted on a surface: it changes what the camera sees, never the geometry the LiDAR
/// sees (the textured corridor's posters, door frames and floor markings).
struct Decal {
  enum class Kind { POSTER, DOOR_FRAME, FLOOR_MARKING };
  Kind kind = Kind::POSTER;
  double x_min = 0.0, x_max = 0.0;  ///< [m] extent along the corridor
  double z_min = 0.0, z_max = 0.0;  ///< [m] height (walls)
  double y_side = 0.0;              ///< [m] +1.3 or -1.3: the wall it is on (posters, frames); 0 for the floor
  int pattern = 0;                  ///< which poster pattern
};

class Scene {
public:
  Scene(std::string name, std::vector<Primitive> primitives, std::optional<double> ground_z, std::optional<double> ceiling_z, double cell_size = 4.0);

  const std::string& name() const { return name_; }
  const std::vector<Primitive>& primitives() const { return primitives_; }

  /// Nearest surface along the ray o + t d (|d| = 1) with t in (min_range, max_range).
  std::optional<Hit> cast(const Eigen::Vector3d& o, const Eigen::Vector3d& d, double min_range, double max_range) const;
  /// Distance from p to the nearest surface [m].
  double distance(const Eigen::Vector3d& p) const;
  /// Unit normal of the surface `hit` found at p, facing the ray's origin `o` (the camera's shading).
  Eigen::Vector3d normal(const Hit& hit, const Eigen::Vector3d& p, const Eigen::Vector3d& o) const;

  /// The region a trajectory may move in: center and half sizes in x-y [m], and the height of the
  /// sensor above the ground [m].
  Eigen::Vector2d free_center = Eigen::Vector2d::Zero();
  Eigen::Vector2d free_half_size = Eigen::Vector2d(10.0, 10.0);
  double sensor_height = 1.2;
  /// Straight-line scenes (the corridor) drive along +x instead of looping.
  bool straight = false;

  /// Painted marks, sorted by x_min (only the textured corridor has any).
  std::vector<Decal> decals;
  /// The albedo the camera sees at the surface point p: the procedural texture (camera_sim.hpp)
  /// unless a decal covers p.
  double albedo(const Eigen::Vector3d& p, double texture) const;

private:
  std::string name_;
  std::vector<Primitive> primitives_;
  std::optional<double> ground_z_;
  std::optional<double> ceiling_z_;
  // Grid over x-y: cells_[iy * nx_ + ix] lists primitives whose bounds touch the cell.
  double cell_ = 4.0;
  Eigen::Vector2d origin_ = Eigen::Vector2d::Zero();
  int nx_ = 0;
  int ny_ = 0;
  std::vector<std::vector<int>> cells_;
};

/// Scene names: the fixed scenes "courtyard", "rooms", "corridor", "corridor_textured",
/// "corridor_sparse", "tunnel", "open_field", and the scenes generated from the seed (#17,
/// generated_scenes.hpp): "city", "forest", "indoor", "garage", "field" (docs/simulator.md).
std::vector<std::string> scene_names();
/// Builds a named scene; `seed` places the clutter of a fixed scene and draws the whole of a generated
/// one. Throws std::invalid_argument for an unknown name.
std::shared_ptr<Scene> make_scene(const std::string& name, std::uint64_t seed);

}  // namespace asuka::sim
