#pragma once
// Parameters of the fastlio frontend (config_odometry_fastlio.json; every key, unit and default is in
// docs/frontends/fastlio.md): the shared filter's keys (asuka/lio/ieskf_frontend.hpp) with fastlio's
// defaults.

#include <asuka/lio/ieskf_frontend.hpp>

namespace asuka {
class Config;
}

namespace asuka::fastlio {

struct FastlioParams {
  /// fastlio's defaults of the common keys: R-SYNC-4's end rule, 3 cm point-to-plane noise.
  static lio::FilterFrontendParams defaults();
  /// Reads `config` (sections sensor, preprocess, mapping); throws ConfigError for bad values.
  static lio::IeskfParams from_config(const Config& config);
};

}  // namespace asuka::fastlio
