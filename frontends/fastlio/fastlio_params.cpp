#include "fastlio_params.hpp"

#include <asuka/config/config.hpp>

namespace asuka::fastlio {

lio::FilterFrontendParams FastlioParams::defaults() {
  lio::FilterFrontendParams p;
  p.end_rule = lio::ScanEndRule::LAST_POINT;  // R-SYNC-4
  p.measurement_std = 0.03;
  p.knn = 8;  // #17: eight neighbours per plane on every lidar (docs/frontends/fastlio.md, "Planes that hinge on one point")
  return p;
}

lio::IeskfParams FastlioParams::from_config(const Config& c) { return lio::IeskfParams::from_config(c, defaults(), lio::IeskfParams::with_mems_imu_noise()); }

}  // namespace asuka::fastlio
