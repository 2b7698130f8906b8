// Sampling: when the curve was computed from a spatial sample of the blocks (`--sample-rate`,
// `--sample-max-blocks`), the rate, what was kept, the error of the figures and the figures not
// computed (report.json "sampling", a page section, one terminal line). Absent on exact runs.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/units.h"
#include "report/html_text.h"
#include "report/html_widgets.h"
#include "report/report_section.h"

namespace ltl {
namespace {

using Json = nlohmann::ordered_json;

// "1%", "0.1%", "12.5%": the rate as a short percentage.
std::string RateText(double rate) {
  return fmt::format("{:.3g}%", rate * 100);
}

std::string OmittedText(const SamplingInfo& s) {
  std::string out;
  for (const std::string& o : s.omitted) out += (out.empty() ? "" : ", ") + o;
  return out;
}

class SamplingPart final : public ReportSection {
 public:
  std::string_view name() const override { return "sampling"; }
  std::string_view toc_title() const override { return "Sampling"; }
  void AddJson(const Profile& p, Json* root) const override {
    const SamplingInfo& s = p.sampling;
    if (!s.active) return;
    Json omitted = Json::array();
    for (const std::string& o : s.omitted) omitted.push_back(o);
    (*root)["sampling"] =
        Json{{"method", "shards"},
             {"rate", s.rate},
             {"requested_rate", s.requested_rate},
             {"max_blocks", s.max_blocks},
             {"kept_blocks", s.kept_blocks},
             {"kept_accesses", s.kept_accesses},
             {"error",
              "95% half-width in points of hit rate: t(31) x the standard error of 32 disjoint "
              "block groups' estimates, with the curve's change over the binomial spread of "
              "sampled stack distances in quadrature at bounded capacities"},
             {"max_error_points", s.max_error_points},
             {"unbounded", s.unbounded_exact ? "exact" : "sampled"},
             {"omitted", omitted}};
  }
  std::string Html(const Profile& p) const override {
    const SamplingInfo& s = p.sampling;
    if (!s.active) return "";
    std::string o = "<section id=\"sampling\">\n<h2>Sampling</h2>\n";
    o += fmt::format(
        "<p>Sampled at {}: ± {:.1f} points (95%, the largest over the sizes shown). The curve "
        "replays only the {} distinct blocks (of about {}) whose salted id falls under the "
        "sampling threshold, in a cache scaled by the same rate; hit tokens are scaled back "
        "(SHARDS spatial sampling).",
        RateText(s.rate), s.max_error_points, Commas(s.kept_blocks), Commas(p.distinct_blocks));
    if (s.max_blocks > 0)
      o += fmt::format(" At most {} distinct blocks were kept (asked: {}).", Commas(s.max_blocks),
                       RateText(s.requested_rate));
    if (s.unbounded_exact)
      o += " The unbounded figures (the ceiling, its across/same-conversation split, the cold "
           "ceiling) are exact: computed from every block by the cluster's shuffle by block id.";
    o += "</p>\n";
    if (!s.omitted.empty())
      o += fmt::format("<p>Not computed under sampling: {}.</p>\n", HtmlEscape(OmittedText(s)));
    o += "</section>\n";
    return o;
  }
  std::string Terminal(const Profile& p) const override {
    const SamplingInfo& s = p.sampling;
    if (!s.active) return "";
    std::string out = fmt::format(
        "sampled at {}: ± {:.1f} points (95%) · {} of ~{} distinct blocks kept\n", RateText(s.rate),
        s.max_error_points, WithCommas(static_cast<int64_t>(s.kept_blocks)),
        WithCommas(static_cast<int64_t>(p.distinct_blocks)));
    if (s.unbounded_exact) out += "ceiling and cold ceiling exact (the cluster's shuffle)\n";
    if (!s.omitted.empty()) out += fmt::format("not computed under sampling: {}\n", OmittedText(s));
    return out + "\n";
  }
};

}  // namespace

const ReportSection& SamplingSection() {
  static const SamplingPart section;
  return section;
}

}  // namespace ltl
