// Load in time and the engine's KV pool (docs/SEMANTICS.md "Load in time", "Engine KV pool"):
// report.json "load_timing" (where each request's in-flight time came from, when an analysis put
// requests in flight), one terminal line when some logged timings were bad; with --engine, the
// pool at each size (hit rate, waiting p50/p95, evictions, too-large requests) as a page section
// and terminal lines (the curve entries of report.json carry the same figures).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/units.h"
#include "report/html_text.h"
#include "report/report_section.h"

namespace ltl {
namespace {

using Json = nlohmann::ordered_json;

class EnginePart final : public ReportSection {
 public:
  std::string_view name() const override { return "engine"; }
  void AddJson(const Profile& p, Json* root) const override {
    const LoadTiming& t = p.load_timing;
    if (!t.asked) return;
    (*root)["load_timing"] = Json{{"logged", t.logged}, {"bad", t.bad}, {"modelled", t.modelled}};
  }
  std::string_view toc_title() const override { return "Engine KV pool"; }
  std::string Html(const Profile& p) const override {
    const EngineProfile& e = p.engine;
    if (e.rows.empty()) return "";
    std::string o = "<section id=\"engine\">\n<h2>Engine KV pool</h2>\n";
    o += fmt::format(
        "<p>The curve replays {}'s KV pool: running requests' blocks and cached blocks share it, "
        "requests wait in arrival order when it is full (docs/SEMANTICS.md &ldquo;Engine KV "
        "pool&rdquo;). Waiting is over the measured requests.</p>\n",
        HtmlEscape(e.engine));
    o += "<table>\n<tr><th>pool (blocks)</th><th>hit rate</th><th>waited</th><th>waiting p50</th>"
         "<th>waiting p95</th><th>evictions</th><th>too large</th><th>most running</th></tr>\n";
    for (const EnginePoolRow& r : e.rows)
      o += fmt::format(
          "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.3f} s</td><td>{:.3f} s</td><td>{}</td>"
          "<td>{}</td><td>{}</td></tr>\n",
          WithCommas(static_cast<int64_t>(r.capacity_blocks)),
          Percent(r.measured_tokens > 0
                      ? static_cast<double>(r.hit_tokens) / static_cast<double>(r.measured_tokens)
                      : 0.0),
          WithCommas(static_cast<int64_t>(r.waited)), r.waiting_p50_s, r.waiting_p95_s,
          WithCommas(static_cast<int64_t>(r.evictions)),
          WithCommas(static_cast<int64_t>(r.too_large)), r.max_running);
    return o + "</table>\n</section>\n";
  }
  std::string Terminal(const Profile& p) const override {
    const LoadTiming& t = p.load_timing;
    std::string out;
    if (t.asked && t.bad > 0)
      out += fmt::format(
          "load in time: {} logged durations were negative or longer than a day; the load model "
          "timed those requests\n\n",
          t.bad);
    const EngineProfile& e = p.engine;
    if (e.rows.empty()) return out;
    out +=
        fmt::format("engine KV pool ({}): running requests and cached blocks share it\n", e.engine);
    for (const EnginePoolRow& r : e.rows)
      out += fmt::format(
          "  {:>10} blocks  hit {:>6}  waiting p50 {:.2f} s, p95 {:.2f} s  evictions {}{}\n",
          WithCommas(static_cast<int64_t>(r.capacity_blocks)),
          Percent(r.measured_tokens > 0
                      ? static_cast<double>(r.hit_tokens) / static_cast<double>(r.measured_tokens)
                      : 0.0),
          r.waiting_p50_s, r.waiting_p95_s, WithCommas(static_cast<int64_t>(r.evictions)),
          r.too_large > 0 ? fmt::format("  too large {}", r.too_large) : "");
    return out + "\n";
  }
};

}  // namespace

const ReportSection& EngineSection() {
  static const EnginePart section;
  return section;
}

}  // namespace ltl
