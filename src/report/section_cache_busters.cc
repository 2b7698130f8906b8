// "Cache busters": where and why prefixes stop matching, and what each cause costs (report.json
// "cache_busters", the page's table and bar chart of lost reuse by cause, the terminal lines under
// the findings). Causes, positions and counts only: the segment names are a fixed vocabulary
// (docs/SEMANTICS.md, "Cache busters").
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "analyze/cache_buster_causes.h"
#include "common/units.h"
#include "report/html_text.h"
#include "report/html_widgets.h"
#include "report/report_section.h"
#include "report/svg_chart.h"

namespace ltl {
namespace {

using Json = nlohmann::ordered_json;

double Share(int64_t a, int64_t b) {
  return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

std::string Position(const CauseCost& c) {
  if (c.segment.empty()) return "-";
  return fmt::format("{}, token {}", c.segment, c.token_offset);
}

Json BustersJson(const CacheBusters& b) {
  Json causes = Json::array();
  for (const CauseCost& c : b.causes) {
    causes.push_back(Json{{"cause", BusterCauseName(c.cause)},
                          {"label", BusterCauseLabel(c.cause)},
                          {"natural", IsNatural(c.cause)},
                          {"requests", c.requests},
                          {"conversations", c.conversations},
                          {"lost_tokens", c.lost_tokens},
                          {"lost_measured_tokens", c.lost_measured_tokens},
                          {"ceiling_points", c.ceiling_points},
                          {"position", Json{{"segment", c.segment},
                                            {"token_offset", c.token_offset},
                                            {"prompt_token", c.prompt_token}}}});
  }
  Json whatif = Json{{"top_cause", b.has_top ? Json(BusterCauseName(b.top)) : Json(nullptr)},
                     {"ceiling", Share(b.ceiling_hit_tokens, b.measured_tokens)},
                     {"ceiling_without_top", Share(b.whatif_hit_tokens, b.measured_tokens)}};
  const SharedBelowBlock& s = b.below_block;
  Json below = Json{{"requests", s.requests},
                    {"measured_requests", s.measured_requests},
                    {"tokens", s.tokens},
                    {"measured_tokens", s.measured_tokens},
                    {"median_tokens", s.median_tokens},
                    {"block_size", s.block_size}};
  return Json{{"requests", b.requests},
              {"compared", b.compared},
              {"breaks", b.breaks},
              {"lost_tokens", b.lost_tokens},
              {"facts_bytes_per_request", b.facts_bytes_per_request},
              {"causes", causes},
              {"shared_below_block", below},
              {"what_if", whatif}};
}

std::string BustersHtml(const CacheBusters& b) {
  std::string o = "<section id=\"cache-busters\">\n<h2>Cache busters</h2>\n";
  o += fmt::format(
      "<p>Of {} requests, {} had an earlier request to compare with and {} stopped matching it "
      "before either prompt ended. Each break is given one cause by the rules in "
      "docs/SEMANTICS.md (&ldquo;Cache busters&rdquo;); lost tokens are what an unbounded cache "
      "would have hit had the prefix continued.</p>\n",
      Commas(b.requests), Commas(b.compared), Commas(b.breaks));
  if (const SharedBelowBlock& s = b.below_block; s.requests > 0)
    o += fmt::format(
        "<p class=\"below-block\">Shared, but shorter than a block: {} requests share no "
        "{}-token block with any earlier request, yet begin with the same prompt segments as one "
        "(median {} tokens, {} tokens in all). A cache of whole blocks hits none of it; a smaller "
        "block size would.</p>\n",
        Commas(s.requests), s.block_size, Commas(s.median_tokens),
        Commas(static_cast<uint64_t>(s.tokens)));
  if (b.causes.empty()) return o + "<p class=\"empty\">No breaks.</p>\n</section>\n";
  o += "<table class=\"busters\">\n<thead><tr><th>cause</th><th>lost tokens</th>"
       "<th>ceiling points</th><th>requests</th><th>conversations</th><th>typical position</th>"
       "</tr></thead>\n<tbody>\n";
  std::vector<std::pair<std::string, double>> bars;
  for (const CauseCost& c : b.causes) {
    o += fmt::format(
        "<tr data-cause=\"{}\"><td>{}{}</td><td>{}</td><td>{:.2f}</td><td>{}</td><td>{}</td>"
        "<td>{}</td></tr>\n",
        BusterCauseName(c.cause), HtmlEscape(BusterCauseLabel(c.cause)),
        IsNatural(c.cause) ? " (natural)" : "", Commas(static_cast<uint64_t>(c.lost_tokens)),
        c.ceiling_points, Commas(c.requests), Commas(c.conversations), HtmlEscape(Position(c)));
    if (!IsNatural(c.cause)) bars.emplace_back(BusterCauseName(c.cause), c.lost_tokens);
  }
  o += "</tbody>\n</table>\n";
  if (!bars.empty()) {
    svg::BarChart spec;
    spec.id = "busters-chart";
    spec.title = "Lost reuse by cause";
    spec.x_label = "cause";
    spec.y_label = "lost tokens";
    spec.unit = "tokens";
    o += svg::LabeledBarsSvg(bars, spec);
  }
  if (b.has_top)
    o += fmt::format(
        "<p class=\"whatif\">Without {}: ceiling {} instead of {} (each such break replaced by "
        "its would-be shared prefix).</p>\n",
        HtmlEscape(BusterCauseLabel(b.top)), Percent(Share(b.whatif_hit_tokens, b.measured_tokens)),
        Percent(Share(b.ceiling_hit_tokens, b.measured_tokens)));
  return o + "</section>\n";
}

class CacheBustersPart final : public ReportSection {
 public:
  std::string_view name() const override { return "cache-busters"; }
  std::string_view toc_title() const override { return "Cache busters"; }
  void AddJson(const Profile& p, Json* root) const override {
    if (p.busters.present) (*root)["cache_busters"] = BustersJson(p.busters);
  }
  std::string Html(const Profile& p) const override {
    return p.busters.present ? BustersHtml(p.busters) : "";
  }
  std::string Terminal(const Profile& p) const override {
    if (!p.busters.present) return "";
    const std::vector<std::string> lines = CacheBusterSentences(p.busters);
    std::string out;
    for (const std::string& s : lines) out += "  - " + s + "\n";
    if (p.busters.has_top)
      out += fmt::format("  - What-if: without {} the ceiling would be {} (now {}).\n",
                         BusterCauseLabel(p.busters.top),
                         Percent(Share(p.busters.whatif_hit_tokens, p.busters.measured_tokens)),
                         Percent(Share(p.busters.ceiling_hit_tokens, p.busters.measured_tokens)));
    return out.empty() ? "" : "\ncache busters\n" + out;
  }
};

}  // namespace

const ReportSection& CacheBustersSection() {
  static const CacheBustersPart section;
  return section;
}

}  // namespace ltl
