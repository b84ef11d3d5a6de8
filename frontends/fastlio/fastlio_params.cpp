#include "fastlio_params.hpp"

#include <asuka/config/config.hpp>

namespace asuka::fastlio {

lio::FilterFrontendParams FastlioParams::defaults() {
  lio::FilterFrontendParams p;
  p.end_rule = lio::ScanEndRule::LAST_POINT;  // R-SYNC-4
  p.measurement_std = 0.03;
  return p;
}

lio::IeskfParams FastlioParams::filter_defaults() {
  lio::IeskfParams p;
  // The IMU's noise per sample: 100 and 10 times less than FAST-LIO's 0.1, still 125 and 12 times a
  // consumer MEMS IMU's at 200 Hz (docs/frontends/fastlio.md, "IMU noise"; batchlio uses the same).
  p.gyr_cov = 1e-3;
  p.acc_cov = 1e-2;
  return p;
}

lio::IeskfParams FastlioParams::from_config(const Config& c) { return lio::IeskfParams::from_config(c, defaults(), filter_defaults()); }

}  // namespace asuka::fastlio
