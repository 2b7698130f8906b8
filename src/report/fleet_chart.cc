// Fleet chart and section of report.html (see fleet_chart.h). An unbounded per-worker size is
// drawn at 4 × the largest bounded size (two octaves right of it), labelled "∞".
#include "report/fleet_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/units.h"
#include "models/kv_models.h"
#include "report/html_text.h"
#include "report/svg_chart.h"
#include "simulate/routing_policy.h"

namespace ltl {
namespace {

using svg::Num;

// Line colours per policy (report order), then the pooled reference.
constexpr const char* kPolicyColours[] = {"#7f8c8d", "#a0a8b4", "#f0a23b", "#8e44ad",
                                          "#1f3a93", "#16a085", "#d35400", "#5d6d7e"};
constexpr const char* kPooledColour = "#2e7d32";
constexpr const char* kCeilingColour = "#c0392b";

const char* Colour(const RoutingPolicy* p) {
  const auto& all = RoutingPolicies();
  size_t i = static_cast<size_t>(std::find(all.begin(), all.end(), p) - all.begin());
  return kPolicyColours[i % std::size(kPolicyColours)];
}

// A policy entry's name on the page: a --router-sweep entry shows its value.
std::string EntryName(const FleetPolicyResult& pr, const FleetOptions& o) {
  return pr.sweep.router.empty() ? std::string(pr.policy->name())
                                 : PolicyEntryLabel(o, *pr.policy, pr.sweep);
}

// Whether an earlier entry ran the same policy (a --router-sweep entry): its notes are said once.
bool Repeated(const FleetResult& f, const FleetPolicyResult& pr) {
  for (const FleetPolicyResult& e : f.policies) {
    if (&e == &pr) return false;
    if (e.policy == pr.policy) return true;
  }
  return false;
}

double Rate(int64_t hit, int64_t measured) {
  return measured > 0 ? static_cast<double>(hit) / static_cast<double>(measured) : 0.0;
}

std::string SizeText(uint64_t blocks, uint32_t block_size, const FleetOptions& o) {
  if (blocks == kUnboundedCapacity) return "unbounded";
  const double tokens = static_cast<double>(blocks) * std::max<uint32_t>(block_size, 1);
  std::string s = CompactBinary(tokens) + " tok";
  if (o.kv_bytes_per_token > 0) s += " (" + BinaryBytes(tokens * o.kv_bytes_per_token) + ")";
  return s;
}

// A table header cell's text: the size in tokens, and in KV memory below it when a model is known.
std::string SizeHeader(uint64_t blocks, uint32_t block_size, const FleetOptions& o) {
  if (blocks == kUnboundedCapacity) return "unbounded";
  const double tokens = static_cast<double>(blocks) * std::max<uint32_t>(block_size, 1);
  std::string s = CompactBinary(tokens) + " tok";
  if (o.kv_bytes_per_token > 0) s += "<br>" + BinaryBytes(tokens * o.kv_bytes_per_token);
  return s;
}

// X positions of the per-worker sizes, in tokens; the unbounded size sits one step past the rest.
std::vector<double> XTokens(const FleetOptions& o, uint32_t block_size) {
  const double bs = std::max<uint32_t>(block_size, 1);
  std::vector<double> xs;
  double largest = 0;
  for (uint64_t c : o.capacity_blocks)
    if (c != kUnboundedCapacity) largest = std::max(largest, static_cast<double>(c) * bs);
  for (uint64_t c : o.capacity_blocks)
    xs.push_back(c == kUnboundedCapacity ? (largest > 0 ? largest * 4 : bs * 4)
                                         : static_cast<double>(c) * bs);
  return xs;
}

}  // namespace

std::string FleetChartSvg(const FleetResult& f, uint32_t block_size) {
  const FleetOptions& o = f.options;
  if (o.capacity_blocks.empty()) return "";
  const std::vector<double> xs = XTokens(o, block_size);
  const auto [min_x, max_x] = std::minmax_element(xs.begin(), xs.end());
  const double lo = std::exp2(std::floor(std::log2(std::max(*min_x, 1.0))));
  const double hi = std::exp2(std::ceil(std::log2(std::max(*max_x * 1.5, 2.0))));
  const double ceiling = Rate(f.ceiling.hit, f.measured_tokens);

  svg::Frame fr;
  fr.width = 760;
  fr.height = 360;
  fr.left = 56;
  fr.right = 24;
  fr.top = 20;
  fr.bottom = 48;
  const svg::LogScale x(lo, hi, fr.x0(), fr.x1());
  const double y_max = std::min(1.0, std::max(0.1, std::ceil((ceiling + 0.04) * 10) / 10));
  const svg::LinearScale y(0, y_max, fr.y0(), fr.y1());

  std::string s = fmt::format(
      "<svg id=\"fleet-chart\" class=\"chart\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-labelledby=\"fleet-chart-title\" xmlns=\"http://www.w3.org/2000/svg\">\n"
      "<title id=\"fleet-chart-title\">Fleet hit rate by per-worker cache size, {} workers, one "
      "line per routing policy</title>\n",
      Num(fr.width), Num(fr.height), o.workers);
  const double y_step = y_max <= 0.3 ? 0.05 : 0.1;
  s += "<g class=\"axis y\">\n";
  for (int i = 0; i * y_step <= y_max + 1e-9; ++i) {
    const double v = i * y_step;
    s += fmt::format("<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", Num(fr.x0()),
                     Num(fr.x1()), Num(y(v)), Num(y(v)));
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" dy=\"0.32em\">{:.0f}%</text>\n",
                     Num(fr.x0() - 6), Num(y(v)), v * 100);
  }
  s += fmt::format(
      "<text class=\"caption\" transform=\"translate(14 {}) rotate(-90)\" "
      "text-anchor=\"middle\">fleet hit rate (share of input tokens)</text>\n</g>\n",
      Num((fr.y0() + fr.y1()) / 2));
  // X ticks at the asked sizes (the sizes are what the reader chose to compare).
  s += "<g class=\"axis x\">\n";
  for (size_t c = 0; c < xs.size(); ++c) {
    const bool inf = o.capacity_blocks[c] == kUnboundedCapacity;
    s += fmt::format("<line class=\"grid v\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>",
                     Num(x(xs[c])), Num(x(xs[c])), Num(fr.y0()), Num(fr.y1()));
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", Num(x(xs[c])),
                     Num(fr.y0() + 16), inf ? "∞" : CompactBinary(xs[c]));
  }
  s += fmt::format(
      "<text class=\"caption\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">cache size per worker "
      "(tokens, log scale)</text>\n</g>\n",
      Num((fr.x0() + fr.x1()) / 2), Num(fr.height - 8));
  // Ceiling.
  s += fmt::format(
      "<line class=\"ceiling\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"{}\" "
      "stroke-dasharray=\"6 4\" stroke-width=\"1.5\"/>\n",
      Num(fr.x0()), Num(fr.x1()), Num(y(ceiling)), Num(y(ceiling)), kCeilingColour);
  s += fmt::format(
      "<text class=\"ceiling-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"{}\">ceiling "
      "{}</text>\n",
      Num(fr.x1() - 4), Num(y(ceiling) - 6), kCeilingColour, Percent(ceiling));
  auto polyline = [&](const std::string& cls, const std::string& attrs, const std::string& colour,
                      const std::string& dash, const std::vector<double>& rates) {
    std::string pts;
    for (size_t c = 0; c < rates.size(); ++c) {
      if (c) pts += ' ';
      pts += Num(x(xs[c])) + "," + Num(y(rates[c]));
    }
    std::string out = fmt::format(
        "<polyline class=\"{}\"{} points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
        "stroke-linejoin=\"round\"{}/>\n",
        cls, attrs, pts, colour, dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"");
    for (size_t c = 0; c < rates.size(); ++c)
      out +=
          fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"><title>{}</title></circle>",
                      Num(x(xs[c])), Num(y(rates[c])), colour, Percent(rates[c]));
    return out + "\n";
  };
  for (const FleetPolicyResult& pr : f.policies) {
    std::vector<double> rates;
    for (const FleetPoint& pt : pr.points) rates.push_back(pt.HitRate());
    s += polyline("fleet-series", fmt::format(" data-policy=\"{}\"", HtmlEscape(EntryName(pr, o))),
                  Colour(pr.policy), "", rates);
  }
  // The pooled bound last, dashed on top: policies often come close to it.
  std::vector<double> pooled;
  for (const HitTokens& h : f.pooled) pooled.push_back(Rate(h.hit, f.measured_tokens));
  s += polyline("fleet-pooled", "", kPooledColour, "5 4", pooled);
  s += "</svg>\n";
  return s;
}

