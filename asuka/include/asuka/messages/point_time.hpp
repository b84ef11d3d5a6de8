#pragma once
// How per-point times in a cloud message are turned into offsets from the frame start (R-PRE-2).
// Drivers disagree: Livox PointXYZRTLT writes absolute ns as float64, Velodyne relative seconds as
// float32 (negative when the header marks the last packet), Ouster uint32 ns from the scan start,
// Robosense and Hesai absolute seconds as float64. The unit and the reference are detected from the
// values' magnitude and span (or forced in config), once per topic, and the decision is logged.

#include <string>
#include <vector>

#include <asuka/core/types.hpp>

namespace asuka::msg {

enum class TimeUnit { AUTO, SECONDS, MILLISECONDS, MICROSECONDS, NANOSECONDS };
/// ABSOLUTE: the field holds the time itself. RELATIVE: the field is an offset from the header stamp.
enum class TimeReference { AUTO, ABSOLUTE, RELATIVE };

const char* to_string(TimeUnit unit);
const char* to_string(TimeReference reference);
/// Seconds per unit (AUTO has none: 0).
double seconds_per(TimeUnit unit);
bool time_unit_from_string(const std::string& name, TimeUnit& unit);            ///< "auto", "s", "ms", "us", "ns"
bool time_reference_from_string(const std::string& name, TimeReference& ref);   ///< "auto", "absolute", "relative"

struct PointTimeOptions {
  std::string field;                            ///< "" = the first present of kDefaultTimeFields
  TimeUnit unit = TimeUnit::AUTO;
  TimeReference reference = TimeReference::AUTO;
};

/// The unit this lidar type's usual driver writes its per-point time in (AUTO: no single convention).
TimeUnit expected_point_time_unit(asuka::LidarType type);

/// Field names tried, in order, when PointTimeOptions::field is empty.
const std::vector<std::string>& default_time_fields();

struct PointTimeConvention {
  TimeUnit unit = TimeUnit::SECONDS;
  TimeReference reference = TimeReference::RELATIVE;
  std::string reason;  ///< one line for the log: what was seen and why this was chosen
};

/// Decides unit and reference from a header stamp [s] and the raw field values' range. Forced
/// values in `options` win. Rules (docs/input.md):
///  - absolute in unit u if min * u lies within 10 s of the header stamp (closest unit wins) and
///    closer to the header than to zero;
///  - otherwise relative, in the unit that makes the span closest to a plausible scan (0.1 s).
PointTimeConvention detect_point_time(double header_stamp, double raw_min, double raw_max, const PointTimeOptions& options);

}  // namespace asuka::msg
