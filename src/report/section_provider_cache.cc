// "Provider cache": what the hosted provider's own prompt cache reads and writes on this log as its
// documentation describes it, beside what the log observed (report.json "provider_cache", the
// page's chart of predicted vs observed over time, the waterfall from the ideal cache down to the
// observed, the money table, and three terminal lines under the provider line). Counts, rates and
// model names only (analyze/provider_cache_section.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "analyze/provider_cache_section.h"
#include "common/units.h"
#include "report/html_text.h"
#include "report/html_widgets.h"
#include "report/report_section.h"

namespace ltl {
namespace {

using Json = nlohmann::ordered_json;

double Rate(int64_t a, int64_t b) {
  return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

std::string Dollars(double d) {
  return d >= 100 ? fmt::format("${}", WithCommas(std::llround(d))) : fmt::format("${:.2f}", d);
}

Json SectionJson(const ProviderCacheSection& s) {
  Json gap = Json::array();
  for (const ProviderGapStep& g : s.gap)
    gap.push_back(
        Json{{"cause", g.cause}, {"label", g.label}, {"tokens", g.tokens}, {"points", g.points}});
  Json cost = Json::array();
  for (const ProviderCostScenario& c : s.cost)
    cost.push_back(Json{{"scenario", c.scenario},
                        {"label", c.label},
                        {"dollars", c.dollars},
                        {"per_day", c.per_day > 0 ? Json(c.per_day) : Json(nullptr)},
                        {"per_million_requests", c.per_million_requests},
                        {"estimated", c.estimated},
                        {"price_date", s.price_date}});
  Json idle = Json::array();
  for (const auto& [label, n] : s.ttl_idle_gaps)
    idle.push_back(Json{{"gap", label}, {"requests", n}});
  Json bad = Json::array();
  for (const ProviderBadObservation& b : s.bad_observations)
    bad.push_back(Json{{"reason", b.reason},
                       {"rows", b.rows},
                       {"first", Json{{"file", b.first_file}, {"row", b.first_row}}}});
  Json over = Json::array();
  for (const ProviderTimeBucket& b : s.over_time)
    over.push_back(Json{{"start", b.start_s},
                        {"input_tokens", b.input_tokens},
                        {"predicted_read_tokens", b.predicted_read},
                        {"observed_input_tokens", b.observed_input_tokens},
                        {"observed_read_tokens", b.observed_read}});
  const bool observed = s.observed_requests > 0;
  return Json{{"provider", s.provider},
              {"modelled", s.modelled},
              {"chosen_by", s.chosen_by},
              {"source", s.source},
              {"note", s.note},
              {"requests", s.requests},
              {"other_provider_requests", s.other_provider_requests},
              {"input_tokens", s.input_tokens},
              {"ideal_read_tokens", s.ideal_read_tokens},
              {"rule_free_read_tokens", s.rule_free_read_tokens},
              {"predicted_read_tokens", s.predicted_read_tokens},
              {"predicted_write_tokens", s.predicted_write_tokens},
              {"predicted_write_1h_tokens", s.predicted_write_1h_tokens},
              {"observed_requests", s.observed_requests},
              {"observed_read_tokens", observed ? Json(s.observed_read_tokens) : Json(nullptr)},
              {"observed_write_tokens",
               s.observed_write_requests > 0 ? Json(s.observed_write_tokens) : Json(nullptr)},
              {"predicted_read_tokens_on_observed", s.predicted_read_on_observed},
              {"agreement", observed ? Json(s.agreement) : Json(nullptr)},
              {"read_write_agreement",
               s.observed_write_requests > 0 ? Json(s.read_write_agreement) : Json(nullptr)},
              {"gap", gap},
              {"ttl_idle_gaps", idle},
              {"bad_observations", Json{{"rows", s.bad_observation_rows}, {"reasons", bad}}},
              {"cost", cost},
              {"prices", Json{{"date", s.price_date},
                              {"source", s.price_source},
                              {"priced_requests", s.priced_requests},
                              {"unpriced_models", s.unpriced_models}}},
              {"over_time", over}};
}

// Predicted vs observed cache-read rate per time bucket: two polylines.
std::string OverTimeSvg(const ProviderCacheSection& s) {
  const double w = 520, h = 230, l = 50, r = 14, t = 14, b = 42;
  const size_t n = s.over_time.size();
  if (n < 2) return "";
  auto x = [&](size_t i) {
    return l + (w - l - r) * static_cast<double>(i) / static_cast<double>(n - 1);
  };
  auto y = [&](double rate) { return h - b - (h - b - t) * std::clamp(rate, 0.0, 1.0); };
  std::string pred, obs;
  for (size_t i = 0; i < n; ++i) {
    const ProviderTimeBucket& k = s.over_time[i];
    if (k.input_tokens > 0)
      pred += fmt::format("{:.1f},{:.1f} ", x(i), y(Rate(k.predicted_read, k.input_tokens)));
    if (k.observed_input_tokens > 0)
      obs += fmt::format("{:.1f},{:.1f} ", x(i), y(Rate(k.observed_read, k.observed_input_tokens)));
  }
  std::string o = fmt::format(
      "<svg id=\"provider-over-time\" class=\"chart\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"cached share of input tokens over time\"><title>Cached share of input tokens "
      "over time: predicted vs observed</title>\n",
      w, h);
  for (int q = 0; q <= 4; ++q)
    o += fmt::format(
        "<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/><text "
        "class=\"tick\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}%</text>\n",
        l, w - r, y(q / 4.0), y(q / 4.0), l - 4, y(q / 4.0) + 4, q * 25);
  o += fmt::format(
      "<polyline class=\"series predicted\" fill=\"none\" stroke=\"#1f77b4\" "
      "stroke-width=\"2\" points=\"{}\"/>\n",
      pred);
  if (!obs.empty())
    o += fmt::format(
        "<polyline class=\"series observed\" fill=\"none\" stroke=\"#d62728\" "
        "stroke-width=\"2\" stroke-dasharray=\"5 3\" points=\"{}\"/>\n",
        obs);
  o += fmt::format(
      "<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">time (48 equal "
      "intervals of the log) — solid: predicted, dashed: observed</text>\n</svg>\n",
      (l + w - r) / 2, h - 8);
  return o;
}

// The waterfall: the ideal (with busters above it) down through each cause to the prediction and
// the observed, as floating bars in points of the input tokens.
std::string WaterfallSvg(const ProviderCacheSection& s) {
  struct Bar {
    std::string label;
    double from, to;
    bool total;
  };
  std::vector<Bar> bars;
  const double in = s.input_tokens > 0 ? static_cast<double>(s.input_tokens) : 1.0;
  double level = 100.0 * static_cast<double>(s.ideal_read_tokens) / in;
  double busters = 0;
  for (const ProviderGapStep& g : s.gap)
    if (g.cause == "busters") busters = g.points;
  if (busters > 0) {
    bars.push_back({"without busters", 0, level + busters, true});
    bars.push_back({"busters", level + busters, level, false});
  }
  bars.push_back({"ideal", 0, level, true});
  for (const ProviderGapStep& g : s.gap) {
    if (g.cause == "busters" || g.cause == "beyond_rules") continue;
    bars.push_back({g.cause, level, level - g.points, false});
    level -= g.points;
  }
  bars.push_back({"predicted", 0, level, true});
  if (s.observed_requests > 0) {
    const double pred_obs = 100.0 * Rate(s.predicted_read_on_observed, s.observed_input_tokens);
    const double obs = 100.0 * Rate(s.observed_read_tokens, s.observed_input_tokens);
    bars.push_back({"predicted (rows with usage)", 0, pred_obs, true});
    bars.push_back({"beyond rules", pred_obs, obs, false});
    bars.push_back({"observed", 0, obs, true});
  }
  double top = 1;
  for (const Bar& b : bars) top = std::max({top, b.from, b.to});
  const double w = 560, h = 260, l = 50, r = 14, t = 14, bt = 90;
  const double slot = (w - l - r) / static_cast<double>(bars.size());
  auto y = [&](double v) { return h - bt - (h - bt - t) * v / top; };
  std::string o = fmt::format(
      "<svg id=\"provider-waterfall\" class=\"chart\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"gap by cause\"><title>From the ideal cache to the observed, by cause "
      "(points of input tokens)</title>\n",
      w, h);
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const double lo = std::min(b.from, b.to), hi = std::max(b.from, b.to);
    const double x = l + slot * static_cast<double>(i) + slot * 0.15;
    o += fmt::format(
        "<rect class=\"bar {}\" data-cause=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
        "height=\"{:.1f}\" fill=\"{}\"><title>{}: {:.1f} points</title></rect>\n",
        b.total ? "total" : "step", HtmlEscape(b.label), x, y(hi), slot * 0.7,
        std::max(0.5, y(lo) - y(hi)), b.total ? "#1f77b4" : (b.to < b.from ? "#d62728" : "#2ca02c"),
        HtmlEscape(b.label), b.total ? hi : b.to - b.from);
    o += fmt::format(
        "<text class=\"label\" transform=\"translate({:.1f},{:.1f}) rotate(-40)\" "
        "text-anchor=\"end\">{}</text>\n",
        x + slot * 0.35, h - bt + 14, HtmlEscape(b.label));
  }
  return o + "</svg>\n";
}

std::string SectionHtml(const ProviderCacheSection& s) {
  std::string o = "<section id=\"provider-cache\">\n<h2>Provider prompt cache</h2>\n";
  if (!s.modelled)
    return o +
           fmt::format("<p>{}: {}.</p>\n</section>\n", HtmlEscape(s.provider), HtmlEscape(s.note));
  std::string note;
  if (!s.note.empty()) note = fmt::format(" {}.", HtmlEscape(s.note));
  o += fmt::format(
      "<p>The <b>{}</b> prompt cache (chosen by {}) replayed over {} requests from an empty "
      "cache, as its documentation describes it: {}. Source: {}.{}</p>\n",
      HtmlEscape(s.provider), HtmlEscape(s.chosen_by), Commas(s.requests), HtmlEscape(s.summary),
      HtmlEscape(s.source), note);
  o += "<table class=\"provider\">\n<tbody>\n";
  auto row = [&](const std::string& k, const std::string& v) {
    o += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", k, v);
  };
  row("input tokens", Commas(static_cast<uint64_t>(s.input_tokens)));
  row("ideal unbounded cache reads", Percent(Rate(s.ideal_read_tokens, s.input_tokens)));
  row("predicted reads / writes",
      fmt::format("{} / {}", Percent(Rate(s.predicted_read_tokens, s.input_tokens)),
                  Percent(Rate(s.predicted_write_tokens, s.input_tokens))));
  if (s.observed_requests > 0) {
    row("observed reads (rows with usage)",
        fmt::format("{} vs {} predicted on the same {} requests",
                    Percent(Rate(s.observed_read_tokens, s.observed_input_tokens)),
                    Percent(Rate(s.predicted_read_on_observed, s.observed_input_tokens)),
                    Commas(s.observed_requests)));
    row("requests agreeing (max(1%, 16 tokens))", Percent(s.agreement));
  }
  if (s.bad_observation_rows > 0)
    row("bad observations (replayed without)", Commas(s.bad_observation_rows));
  o += "</tbody>\n</table>\n";
  o += OverTimeSvg(s);
  o += "<h3>Gap by cause</h3>\n<table class=\"provider-gap\">\n<thead><tr><th>cause</th>"
       "<th>tokens</th><th>points</th></tr></thead>\n<tbody>\n";
  for (const ProviderGapStep& g : s.gap)
    o += fmt::format("<tr data-cause=\"{}\"><td>{}</td><td>{}</td><td>{:.2f}</td></tr>\n",
                     HtmlEscape(g.cause), HtmlEscape(g.label), WithCommas(g.tokens), g.points);
  o += "</tbody>\n</table>\n" + WaterfallSvg(s);
  if (!s.ttl_idle_gaps.empty()) {
    o += "<p>Idle gaps before the requests that lost reads to TTL expiry: ";
    for (size_t i = 0; i < s.ttl_idle_gaps.size(); ++i)
      o += fmt::format("{}{} {}", i ? ", " : "", HtmlEscape(s.ttl_idle_gaps[i].first),
                       Commas(s.ttl_idle_gaps[i].second));
    o += ".</p>\n";
  }
  if (!s.cost.empty()) {
    o += fmt::format("<h3>Money</h3>\n<p>Prices of {} ({}), {} priced requests.</p>\n",
                     HtmlEscape(s.price_source), HtmlEscape(s.price_date),
                     Commas(s.priced_requests));
    o += "<table class=\"provider-cost\">\n<thead><tr><th>scenario</th><th>dollars</th>"
         "<th>per day</th><th>per million requests</th></tr></thead>\n<tbody>\n";
    for (const ProviderCostScenario& c : s.cost)
      o += fmt::format(
          "<tr data-scenario=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
          c.scenario, HtmlEscape(c.label), Dollars(c.dollars),
          c.per_day > 0 ? Dollars(c.per_day) : "-", Dollars(c.per_million_requests));
    o += "</tbody>\n</table>\n";
  }
  if (!s.unpriced_models.empty()) {
    std::string list;
    for (const std::string& m : s.unpriced_models) list += (list.empty() ? "" : ", ") + m;
    o += fmt::format("<p>No price for: {} (add them with --prices).</p>\n", HtmlEscape(list));
  }
  return o + "</section>\n";
}

std::string SectionTerminal(const ProviderCacheSection& s) {
  if (!s.modelled) return fmt::format("provider model       {}: {}\n", s.provider, s.note);
  std::string out =
      fmt::format("provider model       {}: predicted {} read, {} written of input tokens",
                  s.provider, Percent(Rate(s.predicted_read_tokens, s.input_tokens)),
                  Percent(Rate(s.predicted_write_tokens, s.input_tokens)));
  if (s.observed_requests > 0)
    out += fmt::format("; {} of {} requests with usage agree", Percent(s.agreement, 0),
                       WithCommas(static_cast<int64_t>(s.observed_requests)));
  out += "\n";
  std::string gap = fmt::format("gap by cause         ideal {}",
                                Percent(Rate(s.ideal_read_tokens, s.input_tokens)));
  std::vector<const ProviderGapStep*> steps;
  for (const ProviderGapStep& g : s.gap)
    if (g.cause != "busters" && g.cause != "beyond_rules" && std::abs(g.points) >= 0.05)
      steps.push_back(&g);
  std::sort(steps.begin(), steps.end(),
            [](const auto* a, const auto* b) { return a->points > b->points; });
  for (size_t i = 0; i < steps.size() && i < 4; ++i)
    gap += fmt::format(", {} {:+.1f}", steps[i]->label, -steps[i]->points);
  gap += fmt::format(" -> predicted {}", Percent(Rate(s.predicted_read_tokens, s.input_tokens)));
  for (const ProviderGapStep& g : s.gap)
    if (g.cause == "beyond_rules")
      gap += fmt::format("; beyond the rules {:+.1f} -> observed {}", -g.points,
                         Percent(Rate(s.observed_read_tokens, s.observed_input_tokens)));
  out += gap + "\n";
  if (!s.cost.empty()) {
    std::string money = "bill                 ";
    for (size_t i = 0; i < s.cost.size(); ++i)
      money +=
          fmt::format("{}{} {}", i ? ", " : "", s.cost[i].scenario, Dollars(s.cost[i].dollars));
    money += fmt::format("  (prices of {})\n", s.price_date);
    out += money;
  } else {
    out += "bill                 no price for these models (--prices adds them)\n";
  }
  return out;
}

class ProviderCachePart final : public ReportSection {
 public:
  std::string_view name() const override { return "provider-cache"; }
  std::string_view toc_title() const override { return "Provider prompt cache"; }
  void AddJson(const Profile& p, Json* root) const override {
    if (p.provider_cache.present) (*root)["provider_cache"] = SectionJson(p.provider_cache);
  }
  std::string Html(const Profile& p) const override {
    return p.provider_cache.present ? SectionHtml(p.provider_cache) : "";
  }
  std::string Terminal(const Profile& p) const override {
    return p.provider_cache.present ? SectionTerminal(p.provider_cache) : "";
  }
};

}  // namespace

const ReportSection& ProviderPromptCacheSection() {
  static const ProviderCachePart section;
  return section;
}

}  // namespace ltl