std::string FleetSectionHtml(const FleetResult& f, uint32_t block_size, double warmup) {
  const FleetOptions& o = f.options;
  std::string s = fmt::format("<section id=\"fleet\">\n<h2>Fleet of {} workers</h2>\n", o.workers);
  s += fmt::format(
      "<p>Each worker keeps its own LRU cache; a request hits only on the worker its router sends "
      "it to. Hit rates are over the {} (token-weighted). The pooled line is one cache of {} × "
      "the per-worker size; the ceiling is one unbounded cache.</p>\n",
      warmup > 0 ? fmt::format("last {} of requests", Percent(1.0 - warmup, 0))
                 : std::string("all requests"),
      o.workers);
  s += FleetChartSvg(f, block_size);
  s += "<ul class=\"legend\">";
  for (const FleetPolicyResult& pr : f.policies)
    s += fmt::format("<li><span class=\"swatch\" style=\"height:3px;background:{}\"></span>{}</li>",
                     Colour(pr.policy), HtmlEscape(EntryName(pr, o)));
  s += fmt::format(
      "<li><span class=\"swatch\" style=\"height:0;border-top:2px dashed {}\"></span>pooled "
      "({} × size)</li><li><span class=\"swatch line-ceiling\"></span>ceiling</li></ul>\n",
      kPooledColour, o.workers);

  // Table: policy rows, size columns; then the load spread at the largest bounded size.
  size_t last = o.capacity_blocks.empty() ? 0 : o.capacity_blocks.size() - 1;
  while (last > 0 && o.capacity_blocks[last] == kUnboundedCapacity) --last;
  s += "<div class=\"tablewrap\"><table id=\"fleet-table\">\n<thead><tr><th>policy \\ per-worker "
       "size</th>";
  for (uint64_t c : o.capacity_blocks)
    s += fmt::format("<th class=\"num\">{}</th>", SizeHeader(c, block_size, o));
  if (!o.capacity_blocks.empty())
    s += fmt::format(
        "<th class=\"num\" title=\"coefficient of variation across workers at {0}\">load CV<br>"
        "requests</th><th class=\"num\" title=\"coefficient of variation across workers at "
        "{0}\">load CV<br>uncached prefill</th>",
        SizeText(o.capacity_blocks[last], block_size, o));
  s += "</tr></thead>\n<tbody>\n";
  for (const FleetPolicyResult& pr : f.policies) {
    s += fmt::format("<tr><td>{}</td>", HtmlEscape(EntryName(pr, o)));
    for (const FleetPoint& pt : pr.points)
      s += fmt::format("<td class=\"num\">{}</td>", Percent(pt.HitRate()));
    if (!pr.points.empty())
      s += fmt::format("<td class=\"num\">{:.2f}</td><td class=\"num\">{:.2f}</td>",
                       pr.points[last].RequestsCv(), pr.points[last].UncachedCv());
    s += "</tr>\n";
  }
  s += fmt::format("<tr class=\"bound\"><td><strong>pooled</strong> ({} × size)</td>", o.workers);
  for (const HitTokens& h : f.pooled)
    s += fmt::format("<td class=\"num\">{}</td>", Percent(Rate(h.hit, f.measured_tokens)));
  s += "<td></td><td></td></tr>\n";
  s += fmt::format(
      "<tr class=\"bound\"><td><strong>ceiling</strong> (unbounded)</td><td "
      "colspan=\"{}\" "
      "style=\"text-align:center\">{}</td><td></td><td></td></tr>\n</tbody></table></div>\n",
      o.capacity_blocks.size(), Percent(Rate(f.ceiling.hit, f.measured_tokens)));
  // Notes: what the load columns mean, fallbacks and the guard.
  s += "<p class=\"note\">";
  if (!o.capacity_blocks.empty())
    s += fmt::format(
        "Load CV: coefficient of variation (standard deviation / mean) across the {} workers of "
        "the measured requests each received and of their uncached prefill tokens, at {} per "
        "worker; 0 is perfectly even. ",
        o.workers, SizeText(o.capacity_blocks[last], block_size, o));
  for (const FleetPolicyResult& pr : f.policies) {
    if (Repeated(f, pr)) continue;
    if (!pr.policy->fallback_key().empty() && pr.fallback_requests > 0)
      s += fmt::format("{}: {} of {} requests carried no {} and were routed {}. ",
                       pr.policy->name(), WithCommas(static_cast<int64_t>(pr.fallback_requests)),
                       WithCommas(static_cast<int64_t>(f.requests)), pr.policy->fallback_key(),
                       HtmlEscape(pr.policy->fallback_rule()));
    if (pr.policy->named()) {
      s += fmt::format("{} ({}): {}. ", pr.policy->name(), HtmlEscape(pr.policy->source()),
                       HtmlEscape(pr.policy->ViewLine(o)));
      if (pr.policy->text_view() && pr.requests_without_text > 0)
        s += fmt::format(
            "{}: {} requests have no prompt text (hashed trace or shard) and were "
            "routed on their block ids. ",
            pr.policy->name(), WithCommas(static_cast<int64_t>(pr.requests_without_text)));
    }
    if (pr.policy->has_load_guard() && !pr.points.empty())
      s += fmt::format(
          "{}: the load guard (busiest &gt; {} × and &gt; +{} outstanding "
          "requests) rerouted {} requests at {}. ",
          pr.policy->name(), o.balance_rel_threshold, o.balance_abs_threshold,
          WithCommas(static_cast<int64_t>(pr.points[last].guard_triggers)),
          SizeText(o.capacity_blocks[last], block_size, o));
  }
  s += fmt::format(
      "Load model: prefill {} tokens/s per worker{}, decode {} tokens/s per request.</p>\n"
      "</section>\n",
      WithCommas(static_cast<int64_t>(o.load.prefill_rate)),
      o.load.prefill_queue ? " (queued)" : "",
      WithCommas(static_cast<int64_t>(o.load.decode_rate)));
  return s;
}

}  // namespace ltl
