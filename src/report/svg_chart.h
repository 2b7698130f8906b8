// SVG chart primitives for report.html: scales, "nice" ticks, and the two bar charts the report
// draws (log2-binned histograms and time series). Hand-written on purpose: no C++ charting library
// is packaged for Debian, and the report needs only static inline SVG (no scripts, no fonts).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analyze/quantiles.h"

namespace ltl::svg {

// Plot area inside an SVG of width x height user units.
struct Frame {
  double width = 520, height = 230;
  double left = 50, right = 14, top = 14, bottom = 42;
  double x0() const { return left; }
  double x1() const { return width - right; }
  double y0() const { return height - bottom; }  // bottom of the plot (y = 0)
  double y1() const { return top; }
};

class LinearScale {
 public:
  LinearScale(double lo, double hi, double px_lo, double px_hi)
      : lo_(lo), hi_(hi), px_lo_(px_lo), px_hi_(px_hi) {}
  double operator()(double v) const;

 private:
  double lo_, hi_, px_lo_, px_hi_;
};

class LogScale {
 public:
  LogScale(double lo, double hi, double px_lo, double px_hi);  // lo, hi > 0
  double operator()(double v) const;

 private:
  double llo_, lhi_, px_lo_, px_hi_;
};

// A coordinate with one decimal ("12.3").
std::string Num(double v);
// Evenly spaced round ticks (1, 2 or 5 x 10^k steps) from 0 to at least `max`, about `target` many.
std::vector<double> NiceTicks(double max, int target = 5);

struct BarChart {
  std::string id;       // element id of the <svg> (tests look charts up by it)
  std::string title;    // accessible title
  std::string x_label;  // axis captions (plain text, escaped on output)
  std::string y_label;
  std::string unit;  // what a bar counts, for tooltips ("requests")
};

// One <rect class="bar"> per bin (equal widths: the bins are log2-spaced), bin edges under them.
std::string HistogramSvg(const std::vector<HistogramBin>& bins, const BarChart& spec,
                         const Frame& frame = Frame());
// One <rect class="bar"> per labelled value, the labels under the bars (escaped).
std::string LabeledBarsSvg(const std::vector<std::pair<std::string, double>>& bars,
                           const BarChart& spec, const Frame& frame = Frame());
// One <rect class="bar"> per value; value i covers [i * bin_s, (i + 1) * bin_s) seconds.
std::string TimeBarsSvg(const std::vector<double>& values, double bin_s, const BarChart& spec,
                        const Frame& frame = Frame());

}  // namespace ltl::svg
