// A standalone SVG (no library): top view of the aligned estimate over the ground truth, and the ATE
// over time. Opened directly in a browser.

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include <fmt/format.h>

#include <asuka_eval/evaluation.hpp>

namespace asuka::eval {

namespace {

constexpr double kWidth = 960.0;
constexpr double kLeft = 90.0;  // room for the y tick labels
constexpr double kRight = 30.0;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kTopViewTop = 130.0;
constexpr double kTopViewHeight = 600.0;
constexpr double kErrorTop = kTopViewTop + kTopViewHeight + 90.0;
constexpr double kErrorHeight = 220.0;
constexpr double kHeight = kErrorTop + kErrorHeight + 60.0;
constexpr std::size_t kMaxPolylinePoints = 4000;  // keeps the file small; the shape is unchanged at this size

const char* const kGtColor = "#222222";
const char* const kEstColor = "#d9480f";
const char* const kErrColor = "#1c7ed6";
const char* const kShadeColor = "#f08c00";  ///< #21: shaded intervals

std::string escape_xml(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

/// A round step (1, 2 or 5 times a power of ten) giving about `target` intervals over `range`.
double nice_step(double range, int target) {
  const double raw = range / target;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  const double mantissa = raw / power;
  if (mantissa < 1.5) return power;
  if (mantissa < 3.5) return 2.0 * power;
  if (mantissa < 7.5) return 5.0 * power;
  return 10.0 * power;
}

std::vector<double> ticks(double lo, double hi, int target) {
  std::vector<double> out;
  if (!(hi > lo)) return out;
  const double step = nice_step(hi - lo, target);
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + 1e-9 * step; k += 1.0) {
    const double v = k * step;
    out.push_back(std::fabs(v) < 1e-12 * step ? 0.0 : v);
  }
  return out;
}

/// Maps data coordinates to the pixels of one panel (y up in data, down in SVG).
struct Mapping {
  double px0, py0, pw, ph;  // panel rectangle [px]
  double x_lo, x_hi, y_lo, y_hi;
  double x(double v) const { return px0 + (v - x_lo) / (x_hi - x_lo) * pw; }
  double y(double v) const { return py0 + ph - (v - y_lo) / (y_hi - y_lo) * ph; }
};

template <typename Point>
std::string polyline(const std::vector<Point>& points, const Mapping& m, const char* color, double width, const std::function<double(const Point&)>& fx,
                     const std::function<double(const Point&)>& fy) {
  std::string out = fmt::format(R"(<polyline fill="none" stroke="{}" stroke-width="{}" stroke-linejoin="round" points=")", color, width);
  const std::size_t stride = std::max<std::size_t>(1, (points.size() + kMaxPolylinePoints - 1) / kMaxPolylinePoints);
  for (std::size_t i = 0; i < points.size(); i += stride) out += fmt::format("{:.1f},{:.1f} ", m.x(fx(points[i])), m.y(fy(points[i])));
  if (!points.empty() && (points.size() - 1) % stride != 0) out += fmt::format("{:.1f},{:.1f}", m.x(fx(points.back())), m.y(fy(points.back())));
  out += "\"/>\n";
  return out;
}

std::string axes(const Mapping& m, const std::string& x_label, const std::string& y_label) {
  std::string out;
  out += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="#fafafa" stroke="#888888"/>)"
                     "\n",
                     m.px0, m.py0, m.pw, m.ph);
  for (double v : ticks(m.x_lo, m.x_hi, 8)) {
    const double px = m.x(v);
    out += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="#e0e0e0"/>)"
                       "\n",
                       px, m.py0, m.py0 + m.ph);
    out += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle">{:g}</text>)"
                       "\n",
                       px, m.py0 + m.ph + 16.0, v);
  }
  for (double v : ticks(m.y_lo, m.y_hi, 6)) {
    const double py = m.y(v);
    out += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{2:.1f}" y2="{1:.1f}" stroke="#e0e0e0"/>)"
                       "\n",
                       m.px0, py, m.px0 + m.pw);
    out += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="end">{:g}</text>)"
                       "\n",
                       m.px0 - 6.0, py + 4.0, v);
  }
  out += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle">{}</text>)"
                     "\n",
                     m.px0 + m.pw / 2.0, m.py0 + m.ph + 36.0, x_label);
  const double ly = m.py0 + m.ph / 2.0;
  out += fmt::format(R"svg(<text x="{0:.1f}" y="{1:.1f}" text-anchor="middle" transform="rotate(-90 {0:.1f} {1:.1f})">{2}</text>)svg"
                     "\n",
                     m.px0 - 62.0, ly, y_label);
  return out;
}

