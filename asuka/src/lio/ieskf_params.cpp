#include <asuka/config/config.hpp>
#include <asuka/lio/ieskf_frontend.hpp>

namespace asuka::lio {

IeskfParams IeskfParams::from_config(const Config& c, const FilterFrontendParams& defaults, const IeskfParams& filter) {
  IeskfParams p = filter;
  p.common = FilterFrontendParams::from_config(c, defaults, "mapping");
  p.max_iterations = c.get_in_range("mapping.max_iterations", p.max_iterations, 1, 50);
  p.gyr_cov = c.get_in_range("mapping.gyr_cov", p.gyr_cov, 0.0, 100.0);
  p.acc_cov = c.get_in_range("mapping.acc_cov", p.acc_cov, 0.0, 100.0);
  p.b_gyr_cov = c.get_in_range("mapping.b_gyr_cov", p.b_gyr_cov, 0.0, 1.0);
  p.b_acc_cov = c.get_in_range("mapping.b_acc_cov", p.b_acc_cov, 0.0, 1.0);
  p.extrinsic_est_en = c.get<bool>("mapping.extrinsic_est_en", p.extrinsic_est_en);
  p.extrinsic_init_std_rot = c.get_in_range("mapping.extrinsic_init_std_rot", p.extrinsic_init_std_rot, 1e-6, 0.5);
  p.extrinsic_init_std_pos = c.get_in_range("mapping.extrinsic_init_std_pos", p.extrinsic_init_std_pos, 1e-6, 1.0);
  return p;
}

}  // namespace asuka::lio
