#include <asuka_sim/scene.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace asuka::sim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Slab test of an axis-aligned box centred at the origin with half extents h.
std::optional<double> intersect_aabb(const Eigen::Vector3d& o, const Eigen::Vector3d& d, const Eigen::Vector3d& h, double t_min, double t_max) {
  double t0 = t_min;
  double t1 = t_max;
  for (int i = 0; i < 3; ++i) {
    if (std::fabs(d[i]) < 1e-15) {
      if (o[i] < -h[i] || o[i] > h[i]) return std::nullopt;
      continue;
    }
    const double inv = 1.0 / d[i];
    double a = (-h[i] - o[i]) * inv;
    double b = (h[i] - o[i]) * inv;
    if (a > b) std::swap(a, b);
    t0 = std::max(t0, a);
    t1 = std::min(t1, b);
    if (t0 > t1) return std::nullopt;
  }
  // Entering: t0 is the hit. Starting inside (t0 == t_min and the origin is inside): the exit t1.
  const bool inside = (o.array().abs() <= h.array()).all();
  const double t = inside ? t1 : t0;
  if (t <= t_min || t >= t_max) return std::nullopt;
  return t;
}

}  // namespace

Primitive make_box(double x, double y, double z, double hx, double hy, double hz, double yaw) {
  Primitive p;
  p.kind = Primitive::Kind::BOX;
  p.center = Eigen::Vector3d(x, y, z);
  p.half_size = Eigen::Vector3d(hx, hy, hz);
  p.yaw = yaw;
  return p;
}

Primitive make_cylinder(double x, double y, double height, double radius, double base) {
  Primitive p;
  p.kind = Primitive::Kind::CYLINDER;
  p.center = Eigen::Vector3d(x, y, base + 0.5 * height);
  p.half_size = Eigen::Vector3d(radius, radius, 0.5 * height);
  p.radius = radius;
  return p;
}

Primitive make_sphere(double x, double y, double z, double radius) {
  Primitive p;
  p.kind = Primitive::Kind::SPHERE;
  p.center = Eigen::Vector3d(x, y, z);
  p.radius = radius;
  return p;
}

