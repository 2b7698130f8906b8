// Traffic over time: the page's requests-per-second chart (its numbers are in
// report.json "distributions").
#include <fmt/format.h>

#include "common/units.h"
#include "report/report_section.h"
#include "report/svg_chart.h"

namespace ltl {
namespace {

std::string QpsHtml(const Profile& p) {
  const auto& d = p.dist;
  std::string o = "<section id=\"qps\">\n<h2>Traffic over time</h2>\n";
  if (d.qps_over_time.empty()) {
    o += "<p class=\"empty\">The requests carry no timestamps spread over time.</p>\n</section>\n";
    return o;
  }
  o += fmt::format(
      "<p class=\"quant\">{:.2f} req/s on average over {} · peak {:.2f} req/s in {} bins</p>\n",
      d.qps, FormatDuration(d.duration_s), d.qps_peak, FormatDuration(d.qps_bin_s));
  svg::Frame frame;
  frame.width = 1000;
  frame.height = 260;
  frame.left = 56;
  svg::BarChart spec{"qps-chart", "Requests per second over time", "time since the first request",
                     "requests per second", "req/s"};
  o += svg::TimeBarsSvg(d.qps_over_time, d.qps_bin_s, spec, frame);
  o += "</section>\n";
  return o;
}

class TrafficPart final : public ReportSection {
 public:
  std::string_view name() const override { return "qps"; }
  std::string_view toc_title() const override { return "Traffic over time"; }
  std::string Html(const Profile& p) const override { return QpsHtml(p); }
};

}  // namespace

const ReportSection& TrafficSection() {
  static const TrafficPart section;
  return section;
}

}  // namespace ltl
