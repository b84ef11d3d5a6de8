// The text summary and the JSON report (schema in docs/evaluation.md, "Outputs").

#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <asuka_eval/evaluation.hpp>

namespace asuka::eval {

namespace {

using Json = nlohmann::ordered_json;

constexpr double kRadToDeg = 57.295779513082320876798;  // 180 / pi

std::string pose_text(const Eigen::Isometry3d& T) {
  Eigen::Quaterniond q(T.linear());
  q.normalize();
  if (q.w() < 0.0) q.coeffs() = -q.coeffs();
  const Eigen::Vector3d t = T.translation();
  return fmt::format("{:.6f} {:.6f} {:.6f} {:.9f} {:.9f} {:.9f} {:.9f}", t.x(), t.y(), t.z(), q.x(), q.y(), q.z(), q.w());
}

Json pose_json(const Eigen::Isometry3d& T) {
  Eigen::Quaterniond q(T.linear());
  q.normalize();
  if (q.w() < 0.0) q.coeffs() = -q.coeffs();
  const Eigen::Vector3d t = T.translation();
  return Json::array({t.x(), t.y(), t.z(), q.x(), q.y(), q.z(), q.w()});
}

Json stats_json(const ErrorStats& s) {
  if (s.count == 0) return Json{{"count", 0}};
  return Json{{"count", s.count}, {"rmse", s.rmse}, {"mean", s.mean}, {"median", s.median}, {"std", s.std}, {"min", s.min}, {"max", s.max}, {"sse", s.sse}};
}

}  // namespace

std::string format_summary(const EvalResult& r, const EvalParams& params, const ReportInfo& info) {
  const Association& a = r.association;
  std::string out;
  out += fmt::format("estimate      {}\n", info.est_path);
  out += fmt::format("ground truth  {}\n", info.gt_path);
  out += fmt::format("poses         estimate {} over [{:.3f}, {:.3f}] s, ground truth {} over [{:.3f}, {:.3f}] s\n", r.est_count, r.est_start, r.est_end,
                     r.gt_count, r.gt_start, r.gt_end);
  out += fmt::format("associated    {} ({} interpolated, {} nearest within {} s); skipped {} outside the GT span, {} in GT gaps > {} s\n", a.size(),
                     a.interpolated, a.nearest, params.association.max_dt, a.skipped_outside, a.skipped_gap, params.association.max_gap);
  out += fmt::format("coverage      {:.1f} % of the ground-truth duration ({:.3f} of {:.3f} s)\n", 100.0 * r.coverage, r.coverage * (r.gt_end - r.gt_start),
                     r.gt_end - r.gt_start);
  if (params.T_est_gt) out += fmt::format("est-to-gt     {}\n", pose_text(*params.T_est_gt));
  if (params.align_origin) {
    out += fmt::format("alignment     by the first pose (--align-origin): rotation {:.3f} deg, translation {:.4f} m\n", rotation_angle(r.T_alignment.linear()) * kRadToDeg,
                       r.T_alignment.translation().norm());
  } else if (params.align) {
    out += fmt::format("alignment     SE(3) Umeyama, no scale: rotation {:.3f} deg, translation {:.4f} m\n", rotation_angle(r.T_alignment.linear()) * kRadToDeg,
                       r.T_alignment.translation().norm());
  } else {
    out += "alignment     none (--no-align)\n";
  }
  for (const auto& warning : r.warnings) out += fmt::format("warning       {}\n", warning);
  out += fmt::format("ATE [m]       rmse {:.4f}  mean {:.4f}  median {:.4f}  std {:.4f}  min {:.4f}  max {:.4f}\n", r.ate.rmse, r.ate.mean, r.ate.median,
                     r.ate.std, r.ate.min, r.ate.max);
  out += fmt::format("ATE by axis   x {:.4f}  y {:.4f}  z {:.4f} m (rms, GT world axes); rotation rmse {:.3f} deg; final error ({:.3f}, {:.3f}, {:.3f}) m\n",
                     r.ate_axes_rmse.x(), r.ate_axes_rmse.y(), r.ate_axes_rmse.z(), r.rotation_rmse_deg, r.final_error.x(), r.final_error.y(),
                     r.final_error.z());
  if (r.drift.valid()) {
    out +=
        fmt::format("drift         {:.3f} %  {:.5f} deg/m  ({} segments of {:g}..{:g} m over a {:.1f} m GT path, KITTI-style)\n", r.drift.translation_percent,
                    r.drift.rotation_deg_per_m, r.drift.segments, r.drift.lengths.front().length, r.drift.lengths.back().length, r.drift.path_length);
  } else {
    out += fmt::format("drift         n/a (the {:.3f} m GT path is too short for any segment)\n", r.drift.path_length);
  }
  if (r.rpe.valid()) {
    out += fmt::format("{:<14}translation rmse {:.4f} m  mean {:.4f} m;  rotation rmse {:.4f} deg  mean {:.4f} deg  ({} pairs)\n",
                       fmt::format("RPE {:g} m", r.rpe.delta), r.rpe.translation.rmse, r.rpe.translation.mean, r.rpe.rotation.rmse, r.rpe.rotation.mean,
                       r.rpe.translation.count);
  } else {
    out += fmt::format("{:<14}n/a (no pose pair {:g} m apart along the estimate, within {:g} %)\n", fmt::format("RPE {:g} m", r.rpe.delta), r.rpe.delta,
                       100.0 * r.rpe.rel_tol);
  }
  return out;
}

std::string format_json(const EvalResult& r, const EvalParams& params, const ReportInfo& info) {
  const Association& a = r.association;
  Json j;
  j["estimate"] = {{"path", info.est_path}, {"poses", r.est_count}, {"start", r.est_start}, {"end", r.est_end}};
  j["ground_truth"] = {{"path", info.gt_path}, {"poses", r.gt_count}, {"start", r.gt_start}, {"end", r.gt_end}};
  j["settings"] = {{"max_dt", params.association.max_dt},
                   {"max_gap", params.association.max_gap},
                   {"align", params.align},
                   {"est_to_gt", params.T_est_gt ? pose_json(*params.T_est_gt) : Json(nullptr)},
                   {"rpe_delta_m", params.rpe_delta},
                   {"rpe_rel_tol", params.rpe_rel_tol}};
  j["association"] = {{"associated", a.size()},
                      {"interpolated", a.interpolated},
                      {"nearest", a.nearest},
                      {"skipped_outside_gt", a.skipped_outside},
                      {"skipped_in_gt_gap", a.skipped_gap},
                      {"first_stamp", a.stamps.empty() ? Json(nullptr) : Json(a.stamps.front())},
                      {"last_stamp", a.stamps.empty() ? Json(nullptr) : Json(a.stamps.back())}};
  j["coverage_percent"] = 100.0 * r.coverage;
  j["alignment"] = {{"applied", params.align || params.align_origin}, {"origin", params.align_origin},
                    {"T_gt_est", pose_json(r.T_alignment)},
                    {"rotation_deg", rotation_angle(r.T_alignment.linear()) * kRadToDeg},
                    {"translation_m", r.T_alignment.translation().norm()},
                    {"orientation_disagreement_deg", r.alignment_disagreement_deg}};
  j["warnings"] = r.warnings;
  j["ate_m"] = stats_json(r.ate);
  j["ate_axes_rmse_m"] = {r.ate_axes_rmse.x(), r.ate_axes_rmse.y(), r.ate_axes_rmse.z()};
  j["rotation_rmse_deg"] = r.rotation_rmse_deg;
  j["final_error_m"] = {r.final_error.x(), r.final_error.y(), r.final_error.z()};

  Json lengths = Json::array();
  for (const auto& l : r.drift.lengths) {
    lengths.push_back({{"length_m", l.length},
                       {"segments", l.segments},
                       {"translation_percent", l.segments ? Json(l.translation_percent) : Json(nullptr)},
                       {"rotation_deg_per_m", l.segments ? Json(l.rotation_deg_per_m) : Json(nullptr)}});
  }
  j["drift"] = {{"path_length_m", r.drift.path_length},
                {"segments", r.drift.segments},
                {"translation_percent", r.drift.valid() ? Json(r.drift.translation_percent) : Json(nullptr)},
                {"rotation_deg_per_m", r.drift.valid() ? Json(r.drift.rotation_deg_per_m) : Json(nullptr)},
                {"per_length", lengths}};
  j["rpe"] = {{"delta_m", r.rpe.delta},
              {"rel_tol", r.rpe.rel_tol},
              {"pairs", r.rpe.translation.count},
              {"translation_m", stats_json(r.rpe.translation)},
              {"rotation_deg", stats_json(r.rpe.rotation)}};
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";  // a file name need not be UTF-8
}

std::vector<std::pair<double, double>> load_degenerate_intervals(const std::string& report_path) {
  std::ifstream in(report_path);
  if (!in) throw std::runtime_error("cannot open the report " + report_path);
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("the report " + report_path + " is not JSON: " + e.what());
  }
  if (!j.contains("degeneracy") || !j["degeneracy"].contains("intervals")) {
    throw std::runtime_error("the report " + report_path + " has no degeneracy.intervals (written by asuka_rosbag and asuka_rosnode since #21)");
  }
  std::vector<std::pair<double, double>> out;
  for (const auto& i : j["degeneracy"]["intervals"]) {
    if (!i.contains("begin_s") || !i.contains("end_s")) throw std::runtime_error("the report " + report_path + ": an interval without begin_s and end_s");
    out.emplace_back(i["begin_s"].get<double>(), i["end_s"].get<double>());
  }
  return out;
}

}  // namespace asuka::eval
