#include <asuka/io/pcd_io.hpp>

#include <algorithm>
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
  // In blocks, so that a map of millions of points needs no second copy of itself to be written.
  constexpr std::size_t kBlock = 65536;
  std::vector<float> buffer(std::min(points.size(), kBlock) * 4);
  for (std::size_t begin = 0; begin < points.size() && out; begin += kBlock) {
    const std::size_t n = std::min(kBlock, points.size() - begin);
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t i = begin + j;
      buffer[4 * j + 0] = points[i].x();
      buffer[4 * j + 1] = points[i].y();
      buffer[4 * j + 2] = points[i].z();
      buffer[4 * j + 3] = fourth_of(i);
    }
    out.write(reinterpret_cast<const char*>(buffer.data()), static_cast<std::streamsize>(n * 4 * sizeof(float)));
  }
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

namespace {

/// Reads x y z and, when `rgb` is given, the packed colour (field rgb or rgba, 4 bytes: 0x00RRGGBB
/// as written by write_pcd_rgb, or PCL's 0xAARRGGBB), when `intensity` is given, the float32 field
/// intensity, of a binary or ASCII PCD; other fields are skipped. read_pcd, read_pcd_rgb and
/// read_pcd_intensity are this one reader.
bool read_xyz_and(const std::string& path, std::vector<Eigen::Vector3f>& points, std::vector<std::array<std::uint8_t, 3>>* rgb,
                  std::vector<float>* intensity, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  auto fail = [&](const std::string& what) {
    if (error) *error = path + ": " + what;
    return false;
  };
  if (!in) return fail("cannot open");
  std::vector<std::string> fields;
  std::vector<int> sizes;
  std::vector<char> types;
  std::vector<int> counts;  // values per field (COUNT; 1 when absent)
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
    } else if (key == "COUNT") {
      for (int c; ss >> c;) counts.push_back(c);
    } else if (key == "POINTS") {
      ss >> count;
    } else if (key == "DATA") {
      ss >> data;
      break;
    }
  }
  if (counts.empty()) counts.assign(fields.size(), 1);
  if (fields.size() != sizes.size() || fields.size() != types.size() || fields.size() != counts.size()) return fail("FIELDS, SIZE, TYPE and COUNT disagree");
  // Where each field starts: in bytes in a binary record, in values on an ASCII line.
  std::size_t step = 0, values_per_line = 0;
  std::vector<std::size_t> offsets, columns;
  int ix = -1, iy = -1, iz = -1, irgb = -1, iint = -1;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (sizes[i] <= 0 || counts[i] <= 0) return fail("field '" + fields[i] + "' has no size");
    offsets.push_back(step);
    columns.push_back(values_per_line);
    step += static_cast<std::size_t>(sizes[i]) * static_cast<std::size_t>(counts[i]);
    values_per_line += static_cast<std::size_t>(counts[i]);
    if (fields[i] == "x") ix = static_cast<int>(i);
    if (fields[i] == "y") iy = static_cast<int>(i);
    if (fields[i] == "z") iz = static_cast<int>(i);
    if (fields[i] == "rgb" || fields[i] == "rgba") irgb = static_cast<int>(i);
    if (fields[i] == "intensity") iint = static_cast<int>(i);
  }
  if (ix < 0 || iy < 0 || iz < 0) return fail("no x y z fields");
  for (int i : {ix, iy, iz}) {
    if (types[static_cast<std::size_t>(i)] != 'F' || sizes[static_cast<std::size_t>(i)] != 4) return fail("x y z must be float32");
  }
  if (rgb) {
    if (irgb < 0) return fail("no rgb field (a map without colours)");
    if (sizes[static_cast<std::size_t>(irgb)] != 4) return fail("the rgb field must have 4 bytes");
  }
  if (intensity) {
    if (iint < 0) return fail("no intensity field");
    if (types[static_cast<std::size_t>(iint)] != 'F' || sizes[static_cast<std::size_t>(iint)] != 4) return fail("intensity must be float32");
    intensity->clear();
    intensity->reserve(count);
  }
  auto colour_of = [](std::uint32_t packed) {
    return std::array<std::uint8_t, 3>{static_cast<std::uint8_t>((packed >> 16) & 0xFF), static_cast<std::uint8_t>((packed >> 8) & 0xFF),
                                       static_cast<std::uint8_t>(packed & 0xFF)};
  };
  points.clear();
  points.reserve(count);
  if (rgb) {
    rgb->clear();
    rgb->reserve(count);
  }
  if (data == "binary") {
    std::vector<char> record(step);
    for (std::size_t n = 0; n < count; ++n) {
      if (!in.read(record.data(), static_cast<std::streamsize>(step))) return fail("truncated binary data");
      float v[3];
      std::memcpy(&v[0], record.data() + offsets[static_cast<std::size_t>(ix)], 4);
      std::memcpy(&v[1], record.data() + offsets[static_cast<std::size_t>(iy)], 4);
      std::memcpy(&v[2], record.data() + offsets[static_cast<std::size_t>(iz)], 4);
      points.emplace_back(v[0], v[1], v[2]);
      if (rgb) {
        std::uint32_t packed = 0;  // the same bits whether the field is declared F (PCL's rgb) or U (rgba)
        std::memcpy(&packed, record.data() + offsets[static_cast<std::size_t>(irgb)], 4);
        rgb->push_back(colour_of(packed));
      }
      if (intensity) {
        float value = 0.0f;
        std::memcpy(&value, record.data() + offsets[static_cast<std::size_t>(iint)], 4);
        intensity->push_back(value);
      }
    }
  } else if (data == "ascii") {
    for (std::size_t n = 0; n < count && std::getline(in, line); ++n) {
      std::istringstream ss(line);
      std::vector<double> values(values_per_line);
      for (auto& v : values) ss >> v;
      points.emplace_back(static_cast<float>(values[columns[static_cast<std::size_t>(ix)]]), static_cast<float>(values[columns[static_cast<std::size_t>(iy)]]),
                          static_cast<float>(values[columns[static_cast<std::size_t>(iz)]]));
      if (rgb) {
        // A float rgb is printed as its (tiny) float value: its bits are the colour; an integer one as the integer.
        const double value = values[columns[static_cast<std::size_t>(irgb)]];
        std::uint32_t packed = 0;
        if (types[static_cast<std::size_t>(irgb)] == 'F') {
          const auto f = static_cast<float>(value);
          std::memcpy(&packed, &f, sizeof(packed));
        } else {
          packed = static_cast<std::uint32_t>(static_cast<std::int64_t>(value));
        }
        rgb->push_back(colour_of(packed));
      }
      if (intensity) intensity->push_back(static_cast<float>(values[columns[static_cast<std::size_t>(iint)]]));
    }
  } else {
    return fail("unsupported DATA '" + data + "' (binary or ascii)");
  }
  return true;
}

}  // namespace

bool read_pcd(const std::string& path, std::vector<Eigen::Vector3f>& points, std::string* error) {
  return read_xyz_and(path, points, nullptr, nullptr, error);
}

bool read_pcd_rgb(const std::string& path, std::vector<Eigen::Vector3f>& points, std::vector<std::array<std::uint8_t, 3>>& rgb, std::string* error) {
  return read_xyz_and(path, points, &rgb, nullptr, error);
}

bool read_pcd_intensity(const std::string& path, std::vector<Eigen::Vector3f>& points, std::vector<float>& intensity, std::string* error) {
  return read_xyz_and(path, points, nullptr, &intensity, error);
}

}  // namespace asuka
