// asuka_eval: compares an estimated trajectory with ground truth (two TUM files): ATE after SE(3)
// alignment, KITTI-style drift, RPE over 1 m, coverage; text summary, JSON, SVG plot.
// Definitions, their evo equivalents and exit codes: docs/evaluation.md.

#include <cstdio>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <asuka_eval/evaluation.hpp>

namespace {

// Exit codes (docs/evaluation.md).
constexpr int kExitUsage = 1;         // bad command line (or an unexpected internal error)
constexpr int kExitIncomparable = 2;  // unreadable file, bad line, no overlap, too few poses
constexpr int kExitOutput = 3;        // an output file could not be written

bool write_file(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
  out.flush();
  return static_cast<bool>(out);
}

int run(int argc, char** argv) {
  CLI::App app{"asuka_eval: accuracy of an estimated trajectory against ground truth (TUM files), as evo computes it (see docs/evaluation.md)"};
  std::string est_path, gt_path, est_to_gt, json_path, plot_path;
  asuka::eval::EvalParams params;
  bool no_align = false;
  app.add_option("EST", est_path, "Estimated trajectory, TUM format (t x y z qx qy qz qw)")->required();
  app.add_option("GT", gt_path, "Ground-truth trajectory, TUM format")->required();
  app.add_option("--max-dt", params.association.max_dt,
                 "Nearest-neighbour tolerance [s] where GT cannot be interpolated (GT ends, GT gaps); evo's --t_max_diff")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-gap", params.association.max_gap, "Longest interval [s] between two GT poses that is interpolated across")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--est-to-gt", est_to_gt,
                 "Extrinsic \"x y z qx qy qz qw\": the GT body frame in the estimate's body frame (T_est_gt); each estimate pose becomes "
                 "T_world_est * T_est_gt before anything else");
  app.add_flag("--no-align", no_align, "Compare the trajectories as given, without the SE(3) alignment (evo without -a)");
  app.add_flag("--align-origin", params.align_origin,
               "Align by the first associated pose instead of the SE(3) alignment (evo's --align_origin): errors grow from zero, as from a common "
               "initial state");
  app.add_option("--rpe-delta", params.rpe_delta, "Path distance [m] of the RPE pose pairs (evo's --delta with --delta_unit m)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--json", json_path, "Write every number as JSON to this file; '-' writes the JSON to stdout instead of the text summary");
  app.add_option("--plot", plot_path, "Write an SVG plot (top view and ATE over time) to this file");
  std::string report_path;
  app.add_option("--report", report_path,
                 "An asuka report.json of the same run: the plot shades its degenerate intervals (degeneracy.intervals) on the ATE-over-time panel");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  params.align = !no_align;
  if (!est_to_gt.empty()) {
    try {
      params.T_est_gt = asuka::eval::parse_pose(est_to_gt);
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "asuka_eval: --est-to-gt: %s\n", e.what());
      return kExitUsage;
    }
  }

  asuka::eval::ReportInfo info{est_path, gt_path, {}, {}};
  if (!report_path.empty()) {
    try {
      info.shaded = asuka::eval::load_degenerate_intervals(report_path);
      info.shaded_label = "degenerate scans, " + report_path;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "asuka_eval: --report: %s\n", e.what());
      return kExitUsage;
    }
  }
  asuka::eval::EvalResult result;
  try {
    const auto est = asuka::eval::load_trajectory(est_path, "estimate");
    const auto gt = asuka::eval::load_trajectory(gt_path, "ground truth");
    result = asuka::eval::evaluate(est, gt, params);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "asuka_eval: cannot compare %s with %s: %s\n", est_path.c_str(), gt_path.c_str(), e.what());
    return kExitIncomparable;
  }

  if (result.coverage < 0.9) {
    std::fprintf(stderr, "asuka_eval: warning: the compared poses span only %.1f %% of the ground truth's duration (see 'coverage')\n",
                 100.0 * result.coverage);
  }
  if (json_path == "-") {
    std::cout << asuka::eval::format_json(result, params, info) << std::flush;
  } else {
    std::cout << asuka::eval::format_summary(result, params, info) << std::flush;
  }
  int code = 0;
  if (!json_path.empty() && json_path != "-" && !write_file(json_path, asuka::eval::format_json(result, params, info))) {
    std::fprintf(stderr, "asuka_eval: cannot write the JSON report to %s\n", json_path.c_str());
    code = kExitOutput;
  }
  if (!plot_path.empty() && !write_file(plot_path, asuka::eval::render_svg(result, info))) {
    std::fprintf(stderr, "asuka_eval: cannot write the plot to %s\n", plot_path.c_str());
    code = kExitOutput;
  }
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {  // not expected: the library reports bad input as EvalError above
    std::fprintf(stderr, "asuka_eval: internal error: %s\n", e.what());
    return kExitUsage;
  }
}
