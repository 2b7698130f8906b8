// SVG chart primitives (see svg_chart.h).
#include "report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/units.h"
#include "report/html_text.h"

namespace ltl::svg {

double LinearScale::operator()(double v) const {
  if (hi_ == lo_) return px_lo_;
  return px_lo_ + (v - lo_) / (hi_ - lo_) * (px_hi_ - px_lo_);
}

LogScale::LogScale(double lo, double hi, double px_lo, double px_hi)
    : llo_(std::log(std::max(lo, 1e-300))),
      lhi_(std::log(std::max(hi, 1e-300))),
      px_lo_(px_lo),
      px_hi_(px_hi) {}

double LogScale::operator()(double v) const {
  if (lhi_ == llo_) return px_lo_;
  return px_lo_ + (std::log(std::max(v, 1e-300)) - llo_) / (lhi_ - llo_) * (px_hi_ - px_lo_);
}

std::string Num(double v) {
  return fmt::format("{:.1f}", v);
}

std::vector<double> NiceTicks(double max, int target) {
  std::vector<double> ticks;
  if (!(max > 0) || !std::isfinite(max)) return {0, 1};
  const double raw = max / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  for (int i = 0;; ++i) {
    ticks.push_back(i * step);
    if (i * step >= max - 1e-12) break;
  }
  return ticks;
}

namespace {

std::string Open(const BarChart& spec, const Frame& f) {
  return fmt::format(
      "<svg id=\"{}\" class=\"chart\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-labelledby=\"{}-title\" xmlns=\"http://www.w3.org/2000/svg\">\n"
      "<title id=\"{}-title\">{}</title>\n",
      spec.id, Num(f.width), Num(f.height), spec.id, spec.id, HtmlEscape(spec.title));
}

// Horizontal grid lines with count labels on the left, and the axis captions.
std::string YAxis(const Frame& f, const LinearScale& y, const std::vector<double>& ticks,
                  const BarChart& spec) {
  std::string out = "<g class=\"axis y\">\n";
  for (double t : ticks) {
    out += fmt::format("<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>",
                       Num(f.x0()), Num(f.x1()), Num(y(t)), Num(y(t)));
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" dy=\"0.32em\">{}</text>\n",
                       Num(f.x0() - 6), Num(y(t)), CompactDecimal(t));
  }
  out += fmt::format(
      "<text class=\"caption\" transform=\"translate(14 {}) rotate(-90)\" "
      "text-anchor=\"middle\">{}</text>\n",
      Num((f.y0() + f.y1()) / 2), HtmlEscape(spec.y_label));
  out += fmt::format("<text class=\"caption\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     Num((f.x0() + f.x1()) / 2), Num(f.height - 6), HtmlEscape(spec.x_label));
  out += "</g>\n";
  return out;
}

// Round time steps (seconds) for a time axis with about `target` ticks.
std::vector<double> TimeTicks(double total_s, int target) {
  static const double kSteps[] = {1,     2,     5,     10,    15,     30,    60,
                                  120,   300,   600,   900,   1800,   3600,  7200,
                                  10800, 21600, 43200, 86400, 172800, 604800};
  if (!(total_s >= 0) || !std::isfinite(total_s)) return {};
  double step = 0;
  for (double s : kSteps)
    if (total_s / s <= target) {
      step = s;
      break;
    }
  if (step == 0) {
    // Past `target` weeks: whole weeks in 1-2-5 steps, so any span gives about `target` ticks
    // (a fixed largest step gave one tick per week of a centuries-long axis).
    const double weeks = total_s / 604800 / target;
    const double decade = std::pow(10.0, std::floor(std::log10(weeks)));
    step = 10 * decade * 604800;
    for (double m : {1.0, 2.0, 5.0})
      if (m * decade >= weeks) {
        step = m * decade * 604800;
        break;
      }
  }
  std::vector<double> ticks;
  for (int64_t i = 0; static_cast<double>(i) * step <= total_s + 1e-9; ++i)
    ticks.push_back(static_cast<double>(i) * step);
  return ticks;
}

// Bin edge label: tokens/ms in binary multiples (log2 bins land on 1K, 2K, ...).
std::string EdgeLabel(double v) {
  return CompactBinary(v);
}

}  // namespace

std::string HistogramSvg(const std::vector<HistogramBin>& bins, const BarChart& spec,
                         const Frame& f) {
  if (bins.empty()) return "<p class=\"empty\">No data.</p>\n";
  // Drop the empty [0,1) bin at the front when nothing fell in it, and empty bins at the front.
  size_t first = 0;
  while (first + 1 < bins.size() && bins[first].count == 0) ++first;
  const size_t n = bins.size() - first;
  uint64_t max_count = 0;
  for (size_t i = first; i < bins.size(); ++i) max_count = std::max(max_count, bins[i].count);
  const std::vector<double> ticks = NiceTicks(static_cast<double>(max_count), 4);
  const LinearScale y(0, ticks.back(), f.y0(), f.y1());
  const double slot = (f.x1() - f.x0()) / static_cast<double>(n);
  const double gap = std::min(2.0, slot * 0.15);
  std::string out = Open(spec, f) + YAxis(f, y, ticks, spec);
  out += fmt::format("<g class=\"bars\" data-bins=\"{}\">\n", n);
  for (size_t i = 0; i < n; ++i) {
    const HistogramBin& b = bins[first + i];
    const double x = f.x0() + static_cast<double>(i) * slot;
    const double top = y(static_cast<double>(b.count));
    out += fmt::format(
        "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>[{}, {}): {} "
        "{}</title></rect>\n",
        Num(x + gap / 2), Num(top), Num(std::max(0.5, slot - gap)), Num(f.y0() - top),
        EdgeLabel(b.lo), EdgeLabel(b.hi), WithCommas(static_cast<int64_t>(b.count)),
        HtmlEscape(spec.unit));
  }
  out += "</g>\n<g class=\"axis x\">\n";
  // Label the left edge of every k-th bin so labels never overlap (about 48 units each).
  const size_t every = std::max<size_t>(1, static_cast<size_t>(std::ceil(48.0 / slot)));
  for (size_t i = 0; i <= n; i += every) {
    const double edge = i < n ? bins[first + i].lo : bins.back().hi;
    out +=
        fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                    Num(f.x0() + static_cast<double>(i) * slot), Num(f.y0() + 16), EdgeLabel(edge));
  }
  out += fmt::format("<line class=\"axis-line\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n",
                     Num(f.x0()), Num(f.x1()), Num(f.y0()), Num(f.y0()));
  out += "</g>\n</svg>\n";
  return out;
}

