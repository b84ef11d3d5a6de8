#include <asuka/messages/point_time.hpp>

#include <cmath>
#include <limits>
#include <sstream>

namespace asuka::msg {

namespace {
constexpr TimeUnit kUnits[] = {TimeUnit::SECONDS, TimeUnit::MILLISECONDS, TimeUnit::MICROSECONDS, TimeUnit::NANOSECONDS};
constexpr double kAbsoluteTolerance = 10.0;  // [s] header vs first point, generous for badly synced drivers
constexpr double kTypicalScan = 0.1;         // [s] a 10 Hz sweep
}  // namespace

TimeUnit expected_point_time_unit(asuka::LidarType type) {
  switch (type) {
    case asuka::LidarType::VELODYNE:  // velodyne_pointcloud: float32 seconds from the header
    case asuka::LidarType::ROBOSENSE:  // rslidar_sdk: float64 absolute seconds
    case asuka::LidarType::HESAI:      // HesaiLidar driver: float64 absolute seconds
      return TimeUnit::SECONDS;
    case asuka::LidarType::OUSTER:  // ouster-ros: uint32 nanoseconds from the scan start
      return TimeUnit::NANOSECONDS;
    default:
      return TimeUnit::AUTO;  // Livox (several packings) and instantaneous frames: no single convention
  }
}

const char* to_string(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::AUTO:
      return "auto";
    case TimeUnit::SECONDS:
      return "s";
    case TimeUnit::MILLISECONDS:
      return "ms";
    case TimeUnit::MICROSECONDS:
      return "us";
    case TimeUnit::NANOSECONDS:
      return "ns";
  }
  return "?";
}

const char* to_string(TimeReference reference) {
  switch (reference) {
    case TimeReference::AUTO:
      return "auto";
    case TimeReference::ABSOLUTE:
      return "absolute";
    case TimeReference::RELATIVE:
      return "relative";
  }
  return "?";
}

double seconds_per(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::SECONDS:
      return 1.0;
    case TimeUnit::MILLISECONDS:
      return 1e-3;
    case TimeUnit::MICROSECONDS:
      return 1e-6;
    case TimeUnit::NANOSECONDS:
      return 1e-9;
    case TimeUnit::AUTO:
      break;
  }
  return 0.0;
}

bool time_unit_from_string(const std::string& name, TimeUnit& unit) {
  for (TimeUnit u : {TimeUnit::AUTO, TimeUnit::SECONDS, TimeUnit::MILLISECONDS, TimeUnit::MICROSECONDS, TimeUnit::NANOSECONDS}) {
    if (name == to_string(u)) {
      unit = u;
      return true;
    }
  }
  return false;
}

bool time_reference_from_string(const std::string& name, TimeReference& ref) {
  for (TimeReference r : {TimeReference::AUTO, TimeReference::ABSOLUTE, TimeReference::RELATIVE}) {
    if (name == to_string(r)) {
      ref = r;
      return true;
    }
  }
  return false;
}

const std::vector<std::string>& default_time_fields() {
  static const std::vector<std::string> fields = {"timestamp", "time", "t", "offset_time", "time_stamp"};
  return fields;
}

PointTimeConvention detect_point_time(double header_stamp, double raw_min, double raw_max, const PointTimeOptions& options) {
  PointTimeConvention c;
  std::ostringstream why;
  why.precision(12);
  why << "header " << header_stamp << " s, values in [" << raw_min << ", " << raw_max << "]";

  // Absolute: the first point's time, read in some unit, is close to the header stamp.
  TimeUnit absolute_unit = TimeUnit::AUTO;
  double best = std::numeric_limits<double>::infinity();
  for (TimeUnit u : kUnits) {
    if (options.unit != TimeUnit::AUTO && u != options.unit) continue;
    const double distance = std::fabs(raw_min * seconds_per(u) - header_stamp);
    if (distance <= kAbsoluteTolerance && distance < best) {
      best = distance;
      absolute_unit = u;
    }
  }
  // Near time 0 (simulators) a small value could be either; absolute only if the first point is
  // closer to the header than to zero. With header 0 both readings give the same times anyway.
  const bool absolute_plausible = absolute_unit != TimeUnit::AUTO && best < std::fabs(raw_min * seconds_per(absolute_unit));

  if (options.reference == TimeReference::ABSOLUTE || (options.reference == TimeReference::AUTO && absolute_plausible)) {
    c.reference = TimeReference::ABSOLUTE;
    if (options.unit != TimeUnit::AUTO) {
      c.unit = options.unit;
    } else if (absolute_unit != TimeUnit::AUTO) {
      c.unit = absolute_unit;
    } else {
      // Forced absolute but no unit lands near the header: pick by magnitude against the header.
      c.unit = TimeUnit::SECONDS;
      double closest = std::numeric_limits<double>::infinity();
      for (TimeUnit u : kUnits) {
        const double d = std::fabs(std::log10(std::max(std::fabs(raw_min * seconds_per(u)), 1e-12)) - std::log10(std::max(std::fabs(header_stamp), 1e-12)));
        if (d < closest) {
          closest = d;
          c.unit = u;
        }
      }
    }
    why << ": absolute " << to_string(c.unit) << (options.reference == TimeReference::ABSOLUTE ? " (forced)" : " (first point near the header stamp)");
  } else {
    c.reference = TimeReference::RELATIVE;
    const double span = raw_max - raw_min;
    if (options.unit != TimeUnit::AUTO) {
      c.unit = options.unit;
      why << ": relative to the header, " << to_string(c.unit) << " (forced)";
    } else if (!(span > 0.0)) {
      c.unit = TimeUnit::SECONDS;
      why << ": relative to the header; zero span, unit irrelevant";
    } else {
      double closest = std::numeric_limits<double>::infinity();
      for (TimeUnit u : kUnits) {
        const double d = std::fabs(std::log10(span * seconds_per(u)) - std::log10(kTypicalScan));
        if (d < closest) {
          closest = d;
          c.unit = u;
        }
      }
      why << ": relative to the header, " << to_string(c.unit) << " (span " << span * seconds_per(c.unit) << " s is a plausible sweep)";
    }
  }
  c.reason = why.str();
  return c;
}

}  // namespace asuka::msg
