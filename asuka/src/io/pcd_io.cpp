#include <asuka/io/pcd_io.hpp>

#include <cstring>
#include <fstream>
#include <sstream>

namespace asuka {

namespace {

/// Writes x y z and one more float32 field named `fourth` per point as binary PCD v0.7; `fourth_of(i)`
/// gives point i's value (its bits, for a packed rgb).
template <class Fourth>
bool write_xyz_and(const std::string& path, const std::vector<Eigen::Vector3f>& points, const char* fourth, Fourth fourth_of, std::string* error) {
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    if (error) *error = "cannot open " + path + " for writing";
    return false;
  }
  out << "# .PCD v0.7 - Point Cloud Data file format\nVERSION 0.7\nFIELDS x y z " << fourth << "\nSIZE 4 4 4 4\nTYPE F F F F\nCOUNT 1 1 1 1\n"
      << "WIDTH " << points.size() << "\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS " << points.size() << "\nDATA binary\n";
  std::vector<float> buffer(points.size() * 4);
  for (std::size_t i = 0; i < points.size(); ++i) {
    buffer[4 * i + 0] = points[i].x();
    buffer[4 * i + 1] = points[i].y();
    buffer[4 * i + 2] = points[i].z();
    buffer[4 * i + 3] = fourth_of(i);
  }
  out.write(reinterpret_cast<const char*>(buffer.data()), static_cast<std::streamsize>(buffer.size() * sizeof(float)));
  if (!out) {
    if (error) *error = "error while writing " + path;
    return false;
  }
  return true;
}

}  // namespace

bool write_pcd(const std::string& path, const std::vector<Eigen::Vector3f>& points, const std::vector<float>& intensity, std::string* error) {
  return write_xyz_and(path, points, "intensity", [&](std::size_t i) { return i < intensity.size() ? intensity[i] : 0.0f; }, error);
}

bool write_pcd_rgb(const std::string& path, const std::vector<Eigen::Vector3f>& points, const std::vector<std::array<std::uint8_t, 3>>& rgb,
                   std::string* error) {
  if (rgb.size() != points.size()) {
    if (error) *error = "write_pcd_rgb: " + std::to_string(rgb.size()) + " colours for " + std::to_string(points.size()) + " points";
    return false;
  }
  return write_xyz_and(path, points, "rgb",
                       [&](std::size_t i) {
                         const std::uint32_t packed = (static_cast<std::uint32_t>(rgb[i][0]) << 16) | (static_cast<std::uint32_t>(rgb[i][1]) << 8) | rgb[i][2];
                         float value = 0.0f;
                         std::memcpy(&value, &packed, sizeof(packed));
                         return value;
                       },
                       error);
}

bool read_pcd(const std::string& path, std::vector<Eigen::Vector3f>& points, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  auto fail = [&](const std::string& what) {
    if (error) *error = path + ": " + what;
    return false;
  };
  if (!in) return fail("cannot open");
  std::vector<std::string> fields;
  std::vector<int> sizes;
  std::vector<char> types;
  std::size_t count = 0;
  std::string data;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string key;
    ss >> key;
    if (key == "FIELDS") {
      for (std::string f; ss >> f;) fields.push_back(f);
    } else if (key == "SIZE") {
      for (int s; ss >> s;) sizes.push_back(s);
    } else if (key == "TYPE") {
      for (char t; ss >> t;) types.push_back(t);
    } else if (key == "POINTS") {
      ss >> count;
    } else if (key == "DATA") {
      ss >> data;
      break;
    }
  }
  if (fields.size() != sizes.size() || fields.size() != types.size()) return fail("FIELDS, SIZE and TYPE disagree");
  int ix = -1, iy = -1, iz = -1;
  std::size_t step = 0;
  std::vector<std::size_t> offsets;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    offsets.push_back(step);
    step += static_cast<std::size_t>(sizes[i]);
    if (fields[i] == "x") ix = static_cast<int>(i);
    if (fields[i] == "y") iy = static_cast<int>(i);
    if (fields[i] == "z") iz = static_cast<int>(i);
  }
  if (ix < 0 || iy < 0 || iz < 0) return fail("no x y z fields");
  for (int i : {ix, iy, iz}) {
    if (types[static_cast<std::size_t>(i)] != 'F' || sizes[static_cast<std::size_t>(i)] != 4) return fail("x y z must be float32");
  }
  points.clear();
  points.reserve(count);
  if (data == "binary") {
    std::vector<char> record(step);
    for (std::size_t n = 0; n < count; ++n) {
      if (!in.read(record.data(), static_cast<std::streamsize>(step))) return fail("truncated binary data");
      float v[3];
      std::memcpy(&v[0], record.data() + offsets[static_cast<std::size_t>(ix)], 4);
      std::memcpy(&v[1], record.data() + offsets[static_cast<std::size_t>(iy)], 4);
      std::memcpy(&v[2], record.data() + offsets[static_cast<std::size_t>(iz)], 4);
      points.emplace_back(v[0], v[1], v[2]);
    }
  } else if (data == "ascii") {
    for (std::size_t n = 0; n < count && std::getline(in, line); ++n) {
      std::istringstream ss(line);
      std::vector<double> values(fields.size());
      for (auto& v : values) ss >> v;
      points.emplace_back(static_cast<float>(values[static_cast<std::size_t>(ix)]), static_cast<float>(values[static_cast<std::size_t>(iy)]),
                          static_cast<float>(values[static_cast<std::size_t>(iz)]));
    }
  } else {
    return fail("unsupported DATA '" + data + "' (binary or ascii)");
  }
  return true;
}

}  // namespace asuka
