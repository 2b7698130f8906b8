// Choosing a router (--workers): report.json "fleet.ranking", the page's ranking tables (one per
// per-worker size) and the terminal's compact table (the largest bounded size) — the policies that
// ran ordered by hit rate, then requests CV, then (--engine) waiting p95, with a TTFT estimate each
// and the pooled bound and ceiling as reference rows; the winner per size; per --router-sweep, the
// best value per size; on the page, each named router's view of a request in one line (the
// terminal's fleet summary, just above, names them). analyze/fleet_ranking.h; docs/FLEET.md
// "Choosing a router".
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "analyze/fleet_ranking.h"
#include "common/units.h"
#include "report/html_text.h"
#include "report/report_section.h"
#include "simulate/routing_policy.h"

namespace ltl {
namespace {

using Json = nlohmann::ordered_json;

std::string Seconds(double s) {
  if (s < 1) return fmt::format("{:.0f} ms", s * 1000);
  return fmt::format("{:.2f} s", s);
}

std::string SizeLabel(uint64_t blocks, uint32_t block_size) {
  if (blocks == kUnboundedCapacity) return "unbounded";
  if (block_size == 0) return fmt::format("{} blk", WithCommas(static_cast<int64_t>(blocks)));
  return TokenSize(blocks * block_size);
}

std::string Value(double v) {
  return fmt::format("{}", v);
}

const char* KindName(FleetRankRow::Kind k) {
  switch (k) {
    case FleetRankRow::Kind::kPolicy:
      return "policy";
    case FleetRankRow::Kind::kPooled:
      return "pooled";
    case FleetRankRow::Kind::kCeiling:
      return "ceiling";
  }
  return "policy";
}

// What the TTFT estimate is, in one sentence.
std::string TtftNote(const FleetRanking& r) {
  return fmt::format(
      "TTFT estimate = mean uncached prefill tokens per measured request / {} tokens/s ({}){}: "
      "an estimate, not a measured TTFT",
      WithCommas(static_cast<int64_t>(r.prefill_rate)), r.prefill_rate_source,
      r.waiting ? " + the median wait for admission (--engine)" : ", no queueing");
}

// "1M: a · 4M: b = c" — the policies ranked first at each size.
std::string Winners(const FleetRanking& r, uint32_t block_size) {
  std::string out;
  for (const FleetRankingAtSize& at : r.sizes) {
    std::string names;
    for (const FleetRankRow& row : at.rows)
      if (row.kind == FleetRankRow::Kind::kPolicy && row.rank == 1)
        names += (names.empty() ? "" : " = ") + row.label;
    if (names.empty()) continue;
    out += fmt::format("{}{}: {}", out.empty() ? "" : " · ",
                       SizeLabel(at.capacity_blocks, block_size), names);
  }
  return out;
}

// "256 at 1M, 0 = 256 at 4M"
std::string SweepBests(const FleetSweepBest& b, const FleetRanking& r, uint32_t block_size) {
  std::string out;
  for (size_t c = 0; c < b.best.size() && c < r.sizes.size(); ++c) {
    std::string values;
    for (double v : b.best[c]) values += (values.empty() ? "" : " = ") + Value(v);
    out += fmt::format("{}{} at {}", out.empty() ? "" : ", ", values,
                       SizeLabel(r.sizes[c].capacity_blocks, block_size));
  }
  return out;
}

Json RankingJson(const FleetResult& f, const FleetRanking& r, uint32_t block_size) {
  Json sizes = Json::array();
  for (size_t c = 0; c < r.sizes.size(); ++c) {
    const FleetRankingAtSize& at = r.sizes[c];
    const bool unbounded = at.capacity_blocks == kUnboundedCapacity;
    Json e;
    e["unbounded"] = unbounded;
    e["per_worker_capacity_blocks"] = unbounded ? Json(nullptr) : Json(at.capacity_blocks);
    e["per_worker_capacity_tokens"] =
        unbounded ? Json(nullptr) : Json(at.capacity_blocks * block_size);
    e["ttft_prefill_rate_tokens_per_s"] = r.prefill_rate;
    e["ttft_prefill_rate_source"] = r.prefill_rate_source;
    Json rows = Json::array();
    for (const FleetRankRow& row : at.rows) {
      const bool policy = row.kind == FleetRankRow::Kind::kPolicy;
      Json q;
      q["kind"] = KindName(row.kind);
      q["rank"] = policy ? Json(row.rank) : Json(nullptr);
      q["label"] = row.label;
      if (policy) {
        const FleetPolicyResult& pr = f.policies[row.policy];
        q["policy"] = std::string(pr.policy->name());
        if (!pr.sweep.router.empty())
          q["sweep"] = Json{{"key", pr.sweep.key}, {"value", pr.sweep.value}};
        if (pr.policy->named()) q["view"] = pr.policy->ViewLine(f.options);
      }
      q["hit_rate"] = row.hit_rate;
      q["hit_tokens"] = row.hit_tokens;
      q["requests_cv"] = row.has_load ? Json(row.requests_cv) : Json(nullptr);
      q["uncached_prefill_tokens_cv"] = row.has_load ? Json(row.uncached_cv) : Json(nullptr);
      q["waiting_p50_s"] = row.has_waiting ? Json(row.waiting_p50_s) : Json(nullptr);
      q["waiting_p95_s"] = row.has_waiting ? Json(row.waiting_p95_s) : Json(nullptr);
      q["uncached_prefill_tokens_per_request"] = row.uncached_tokens_per_request;
      q["ttft_estimate_s"] = row.ttft_estimate_s;
      rows.push_back(q);
    }
    e["rows"] = rows;
    Json bests = Json::array();
    for (const FleetSweepBest& b : r.sweeps)
      bests.push_back(Json{{"router", b.router}, {"key", b.key}, {"best_values", b.best[c]}});
    e["sweep_best"] = bests;
    sizes.push_back(e);
  }
  return sizes;
}

// Each named router once, in the order it first ran, with its one-line view of a request.
std::vector<const RoutingPolicy*> NamedRouters(const FleetResult& f) {
  std::vector<const RoutingPolicy*> named;
  for (const FleetPolicyResult& pr : f.policies)
    if (pr.policy->named() && std::find(named.begin(), named.end(), pr.policy) == named.end())
      named.push_back(pr.policy);
  return named;
}

std::string RankingTerminal(const FleetRanking& r, uint32_t block_size) {
  if (r.sizes.empty()) return "";
  const FleetRankingAtSize& at = r.sizes[r.largest_bounded];
  size_t width = 16;
  for (const FleetRankRow& row : at.rows) width = std::max(width, row.label.size());
  std::string out = fmt::format(
      "router ranking at {} per worker  (hit rate, then requests CV{}; TTFT is an estimate)\n",
      SizeLabel(at.capacity_blocks, block_size), r.waiting ? ", then wait p95" : "");
  out +=
      fmt::format("  {:>3}  {:<{}}{:>8}{:>8}{:>12}", "#", "", width, "hit", "req CV", "prefill CV");
  if (r.waiting) out += fmt::format("{:>10}{:>10}", "wait p50", "wait p95");
  out += fmt::format("{:>11}\n", "TTFT est.");
  for (const FleetRankRow& row : at.rows) {
    const bool policy = row.kind == FleetRankRow::Kind::kPolicy;
    out += fmt::format("  {:>3}  {:<{}}{:>8}", policy ? std::to_string(row.rank) : "", row.label,
                       width, Percent(row.hit_rate));
    out += policy ? fmt::format("{:>8.2f}{:>12.2f}", row.requests_cv, row.uncached_cv)
                  : fmt::format("{:>8}{:>12}", "", "");
    if (r.waiting)
      out += policy ? fmt::format("{:>10}{:>10}", Seconds(row.waiting_p50_s),
                                  Seconds(row.waiting_p95_s))
                    : fmt::format("{:>10}{:>10}", "", "");
    out += fmt::format("{:>11}\n", Seconds(row.ttft_estimate_s));
  }
  out += "  best by size: " + Winners(r, block_size) + "\n";
  for (const FleetSweepBest& b : r.sweeps)
    out += fmt::format("  sweep {}.{}: best {}\n", b.router, b.key, SweepBests(b, r, block_size));
  out += "  " + TtftNote(r) + "\n";
  return out;
}

// One size's ranking table (the policies in rank order, then the pooled bound and the ceiling).
std::string RankingTableHtml(const FleetRanking& r, const FleetRankingAtSize& at,
                             uint32_t block_size) {
  const bool unbounded = at.capacity_blocks == kUnboundedCapacity;
  std::string s = fmt::format(
      "<h3>At {} per worker</h3>\n<div class=\"tablewrap\"><table class=\"fleet-ranking-table\" "
      "data-per-worker-capacity-blocks=\"{}\">\n<thead><tr><th class=\"num\">#</th><th>policy</th>"
      "<th class=\"num\">hit rate</th><th class=\"num\">load CV<br>requests</th><th "
      "class=\"num\">load CV<br>uncached prefill</th>",
      HtmlEscape(SizeLabel(at.capacity_blocks, block_size)),
      unbounded ? std::string("unbounded") : std::to_string(at.capacity_blocks));
  if (r.waiting) s += "<th class=\"num\">wait p50</th><th class=\"num\">wait p95</th>";
  s += "<th class=\"num\">TTFT estimate</th></tr></thead>\n<tbody>\n";
  for (const FleetRankRow& row : at.rows) {
    const bool policy = row.kind == FleetRankRow::Kind::kPolicy;
    s += fmt::format(
        "<tr{}><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td>",
        policy ? "" : " class=\"bound\"", policy ? std::to_string(row.rank) : "",
        policy ? HtmlEscape(row.label) : "<strong>" + HtmlEscape(row.label) + "</strong>",
        Percent(row.hit_rate));
    s += policy ? fmt::format("<td class=\"num\">{:.2f}</td><td class=\"num\">{:.2f}</td>",
                              row.requests_cv, row.uncached_cv)
                : "<td></td><td></td>";
    if (r.waiting)
      s += policy ? fmt::format("<td class=\"num\">{}</td><td class=\"num\">{}</td>",
                                Seconds(row.waiting_p50_s), Seconds(row.waiting_p95_s))
                  : "<td></td><td></td>";
    s += fmt::format("<td class=\"num\">{}</td></tr>\n", Seconds(row.ttft_estimate_s));
  }
  return s + "</tbody></table></div>\n";
}

std::string RankingHtml(const FleetResult& f, const FleetRanking& r, uint32_t block_size) {
  if (r.sizes.empty()) return "";
  std::string s = "<section id=\"fleet-ranking\">\n<h2>Choosing a router</h2>\n";
  s += fmt::format(
      "<p>The routing policies that ran, at each per-worker size, ordered by fleet hit rate, then "
      "by the load CV of requests{}. Rows with the same rank are equal in every criterion. The "
      "pooled bound and the ceiling are references, not routers.</p>\n",
      r.waiting ? ", then by the 95th percentile wait for admission" : "");
  for (const FleetRankingAtSize& at : r.sizes) s += RankingTableHtml(r, at, block_size);
  s += "<p class=\"note\">Best by size: " + HtmlEscape(Winners(r, block_size)) + ". ";
  for (const FleetSweepBest& b : r.sweeps)
    s += HtmlEscape(
        fmt::format("Sweep {}.{}: best {}. ", b.router, b.key, SweepBests(b, r, block_size)));
  s += HtmlEscape(TtftNote(r)) + ".</p>\n";
  // Each named router once, with what it sees of a request.
  const std::vector<const RoutingPolicy*> named = NamedRouters(f);
  if (!named.empty()) {
    s += "<ul class=\"router-views\">";
    for (const RoutingPolicy* p : named)
      s += fmt::format("<li><strong>{}</strong>: {}</li>", HtmlEscape(p->name()),
                       HtmlEscape(p->ViewLine(f.options)));
    s += "</ul>\n";
  }
  return s + "</section>\n";
}

class FleetRankingPart final : public ReportSection {
 public:
  std::string_view name() const override { return "fleet-ranking"; }
  std::string_view toc_title() const override { return "Choosing a router"; }
  void AddJson(const Profile& p, Json* root) const override {
    if (p.fleet && root->contains("fleet"))
      (*root)["fleet"]["ranking"] =
          RankingJson(*p.fleet, RankFleet(*p.fleet, p.tiers.time), p.block_size);
  }
  std::string Html(const Profile& p) const override {
    return p.fleet ? RankingHtml(*p.fleet, RankFleet(*p.fleet, p.tiers.time), p.block_size) : "";
  }
  std::string Terminal(const Profile& p) const override {
    return p.fleet ? RankingTerminal(RankFleet(*p.fleet, p.tiers.time), p.block_size) : "";
  }
};

}  // namespace

const ReportSection& FleetRankingSection() {
  static const FleetRankingPart section;
  return section;
}

}  // namespace ltl