std::optional<double> Primitive::intersect(const Eigen::Vector3d& o, const Eigen::Vector3d& d, double t_min, double t_max) const {
  switch (kind) {
    case Kind::BOX: {
      const double c = std::cos(yaw), s = std::sin(yaw);
      // Into the box frame: rotate by -yaw about z.
      const Eigen::Vector3d q = o - center;
      const Eigen::Vector3d ol(c * q.x() + s * q.y(), -s * q.x() + c * q.y(), q.z());
      const Eigen::Vector3d dl(c * d.x() + s * d.y(), -s * d.x() + c * d.y(), d.z());
      return intersect_aabb(ol, dl, half_size, t_min, t_max);
    }
    case Kind::CYLINDER: {
      // Side: |(o + t d - c)_xy| = r; caps at z = c.z +- h.
      const Eigen::Vector3d q = o - center;
      const double h = half_size.z();
      double best = kInf;
      const double a = d.x() * d.x() + d.y() * d.y();
      if (a > 1e-15) {
        const double b = q.x() * d.x() + q.y() * d.y();
        const double cc = q.x() * q.x() + q.y() * q.y() - radius * radius;
        const double disc = b * b - a * cc;
        if (disc >= 0.0) {
          const double sq = std::sqrt(disc);
          for (double t : {(-b - sq) / a, (-b + sq) / a}) {
            if (t > t_min && t < t_max && std::fabs(q.z() + t * d.z()) <= h) {
              best = std::min(best, t);
              break;
            }
          }
        }
      }
      if (std::fabs(d.z()) > 1e-15) {
        for (double zc : {h, -h}) {
          const double t = (zc - q.z()) / d.z();
          if (t > t_min && t < t_max && t < best) {
            const double x = q.x() + t * d.x(), y = q.y() + t * d.y();
            if (x * x + y * y <= radius * radius) best = t;
          }
        }
      }
      if (best == kInf) return std::nullopt;
      return best;
    }
    case Kind::SPHERE: {
      const Eigen::Vector3d q = o - center;
      const double b = q.dot(d);
      const double cc = q.squaredNorm() - radius * radius;
      const double disc = b * b - cc;
      if (disc < 0.0) return std::nullopt;
      const double sq = std::sqrt(disc);
      for (double t : {-b - sq, -b + sq}) {
        if (t > t_min && t < t_max) return t;
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

double Primitive::distance(const Eigen::Vector3d& p) const {
  switch (kind) {
    case Kind::BOX: {
      const double c = std::cos(yaw), s = std::sin(yaw);
      const Eigen::Vector3d q0 = p - center;
      const Eigen::Vector3d q(c * q0.x() + s * q0.y(), -s * q0.x() + c * q0.y(), q0.z());
      const Eigen::Vector3d outside = (q.cwiseAbs() - half_size).cwiseMax(0.0);
      const double inside = std::min((q.cwiseAbs() - half_size).maxCoeff(), 0.0);
      return outside.norm() + std::fabs(inside);
    }
    case Kind::CYLINDER: {
      const Eigen::Vector3d q = p - center;
      const double radial = std::hypot(q.x(), q.y()) - radius;
      const double axial = std::fabs(q.z()) - half_size.z();
      const double out = std::hypot(std::max(radial, 0.0), std::max(axial, 0.0));
      const double in = std::min(std::max(radial, axial), 0.0);
      return out + std::fabs(in);
    }
    case Kind::SPHERE:
      return std::fabs((p - center).norm() - radius);
  }
  return kInf;
}

Eigen::Vector3d Primitive::normal(const Eigen::Vector3d& p) const {
  switch (kind) {
    case Kind::BOX: {
      const double c = std::cos(yaw), s = std::sin(yaw);
      const Eigen::Vector3d q0 = p - center;
      const Eigen::Vector3d q(c * q0.x() + s * q0.y(), -s * q0.x() + c * q0.y(), q0.z());
      int axis = 0;  // the face the point is on: the largest |q_i| / h_i
      (q.cwiseAbs().cwiseQuotient(half_size)).maxCoeff(&axis);
      Eigen::Vector3d nl = Eigen::Vector3d::Zero();
      nl[axis] = q[axis] >= 0.0 ? 1.0 : -1.0;
      return Eigen::Vector3d(c * nl.x() - s * nl.y(), s * nl.x() + c * nl.y(), nl.z());
    }
    case Kind::CYLINDER: {
      const Eigen::Vector3d q = p - center;
      const double radial = std::hypot(q.x(), q.y());
      if (std::fabs(std::fabs(q.z()) - half_size.z()) < 1e-6 && radial < radius - 1e-6) return Eigen::Vector3d(0.0, 0.0, q.z() >= 0.0 ? 1.0 : -1.0);
      return radial > 1e-12 ? Eigen::Vector3d(q.x() / radial, q.y() / radial, 0.0) : Eigen::Vector3d::UnitX();
    }
    case Kind::SPHERE:
      return (p - center).normalized();
  }
  return Eigen::Vector3d::UnitZ();
}

Eigen::Vector4d Primitive::bounds_xy() const {
  double rx = radius, ry = radius;
  if (kind == Kind::BOX) {
    const double c = std::fabs(std::cos(yaw)), s = std::fabs(std::sin(yaw));
    rx = c * half_size.x() + s * half_size.y();
    ry = s * half_size.x() + c * half_size.y();
  }
  return {center.x() - rx, center.y() - ry, center.x() + rx, center.y() + ry};
}

Scene::Scene(std::string name, std::vector<Primitive> primitives, std::optional<double> ground_z, std::optional<double> ceiling_z, double cell_size)
: name_(std::move(name)), primitives_(std::move(primitives)), ground_z_(ground_z), ceiling_z_(ceiling_z), cell_(cell_size) {
  Eigen::Vector4d all(kInf, kInf, -kInf, -kInf);
  for (const auto& p : primitives_) {
    const auto b = p.bounds_xy();
    all << std::min(all[0], b[0]), std::min(all[1], b[1]), std::max(all[2], b[2]), std::max(all[3], b[3]);
  }
  if (primitives_.empty()) all << 0, 0, cell_, cell_;
  origin_ = Eigen::Vector2d(all[0], all[1]);
  nx_ = std::max(1, static_cast<int>(std::ceil((all[2] - all[0]) / cell_)) + 1);
  ny_ = std::max(1, static_cast<int>(std::ceil((all[3] - all[1]) / cell_)) + 1);
  cells_.assign(static_cast<std::size_t>(nx_) * static_cast<std::size_t>(ny_), {});
  for (int i = 0; i < static_cast<int>(primitives_.size()); ++i) {
    const auto b = primitives_[static_cast<std::size_t>(i)].bounds_xy();
    const int x0 = std::max(0, static_cast<int>(std::floor((b[0] - origin_.x()) / cell_)));
    const int y0 = std::max(0, static_cast<int>(std::floor((b[1] - origin_.y()) / cell_)));
    const int x1 = std::min(nx_ - 1, static_cast<int>(std::floor((b[2] - origin_.x()) / cell_)));
    const int y1 = std::min(ny_ - 1, static_cast<int>(std::floor((b[3] - origin_.y()) / cell_)));
    for (int y = y0; y <= y1; ++y) {
      for (int x = x0; x <= x1; ++x) cells_[static_cast<std::size_t>(y * nx_ + x)].push_back(i);
    }
  }
}

std::optional<Hit> Scene::cast(const Eigen::Vector3d& o, const Eigen::Vector3d& d, double min_range, double max_range) const {
  std::optional<Hit> best;
  double t_max = max_range;
  // Planes first: they bound the search for the primitives.
  for (const auto& plane : {ground_z_, ceiling_z_}) {
    if (!plane || std::fabs(d.z()) < 1e-15) continue;
    const double t = (*plane - o.z()) / d.z();
    if (t > min_range && t < t_max) {
      t_max = t;
      best = Hit{t, -1};
    }
  }

  // 2D DDA over the grid cells the ray's x-y projection crosses, up to t_max.
  const double dxy = std::hypot(d.x(), d.y());
  // Primitives spanning several cells are tested once; one buffer per thread (the camera casts
  // hundreds of thousands of rays per image, from two threads).
  thread_local std::vector<int> tested;
  tested.clear();
  auto test_cell = [&](int cx, int cy) {
    for (int idx : cells_[static_cast<std::size_t>(cy * nx_ + cx)]) {
      if (std::find(tested.begin(), tested.end(), idx) != tested.end()) continue;
      tested.push_back(idx);
      if (auto t = primitives_[static_cast<std::size_t>(idx)].intersect(o, d, min_range, t_max)) {
        t_max = *t;
        best = Hit{*t, idx};
      }
    }
  };
  Eigen::Vector2d p(o.x() - origin_.x(), o.y() - origin_.y());
  double t_enter = 0.0;
  if (dxy < 1e-12) {
    const int cx = static_cast<int>(std::floor(p.x() / cell_)), cy = static_cast<int>(std::floor(p.y() / cell_));
    if (cx >= 0 && cy >= 0 && cx < nx_ && cy < ny_) test_cell(cx, cy);
    return best;
  }
  // Clip the ray to the grid rectangle.
  const double W = nx_ * cell_, H = ny_ * cell_;
  double t_lo = 0.0, t_hi = t_max;
  for (int i = 0; i < 2; ++i) {
    const double di = d[i];
    const double lo = 0.0, hi = i == 0 ? W : H;
    if (std::fabs(di) < 1e-15) {
      if (p[i] < lo || p[i] > hi) return best;
      continue;
    }
    double a = (lo - p[i]) / di, b = (hi - p[i]) / di;
    if (a > b) std::swap(a, b);
    t_lo = std::max(t_lo, a);
    t_hi = std::min(t_hi, b);
  }
  if (t_lo > t_hi) return best;
  t_enter = t_lo;
  const Eigen::Vector2d start = p + t_enter * Eigen::Vector2d(d.x(), d.y());
  int cx = std::min(nx_ - 1, std::max(0, static_cast<int>(std::floor(start.x() / cell_))));
  int cy = std::min(ny_ - 1, std::max(0, static_cast<int>(std::floor(start.y() / cell_))));
  const int step_x = d.x() > 0 ? 1 : -1;
  const int step_y = d.y() > 0 ? 1 : -1;
  const double t_delta_x = std::fabs(d.x()) > 1e-15 ? cell_ / std::fabs(d.x()) : kInf;
  const double t_delta_y = std::fabs(d.y()) > 1e-15 ? cell_ / std::fabs(d.y()) : kInf;
  double t_next_x = std::fabs(d.x()) > 1e-15 ? ((cx + (step_x > 0 ? 1 : 0)) * cell_ - p.x()) / d.x() : kInf;
  double t_next_y = std::fabs(d.y()) > 1e-15 ? ((cy + (step_y > 0 ? 1 : 0)) * cell_ - p.y()) / d.y() : kInf;
  while (true) {
    test_cell(cx, cy);
    const double t_cell_end = std::min(t_next_x, t_next_y);
    if (t_cell_end >= t_max) break;  // the hit (if any) lies before the next cell
    if (t_next_x < t_next_y) {
      cx += step_x;
      t_next_x += t_delta_x;
    } else {
      cy += step_y;
      t_next_y += t_delta_y;
    }
    if (cx < 0 || cy < 0 || cx >= nx_ || cy >= ny_) break;
  }
  return best;
}

Eigen::Vector3d Scene::normal(const Hit& hit, const Eigen::Vector3d& p, const Eigen::Vector3d& o) const {
  Eigen::Vector3d n = hit.primitive >= 0 ? primitives_[static_cast<std::size_t>(hit.primitive)].normal(p) : Eigen::Vector3d::UnitZ();
  if (n.dot(o - p) < 0.0) n = -n;  // planes (ground, ceiling) and the insides of solids face the viewer
  return n;
}

double Scene::albedo(const Eigen::Vector3d& p, double texture) const {
  if (decals.empty()) return texture;
  // Decals are at most 2 m long: look at those starting up to 2 m before p.
  auto it = std::lower_bound(decals.begin(), decals.end(), p.x() - 2.0, [](const Decal& d, double x) { return d.x_min < x; });
  for (; it != decals.end() && it->x_min <= p.x(); ++it) {
    const Decal& d = *it;
    if (p.x() > d.x_max) continue;
    if (d.kind == Decal::Kind::FLOOR_MARKING) {
      if (std::fabs(p.z()) < 0.01) return 0.92;
      continue;
    }
    if (std::fabs(p.y() - d.y_side) > 0.02 || p.z() < d.z_min || p.z() > d.z_max) continue;
    const double u = (p.x() - d.x_min) / (d.x_max - d.x_min), v = (p.z() - d.z_min) / (d.z_max - d.z_min);
    if (d.kind == Decal::Kind::DOOR_FRAME) {
      const double band = 0.08;  // [m] a dark frame around a lighter door
      const bool on_frame = p.x() - d.x_min < band || d.x_max - p.x() < band || d.z_max - p.z() < band;
      return on_frame ? 0.08 : 0.6 + 0.1 * texture;
    }
    // Posters: high-contrast shapes, one of four patterns.
    switch (d.pattern % 4) {
      case 0:
        return (static_cast<int>(u * 6.0) + static_cast<int>(v * 8.0)) % 2 == 0 ? 0.9 : 0.1;  // checkerboard
      case 1:
        return std::hypot(u - 0.5, (v - 0.5) * 1.3) < 0.3 ? 0.1 : 0.85;                          // a disc
      case 2:
        return static_cast<int>((u + v) * 7.0) % 2 == 0 ? 0.15 : 0.9;                            // diagonal stripes
      default:
        return v > 0.7 ? 0.1 : u < 0.3 ? 0.9 : 0.35 + 0.5 * texture;                             // a title bar and a margin
    }
  }
  return texture;
}

double Scene::distance(const Eigen::Vector3d& p) const {
  double best = kInf;
  if (ground_z_) best = std::min(best, std::fabs(p.z() - *ground_z_));
  if (ceiling_z_) best = std::min(best, std::fabs(p.z() - *ceiling_z_));
  for (const auto& prim : primitives_) best = std::min(best, prim.distance(p));
  return best;
}

}  // namespace asuka::sim