std::string legend_entry(double x, double y, const char* color, const std::string& label) {
  return fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="3"/><text x="{:.1f}" y="{:.1f}">{}</text>)"
                     "\n",
                     x, y, x + 28.0, y, color, x + 36.0, y + 4.0, label);
}

}  // namespace

std::string render_svg(const EvalResult& r, const ReportInfo& info) {
  std::string svg;
  svg += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg += fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{0:g}" height="{1:g}" viewBox="0 0 {0:g} {1:g}" font-family="sans-serif" font-size="12">)"
      "\n",
      kWidth, kHeight);
  svg += R"(<rect x="0" y="0" width="100%" height="100%" fill="white"/>)"
         "\n";

  // Title and the headline numbers.
  svg += fmt::format(R"(<text x="{:.1f}" y="28" font-size="18" font-weight="bold">Estimate vs ground truth</text>)"
                     "\n",
                     kLeft);
  svg += fmt::format(R"(<text x="{:.1f}" y="50">estimate: {}</text>)"
                     "\n",
                     kLeft, escape_xml(info.est_path));
  svg += fmt::format(R"(<text x="{:.1f}" y="66">ground truth: {}</text>)"
                     "\n",
                     kLeft, escape_xml(info.gt_path));
  std::string headline = fmt::format("ATE rmse {:.4f} m, max {:.4f} m; coverage {:.1f} %", r.ate.rmse, r.ate.max, 100.0 * r.coverage);
  if (r.drift.valid()) headline += fmt::format("; drift {:.3f} %, {:.5f} deg/m", r.drift.translation_percent, r.drift.rotation_deg_per_m);
  svg += fmt::format(R"(<text x="{:.1f}" y="84">{}</text>)"
                     "\n",
                     kLeft, escape_xml(headline));

  // ---- Top view, equal scale on both axes ----
  constexpr double kInf = std::numeric_limits<double>::infinity();
  double x_min = kInf, x_max = -kInf, y_min = kInf, y_max = -kInf;
  for (const auto* list : {&r.gt_positions, &r.est_positions}) {
    for (const auto& p : *list) {
      x_min = std::min(x_min, p.x());
      x_max = std::max(x_max, p.x());
      y_min = std::min(y_min, p.y());
      y_max = std::max(y_max, p.y());
    }
  }
  if (!(x_max >= x_min)) x_min = x_max = y_min = y_max = 0.0;
  const double dx = std::max(x_max - x_min, 1e-3), dy = std::max(y_max - y_min, 1e-3);
  const double scale = std::min(kPlotWidth / (1.1 * dx), kTopViewHeight / (1.1 * dy));  // [px/m], 5 % margin on each side
  const double cx = 0.5 * (x_min + x_max), cy = 0.5 * (y_min + y_max);
  const double half_w = 0.5 * kPlotWidth / scale, half_h = 0.5 * kTopViewHeight / scale;
  const Mapping top{kLeft, kTopViewTop, kPlotWidth, kTopViewHeight, cx - half_w, cx + half_w, cy - half_h, cy + half_h};
  svg += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="14" font-weight="bold">Top view (estimate aligned to the ground truth)</text>)"
                     "\n",
                     kLeft, kTopViewTop - 10.0);
  svg += axes(top, "x [m]", "y [m]");
  const std::function<double(const Eigen::Vector3d&)> px = [](const Eigen::Vector3d& p) { return p.x(); };
  const std::function<double(const Eigen::Vector3d&)> py = [](const Eigen::Vector3d& p) { return p.y(); };
  svg += polyline(r.gt_positions, top, kGtColor, 2.0, px, py);
  svg += polyline(r.est_positions, top, kEstColor, 1.5, px, py);
  if (!r.gt_positions.empty()) {
    svg += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="5" fill="none" stroke="{}" stroke-width="2"><title>ground-truth start</title></circle>)"
                       "\n",
                       top.x(r.gt_positions.front().x()), top.y(r.gt_positions.front().y()), kGtColor);
  }
  const double lx = kLeft + kPlotWidth - 190.0, ly = kTopViewTop + 20.0;
  svg += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="180" height="66" fill="white" stroke="#888888"/>)"
                     "\n",
                     lx - 10.0, ly - 12.0);
  svg += legend_entry(lx, ly, kGtColor, "ground truth");
  svg += legend_entry(lx, ly + 20.0, kEstColor, "estimate (aligned)");
  svg += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="5" fill="none" stroke="{}" stroke-width="2"/><text x="{:.1f}" y="{:.1f}">start</text>)"
                     "\n",
                     lx + 14.0, ly + 40.0, kGtColor, lx + 36.0, ly + 44.0);

  // ---- ATE over time ----
  struct TimedError {
    double t, e;
  };
  std::vector<TimedError> errors;
  for (std::size_t i = 0; i < r.ate_errors.size(); ++i) errors.push_back({r.association.stamps[i] - r.gt_start, r.ate_errors[i]});
  const double t_end = std::max(r.gt_end - r.gt_start, errors.empty() ? 0.0 : errors.back().t);
  const double t_begin = std::min(0.0, errors.empty() ? 0.0 : errors.front().t);
  const double e_top = r.ate.max > 0.0 ? 1.1 * r.ate.max : 1e-3;
  const Mapping err{kLeft, kErrorTop, kPlotWidth, kErrorHeight, t_begin, t_end > t_begin ? t_end : t_begin + 1.0, 0.0, e_top};
  svg += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="14" font-weight="bold">ATE over time (translation error after alignment)</text>)"
                     "\n",
                     kLeft, kErrorTop - 10.0);
  svg += axes(err, fmt::format("time [s] since the ground-truth start (stamp {:.3f} s)", r.gt_start), "ATE [m]");
  // #21: the shaded intervals (degenerate scans), at least 0.1 s wide so a single scan shows.
  for (const auto& [begin, end] : info.shaded) {
    const double b = std::max(err.x_lo, begin - r.gt_start - 0.05), e = std::min(err.x_hi, end - r.gt_start + 0.05);
    if (!(e > b)) continue;
    svg += fmt::format(R"(<rect class="shaded" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" fill-opacity="0.35"/>)"
                       "\n",
                       err.x(b), err.py0, err.x(e) - err.x(b), err.ph, kShadeColor);
  }
  if (!info.shaded.empty()) {
    svg += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" fill="{}">shaded: {} ({})</text>)"
                       "\n",
                       err.px0 + 6.0, err.py0 + 16.0, kShadeColor, info.shaded_label, info.shaded.size());
  }
  const std::function<double(const TimedError&)> et = [](const TimedError& p) { return p.t; };
  const std::function<double(const TimedError&)> ee = [](const TimedError& p) { return p.e; };
  svg += polyline(errors, err, kErrColor, 1.5, et, ee);
  const double rmse_y = err.y(r.ate.rmse);
  svg += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-dasharray="6 4"/>)"
                     "\n",
                     err.px0, rmse_y, err.px0 + err.pw, rmse_y, kEstColor);
  svg += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="end" fill="{}">dashed: rmse {:.4f} m</text>)"
                     "\n",
                     err.px0 + err.pw, err.py0 - 10.0, kEstColor, r.ate.rmse);
  svg += "</svg>\n";
  return svg;
}

}  // namespace asuka::eval
