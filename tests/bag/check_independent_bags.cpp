// Reads the bags tests/bag/independent_writer/write_rosbag2.mjs wrote (with @mcap/core,
// @foxglove/rosmsg2-serialization and sql.js: an implementation that is not ours) and compares every
// message, field by field, with the expected.json the script wrote from the same objects (#15).
//
//   asuka_check_independent_bags DIR      exit 0 when every file matches; each difference printed

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <asuka/bag/cdr.hpp>
#include <asuka/bag/rosbag2.hpp>
#include <asuka/messages/cloud_decoder.hpp>

namespace {

using nlohmann::json;
using namespace asuka;

int g_failures = 0;

template <typename A, typename B>
void expect(const std::string& where, const A& got, const B& want) {
  if (!(got == want)) {
    ++g_failures;
    if (g_failures < 50) std::fprintf(stderr, "MISMATCH %s: got %s, expected %s\n", where.c_str(), fmt::format("{}", got).c_str(), fmt::format("{}", want).c_str());
  }
}

std::string hex(msg::Span<std::uint8_t> data) {
  std::string s;
  s.reserve(data.size() * 2);
  for (auto b : data) s += fmt::format("{:02x}", b);
  return s;
}

void check_header(const std::string& w, const msg::Header& h, const json& e) {
  expect(w + " header.stamp.sec", h.stamp.sec, e["stamp"]["sec"].get<std::int64_t>());
  expect(w + " header.stamp.nanosec", h.stamp.nanosec, e["stamp"]["nanosec"].get<std::uint32_t>());
  expect(w + " header.frame_id", h.frame_id, e["frame_id"].get<std::string>());
}

void check_vector3(const std::string& w, const std::array<double, 3>& v, const json& e) {
  expect(w + ".x", v[0], e["x"].get<double>());
  expect(w + ".y", v[1], e["y"].get<double>());
  expect(w + ".z", v[2], e["z"].get<double>());
}

template <std::size_t N>
void check_array(const std::string& w, const std::array<double, N>& v, const json& e) {
  expect(w + " size", e.size(), N);
  for (std::size_t i = 0; i < N && i < e.size(); ++i) expect(fmt::format("{}[{}]", w, i), v[i], e[i].get<double>());
}

void check_message(const std::string& w, const bag::BagMessage& m, const json& e) {
  const auto& f = e["fields"];
  const std::string type = e["type"];
  expect(w + " topic", m.topic->name, e["topic"].get<std::string>());
  expect(w + " type", m.topic->type, type);
  expect(w + " log_time", std::to_string(m.log_time), e["log_time_ns"].get<std::string>());
  expect(w + " cdr size", m.data.size(), e["cdr_size"].get<std::size_t>());
  if (type == bag::type_names::kImu) {
    const auto x = bag::read_imu(m.data);
    check_header(w, x.header, f["header"]);
    const auto& q = f["orientation"];
    expect(w + " orientation", x.orientation, std::array<double, 4>{q["x"], q["y"], q["z"], q["w"]});
    check_array(w + " orientation_covariance", x.orientation_covariance, f["orientation_covariance"]);
    check_vector3(w + " angular_velocity", x.angular_velocity, f["angular_velocity"]);
    check_array(w + " angular_velocity_covariance", x.angular_velocity_covariance, f["angular_velocity_covariance"]);
    check_vector3(w + " linear_acceleration", x.linear_acceleration, f["linear_acceleration"]);
    check_array(w + " linear_acceleration_covariance", x.linear_acceleration_covariance, f["linear_acceleration_covariance"]);
  } else if (type == bag::type_names::kPointCloud2) {
    const auto x = bag::read_point_cloud2(m.data);
    check_header(w, x.header, f["header"]);
    expect(w + " height", x.height, f["height"].get<std::uint32_t>());
    expect(w + " width", x.width, f["width"].get<std::uint32_t>());
    expect(w + " fields", x.fields.size(), f["fields"].size());
    for (std::size_t i = 0; i < x.fields.size() && i < f["fields"].size(); ++i) {
      const auto& ef = f["fields"][i];
      expect(w + " field name", x.fields[i].name, ef["name"].get<std::string>());
      expect(w + " field offset", x.fields[i].offset, ef["offset"].get<std::uint32_t>());
      expect(w + " field datatype", int{x.fields[i].datatype}, ef["datatype"].get<int>());
      expect(w + " field count", x.fields[i].count, ef["count"].get<std::uint32_t>());
    }
    expect(w + " is_bigendian", x.is_bigendian, f["is_bigendian"].get<bool>());
    expect(w + " point_step", x.point_step, f["point_step"].get<std::uint32_t>());
    expect(w + " row_step", x.row_step, f["row_step"].get<std::uint32_t>());
    expect(w + " data", hex(x.data), f["data"].get<std::string>());
    expect(w + " is_dense", x.is_dense, f["is_dense"].get<bool>());
    // The one decoding path reads it: every point, row padding skipped.
    msg::CloudDecoder decoder(LidarType::VELODYNE, {});
    const auto decoded = decoder.decode(x);
    expect(w + " decoded points", decoded.frame ? decoded.frame->points.size() : 0u, std::size_t{x.width} * x.height);
  } else if (type == bag::type_names::kLivoxCustomMsg) {
    std::vector<msg::LivoxPoint> points;
    const auto x = bag::read_livox_custom_msg(m.data, points);
    check_header(w, x.header, f["header"]);
    expect(w + " timebase", std::to_string(x.timebase), f["timebase"].get<std::string>());
    expect(w + " point_num", x.point_num, f["point_num"].get<std::uint32_t>());
    expect(w + " lidar_id", int{x.lidar_id}, f["lidar_id"].get<int>());
    for (int i = 0; i < 3; ++i) expect(w + " rsvd", int{x.rsvd[i]}, f["rsvd"][i].get<int>());
    expect(w + " points", points.size(), f["points"].size());
    for (std::size_t i = 0; i < points.size() && i < f["points"].size(); ++i) {
      const auto& ep = f["points"][i];
      const auto pw = fmt::format("{} point {}", w, i);
      expect(pw + " offset_time", points[i].offset_time, ep["offset_time"].get<std::uint32_t>());
      expect(pw + " x", points[i].x, static_cast<float>(ep["x"].get<double>()));
      expect(pw + " y", points[i].y, static_cast<float>(ep["y"].get<double>()));
      expect(pw + " z", points[i].z, static_cast<float>(ep["z"].get<double>()));
      expect(pw + " reflectivity", int{points[i].reflectivity}, ep["reflectivity"].get<int>());
      expect(pw + " tag", int{points[i].tag}, ep["tag"].get<int>());
      expect(pw + " line", int{points[i].line}, ep["line"].get<int>());
    }
  } else if (type == bag::type_names::kImage) {
    const auto x = bag::read_image(m.data);
    check_header(w, x.header, f["header"]);
    expect(w + " height", x.height, f["height"].get<std::uint32_t>());
    expect(w + " width", x.width, f["width"].get<std::uint32_t>());
    expect(w + " encoding", x.encoding, f["encoding"].get<std::string>());
    expect(w + " is_bigendian", int{x.is_bigendian}, f["is_bigendian"].get<int>());
    expect(w + " step", x.step, f["step"].get<std::uint32_t>());
    expect(w + " data", hex(x.data), f["data"].get<std::string>());
  } else if (type == bag::type_names::kCompressedImage) {
    const auto x = bag::read_compressed_image(m.data);
    check_header(w, x.header, f["header"]);
    expect(w + " format", x.format, f["format"].get<std::string>());
    expect(w + " data", hex(x.data), f["data"].get<std::string>());
  } else {
    expect(w + " known type", type, std::string("one asuka reads"));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR (written by write_rosbag2.mjs)\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  std::ifstream in(dir + "/expected.json");
  if (!in) {
    std::fprintf(stderr, "no %s/expected.json\n", dir.c_str());
    return 2;
  }
  const json expected = json::parse(in);
  int files = 0;
  for (const auto& [name, info] : expected["files"].items()) {
    const std::string path = (std::filesystem::path(dir) / name).string();
    try {
      auto reader = bag::open_rosbag2(path);
      for (const auto& t : expected["topics"]) {
        const bag::TopicInfo* found = nullptr;
        for (const auto& rt : reader->topics()) {
          if (rt.name == t["name"]) found = &rt;
        }
        expect(name + " topic " + t["name"].get<std::string>(), found != nullptr, true);
        if (found == nullptr) continue;
        expect(name + " type of " + found->name, found->type, t["type"].get<std::string>());
        expect(name + " count of " + found->name, found->messages, t["count"].get<std::uint64_t>());
        if (!found->definition.empty()) expect(name + " definition of " + found->name, bag::check_definition(found->type, found->definition), std::string());
      }
      bag::BagMessage m;
      std::size_t i = 0;
      const auto& messages = expected["messages"];
      while (reader->next(m)) {
        if (i < messages.size()) check_message(fmt::format("{} message {}", name, i), m, messages[i]);
        ++i;
      }
      expect(name + " messages read", i, messages.size());
      expect(name + " damage", reader->damage(), std::string());
      ++files;
    } catch (const std::exception& e) {
      ++g_failures;
      std::fprintf(stderr, "FAILED %s: %s\n", name.c_str(), e.what());
    }
  }
  std::printf("%d files checked, %d mismatches\n", files, g_failures);
  return g_failures == 0 && files > 0 ? 0 : 1;
}