std::string TimeBarsSvg(const std::vector<double>& values, double bin_s, const BarChart& spec,
                        const Frame& f) {
  if (values.empty() || !(bin_s > 0)) return "<p class=\"empty\">No timestamps to plot.</p>\n";
  const double max_v = *std::max_element(values.begin(), values.end());
  const std::vector<double> ticks = NiceTicks(max_v, 4);
  const LinearScale y(0, ticks.back(), f.y0(), f.y1());
  const double total_s = bin_s * static_cast<double>(values.size());
  const LinearScale x(0, total_s, f.x0(), f.x1());
  std::string out = Open(spec, f) + YAxis(f, y, ticks, spec);
  out += fmt::format("<g class=\"bars\" data-bins=\"{}\">\n", values.size());
  const double w = (f.x1() - f.x0()) / static_cast<double>(values.size());
  const double gap = std::min(1.0, w * 0.15);
  for (size_t i = 0; i < values.size(); ++i) {
    const double top = y(values[i]);
    out += fmt::format(
        "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{} – {}: {:.3g} "
        "{}</title></rect>\n",
        Num(x(static_cast<double>(i) * bin_s) + gap / 2), Num(top), Num(std::max(0.5, w - gap)),
        Num(f.y0() - top), FormatDuration(static_cast<double>(i) * bin_s),
        FormatDuration(static_cast<double>(i + 1) * bin_s), values[i], HtmlEscape(spec.unit));
  }
  out += "</g>\n<g class=\"axis x\">\n";
  for (double t : TimeTicks(total_s, 6)) {
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", Num(x(t)),
                       Num(f.y0() + 16), FormatDuration(t));
  }
  out += fmt::format("<line class=\"axis-line\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n",
                     Num(f.x0()), Num(f.x1()), Num(f.y0()), Num(f.y0()));
  out += "</g>\n</svg>\n";
  return out;
}

std::string LabeledBarsSvg(const std::vector<std::pair<std::string, double>>& bars,
                           const BarChart& spec, const Frame& f) {
  if (bars.empty()) return "<p class=\"empty\">No data.</p>\n";
  double max_v = 0;
  for (const auto& b : bars) max_v = std::max(max_v, b.second);
  const std::vector<double> ticks = NiceTicks(max_v, 4);
  const LinearScale y(0, ticks.back(), f.y0(), f.y1());
  const double slot = (f.x1() - f.x0()) / static_cast<double>(bars.size());
  const double gap = std::min(8.0, slot * 0.2);
  std::string out = Open(spec, f) + YAxis(f, y, ticks, spec);
  out += fmt::format("<g class=\"bars\" data-bins=\"{}\">\n", bars.size());
  for (size_t i = 0; i < bars.size(); ++i) {
    const double x = f.x0() + static_cast<double>(i) * slot;
    const double top = y(bars[i].second);
    out += fmt::format(
        "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}: {} "
        "{}</title></rect>\n",
        Num(x + gap / 2), Num(top), Num(std::max(0.5, slot - gap)), Num(f.y0() - top),
        HtmlEscape(bars[i].first), CompactDecimal(bars[i].second), HtmlEscape(spec.unit));
  }
  out += "</g>\n<g class=\"axis x\">\n";
  for (size_t i = 0; i < bars.size(); ++i)
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                       Num(f.x0() + (static_cast<double>(i) + 0.5) * slot), Num(f.y0() + 16),
                       HtmlEscape(bars[i].first));
  out += fmt::format("<line class=\"axis-line\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n",
                     Num(f.x0()), Num(f.x1()), Num(f.y0()), Num(f.y0()));
  out += "</g>\n</svg>\n";
  return out;
}

}  // namespace ltl::svg
