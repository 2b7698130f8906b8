// Tests for choosing a router on a hand-built FleetResult: the ranking orders the policies by hit
// rate, then requests CV, then (--engine) waiting p95; rows equal in all share a rank; the pooled
// bound and the ceiling follow as reference rows; the TTFT estimate is the mean uncached prefill
// over the prefill rate plus the median wait; a --router-sweep's best value per size; the section's
// report.json shape, HTML escaping of a label and terminal table. Also --router-sweep parsing and
// the per-entry parameter (PolicyEntryOptions / PolicyEntryLabel), named routers' sweeps (their own
// parameters; a view parameter is refused; a swept router alone still gets its view from ingest)
// and, on the page, a table per size and each named router's view named once in one line.
#include "analyze/fleet_ranking.h"
#include "policy_names.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipeline/fleet_settings.h"
#include "report/html_text.h"
#include "report/report_section.h"
#include "simulate/engine_pool.h"
#include "simulate/routing_policy.h"

namespace ltl {
namespace {

using ltl::testing::Routing;
using Json = nlohmann::ordered_json;

// Hit tokens out of 1,000 measured tokens over 10 measured requests on 2 workers.
FleetPoint Point(uint64_t capacity, int64_t hit, std::vector<uint64_t> requests,
                 double wait_p50 = 0, double wait_p95 = 0) {
  FleetPoint pt;
  pt.capacity_blocks = capacity;
  pt.hit_tokens = hit;
  pt.measured_tokens = 1000;
  pt.requests = std::move(requests);
  pt.uncached_tokens = {1000 - hit, 0};
  pt.waiting_p50_s = wait_p50;
  pt.waiting_p95_s = wait_p95;
  return pt;
}

FleetPolicyResult Entry(const RoutingPolicy* p, std::vector<FleetPoint> points,
                        RouterParamSetting sweep = {}) {
  FleetPolicyResult pr;
  pr.policy = p;
  pr.points = std::move(points);
  pr.sweep = std::move(sweep);
  return pr;
}

FleetResult Base() {
  FleetResult f;
  f.options.workers = 2;
  f.options.capacity_blocks = {64, 1024, kUnboundedCapacity};
  f.options.load.prefill_rate = 1000;
  f.requests = 10;
  f.measured_requests = 10;
  f.measured_tokens = 1000;
  f.ceiling.hit = 700;
  f.pooled = {HitTokens{300, 0}, HitTokens{600, 0}, HitTokens{700, 0}};
  return f;
}

std::vector<std::string> Labels(const FleetRankingAtSize& at) {
  std::vector<std::string> out;
  for (const FleetRankRow& r : at.rows) out.push_back(r.label);
  return out;
}

std::vector<uint32_t> Ranks(const FleetRankingAtSize& at) {
  std::vector<uint32_t> out;
  for (const FleetRankRow& r : at.rows)
    if (r.kind == FleetRankRow::Kind::kPolicy) out.push_back(r.rank);
  return out;
}

TEST(FleetRanking, OrdersByHitRateThenRequestsCvWithReferenceRowsLast) {
  FleetResult f = Base();
  f.policies = {
      Entry(Routing("round-robin"), {Point(64, 100, {5, 5}), Point(1024, 200, {5, 5}),
                                     Point(kUnboundedCapacity, 250, {5, 5})}),
      Entry(Routing("prefix-aware"), {Point(64, 250, {2, 8}), Point(1024, 500, {2, 8}),
                                      Point(kUnboundedCapacity, 600, {2, 8})}),
      // Same hit rate as prefix-aware at 1024, evener requests: ranks before it there.
      Entry(Routing("kv-cost"), {Point(64, 150, {4, 6}), Point(1024, 500, {4, 6}),
                                 Point(kUnboundedCapacity, 600, {2, 8})}),
  };
  const FleetRanking r = RankFleet(f, TierTimeModel{});
  ASSERT_EQ(r.sizes.size(), 3u);
  EXPECT_EQ(r.largest_bounded, 1u);
  EXPECT_FALSE(r.waiting);
  EXPECT_EQ(Labels(r.sizes[0]), (std::vector<std::string>{"prefix-aware", "kv-cost (w=1)",
                                                          "round-robin", "pooled", "ceiling"}));
  EXPECT_EQ(Labels(r.sizes[1]), (std::vector<std::string>{"kv-cost (w=1)", "prefix-aware",
                                                          "round-robin", "pooled", "ceiling"}));
  EXPECT_EQ(Ranks(r.sizes[1]), (std::vector<uint32_t>{1, 2, 3}));
  // Unbounded: prefix-aware and kv-cost equal in hit rate and requests CV share rank 1, in run
  // order.
  EXPECT_EQ(Labels(r.sizes[2])[0], "prefix-aware");
  EXPECT_EQ(Ranks(r.sizes[2]), (std::vector<uint32_t>{1, 1, 3}));
  // Reference rows: hit rates of the pooled cache at that size and of the ceiling; no rank.
  const FleetRankRow& pooled = r.sizes[1].rows[3];
  EXPECT_EQ(pooled.kind, FleetRankRow::Kind::kPooled);
  EXPECT_DOUBLE_EQ(pooled.hit_rate, 0.6);
  EXPECT_EQ(pooled.rank, 0u);
  EXPECT_FALSE(pooled.has_load);
  EXPECT_DOUBLE_EQ(r.sizes[1].rows[4].hit_rate, 0.7);
  // TTFT estimate without --engine: mean uncached tokens per request / prefill rate.
  // kv-cost at 1024: 500 uncached tokens over 10 requests = 50 tokens at 1000 tok/s.
  EXPECT_DOUBLE_EQ(r.sizes[1].rows[0].uncached_tokens_per_request, 50);
  EXPECT_DOUBLE_EQ(r.sizes[1].rows[0].ttft_estimate_s, 0.05);
  EXPECT_DOUBLE_EQ(pooled.ttft_estimate_s, 0.04);  // 400 uncached over 10 requests
  EXPECT_EQ(r.prefill_rate, 1000);
}

TEST(FleetRanking, EngineWaitingBreaksTiesAndEntersTheTtftEstimate) {
  FleetResult f = Base();
  f.options.capacity_blocks = {64};
  f.pooled = {HitTokens{300, 0}};
  f.options.engine = &VllmEngine();
  f.policies = {
      Entry(Routing("round-robin"), {Point(64, 200, {5, 5}, 0.5, 2.0)}),
      Entry(Routing("random"), {Point(64, 200, {5, 5}, 0.5, 1.0)}),
  };
  const FleetRanking r = RankFleet(f, TierTimeModel{});
  EXPECT_TRUE(r.waiting);
  EXPECT_EQ(Labels(r.sizes[0])[0], "random (seed 1)");
  EXPECT_EQ(Ranks(r.sizes[0]), (std::vector<uint32_t>{1, 2}));
  // 800 uncached / 10 requests / 1000 tok/s + the median wait 0.5 s.
  EXPECT_DOUBLE_EQ(r.sizes[0].rows[0].ttft_estimate_s, 0.08 + 0.5);
  EXPECT_FALSE(r.sizes[0].rows[2].has_waiting);  // pooled
}

TEST(FleetRanking, TierTimeModelGivesThePrefillRate) {
  FleetResult f = Base();
  TierTimeModel tm;
  tm.present = true;
  tm.gpu = "H100";
  tm.peak_flops = 1e15;
  tm.mfu = 0.5;
  tm.active_params = 5e9;
  const FleetRanking r = RankFleet(f, tm);
  EXPECT_DOUBLE_EQ(r.prefill_rate, 1e15 * 0.5 / (2 * 5e9));
  EXPECT_NE(r.prefill_rate_source.find("tier time model"), std::string::npos);
}

FleetResult Swept() {
  FleetResult f = Base();
  f.options.capacity_blocks = {64, 1024};
  f.pooled = {HitTokens{300, 0}, HitTokens{600, 0}};
  const RoutingPolicy* v = Routing("vllm-router-prefix");
  f.options.policies = {v, v, v};
  f.options.policy_sweeps = {{},
                             {"vllm-router-prefix", "prefix_min_match_length", 0},
                             {"vllm-router-prefix", "prefix_min_match_length", 256}};
  f.policies = {
      Entry(v, {Point(64, 200, {5, 5}), Point(1024, 400, {5, 5})}),
      Entry(v, {Point(64, 300, {5, 5}), Point(1024, 450, {5, 5})}, f.options.policy_sweeps[1]),
      Entry(v, {Point(64, 250, {5, 5}), Point(1024, 450, {5, 5})}, f.options.policy_sweeps[2]),
  };
  return f;
}

TEST(FleetRanking, SweepBestValuePerSizeWithTies) {
  const FleetRanking r = RankFleet(Swept(), TierTimeModel{});
  ASSERT_EQ(r.sweeps.size(), 1u);
  EXPECT_EQ(r.sweeps[0].key, "prefix_min_match_length");
  EXPECT_EQ(r.sweeps[0].entries, (std::vector<size_t>{1, 2}));
  EXPECT_EQ(r.sweeps[0].best[0], (std::vector<double>{0}));
  EXPECT_EQ(r.sweeps[0].best[1], (std::vector<double>{0, 256}));  // equal in every criterion
  EXPECT_EQ(Labels(r.sizes[0])[0], "vllm-router-prefix (prefix_min_match_length=0)");
  EXPECT_EQ(Labels(r.sizes[0])[1], "vllm-router-prefix (prefix_min_match_length=256)");
}

const ReportSection& RankingSection() {
  for (const ReportSection* s : ReportSections())
    if (s->name() == "fleet-ranking") return *s;
  ADD_FAILURE() << "no fleet-ranking section";
  return *ReportSections().front();
}

TEST(FleetRankingSection, JsonShape) {
  Profile p;
  p.block_size = 16;
  p.fleet = Swept();
  Json root;
  root["fleet"] = Json::object();
  RankingSection().AddJson(p, &root);
  const Json& ranking = root["fleet"]["ranking"];
  ASSERT_TRUE(ranking.is_array());
  ASSERT_EQ(ranking.size(), 2u);
  const Json& at = ranking[1];
  EXPECT_EQ(at["per_worker_capacity_blocks"], 1024);
  EXPECT_EQ(at["per_worker_capacity_tokens"], 1024 * 16);
  EXPECT_EQ(at["rows"].size(), 5u);
  const Json& first = at["rows"][0];
  EXPECT_EQ(first["kind"], "policy");
  EXPECT_EQ(first["rank"], 1);
  EXPECT_EQ(first["policy"], "vllm-router-prefix");
  EXPECT_EQ(first["sweep"]["key"], "prefix_min_match_length");
  EXPECT_EQ(first["sweep"]["value"], 0.0);
  EXPECT_TRUE(first.contains("view"));
  EXPECT_TRUE(first["waiting_p50_s"].is_null());
  EXPECT_TRUE(first["waiting_p95_s"].is_null());
  EXPECT_DOUBLE_EQ(first["ttft_estimate_s"].get<double>(), 0.055);
  EXPECT_FALSE(at["rows"][2].contains("sweep"));  // the --routing entry
  const Json& pooled = at["rows"][3];
  EXPECT_EQ(pooled["kind"], "pooled");
  EXPECT_TRUE(pooled["rank"].is_null());
  EXPECT_TRUE(pooled["requests_cv"].is_null());
  EXPECT_EQ(at["rows"][4]["kind"], "ceiling");
  EXPECT_EQ(at["sweep_best"][0]["best_values"], Json::array({0.0, 256.0}));
  // Without a fleet object (no --workers) the section adds nothing.
  Json empty = Json::object();
  Profile none;
  RankingSection().AddJson(none, &empty);
  EXPECT_TRUE(empty.empty());
}

// A policy whose label needs escaping in HTML.
class OddLabel final : public StaticRouter {
 public:
  std::string_view name() const override { return "odd"; }
  std::string_view summary() const override { return ""; }
  std::string Label(const FleetOptions&) const override { return "a<b & \"c\""; }
  StaticRoutes Route(const Trace&, const FleetOptions&) const override { return {}; }
};

TEST(FleetRankingSection, HtmlEscapesLabels) {
  static const OddLabel odd;
  Profile p;
  p.block_size = 16;
  p.fleet = Base();
  p.fleet->options.capacity_blocks = {64};
  p.fleet->pooled = {HitTokens{300, 0}};
  p.fleet->policies = {Entry(&odd, {Point(64, 200, {5, 5})})};
  const std::string html = RankingSection().Html(p);
  EXPECT_NE(html.find("a&lt;b &amp; &quot;c&quot;"), std::string::npos) << html;
  EXPECT_EQ(html.find("a<b"), std::string::npos);
  EXPECT_NE(html.find("<section id=\"fleet-ranking\">"), std::string::npos);
  EXPECT_EQ(RankingSection().Html(Profile{}), "");
}

TEST(FleetRankingSection, TerminalTableAtTheLargestBoundedSizeAndWinners) {
  Profile p;
  p.block_size = 16;
  p.fleet = Swept();
  const std::string t = RankingSection().Terminal(p);
  EXPECT_NE(t.find("router ranking at 16K per worker"), std::string::npos) << t;
  EXPECT_NE(t.find("best by size: 1K: vllm-router-prefix (prefix_min_match_length=0) · 16K: "
                   "vllm-router-prefix (prefix_min_match_length=0) = vllm-router-prefix "
                   "(prefix_min_match_length=256)"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("sweep vllm-router-prefix.prefix_min_match_length: best 0 at 1K, 0 = 256 at "
                   "16K"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("an estimate"), std::string::npos);
}

TEST(RouterSweep, ParsesValuesDropsDuplicatesAndNamesValidKeys) {
  auto s = ParseRouterSweep("vllm-router-prefix.prefix_min_match_length=0,256,0");
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->size(), 2u);
  EXPECT_EQ((*s)[1].value, 256);
  auto bad_key = ParseRouterSweep("vllm-router-prefix.nope=1,2");
  ASSERT_FALSE(bad_key.ok());
  EXPECT_NE(bad_key.status().message().find("prefix_min_match_length"), std::string::npos);
  auto bad_router = ParseRouterSweep("round-robin.k=1");
  ASSERT_FALSE(bad_router.ok());
  EXPECT_NE(bad_router.status().message().find("vllm-router-prefix"), std::string::npos);
  EXPECT_FALSE(ParseRouterSweep("vllm-router-prefix.prefix_min_match_length=").ok());
  EXPECT_FALSE(ParseRouterSweep("vllm-router-prefix.prefix_min_match_length=1,-2").ok());
}

TEST(RouterSweep, EachEntryRunsItsOwnValueAndSaysItEvenAtTheDefault) {
  const RoutingPolicy* v = Routing("vllm-router-prefix");
  ASSERT_NE(v, nullptr);
  double def = 0;
  for (const RouterParam& k : v->params())
    if (k.key == "prefix_min_match_length") def = k.default_value;
  FleetOptions o;
  o.policies = {v, v};
  o.router_params = {{"vllm-router-prefix", "prefix_min_match_length", 7}};
  o.policy_sweeps = {{}, {"vllm-router-prefix", "prefix_min_match_length", def}};
  const FleetOptions plain = PolicyEntryOptions(o, 0), swept = PolicyEntryOptions(o, 1);
  EXPECT_EQ(RouterParamValue(plain, *v, "prefix_min_match_length"), 7);    // --router-param
  EXPECT_EQ(RouterParamValue(swept, *v, "prefix_min_match_length"), def);  // the sweep wins
  EXPECT_EQ(PolicyEntryLabel(o, *v, o.policy_sweeps[1]),
            fmt::format("vllm-router-prefix (prefix_min_match_length={})", def));
  // No sweep: the label as before.
  FleetOptions none;
  EXPECT_EQ(PolicyEntryLabel(none, *v, {}), "vllm-router-prefix");
}

TEST(RouterSweep, NamedRoutersSweepTheirOwnParameters) {
  struct Case {
    const char* router;
    const char* key;
    const char* values;
    std::vector<double> want;
  };
  for (const Case& c :
       {Case{"sglang-cache-aware", "cache_threshold", "0.3,0.5,0.7", {0.3, 0.5, 0.7}},
        Case{"aibrix-prefix", "pod_running_request_imbalance_abs_count", "4,8,16", {4, 8, 16}},
        Case{"dynamo-kv", "router_temperature", "0,0.5", {0, 0.5}}}) {
    SCOPED_TRACE(c.router);
    const RoutingPolicy* p = Routing(c.router);
    ASSERT_NE(p, nullptr);
    auto s = ParseRouterSweep(fmt::format("{}.{}={}", c.router, c.key, c.values));
    ASSERT_TRUE(s.ok()) << s.status().message();
    ASSERT_EQ(s->size(), c.want.size());
    FleetOptions o;
    o.policies.assign(s->size(), p);
    o.policy_sweeps = *s;
    for (size_t k = 0; k < s->size(); ++k) {
      EXPECT_EQ(RouterParamValue(PolicyEntryOptions(o, k), *p, c.key), c.want[k]);
      EXPECT_NE(PolicyEntryLabel(o, *p, (*s)[k]).find(fmt::format("{}={}", c.key, c.want[k])),
                std::string::npos);
    }
  }
}

TEST(RouterSweep, AViewParameterIsRefusedNamingRouterParam) {
  // aibrix-prefix's block size cuts its view in ingest, once per run.
  auto s = ParseRouterSweep("aibrix-prefix.block_size=4,8");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("--router-param aibrix-prefix.block_size=VALUE"),
            std::string::npos)
      << s.status().message();
  EXPECT_TRUE(ParseRouterSweep("aibrix-prefix.block_number=100,1000").ok());
}

TEST(RouterSweep, ASweptRouterAloneGetsItsViewFromIngest) {
  FleetSettings a;
  a.workers = 4;
  a.routing = "round-robin";
  EXPECT_EQ(FleetNeedsRouterViews(a), 0u);
  EXPECT_EQ(FleetAibrixBlockBytes(a), 0u);
  a.router_sweeps = {"sglang-cache-aware.cache_threshold=0.3,0.5",
                     "aibrix-prefix.pod_running_request_imbalance_abs_count=4,16"};
  EXPECT_EQ(FleetNeedsRouterViews(a), uint32_t{kViewCodePoints | kViewAibrixBlocks});
  EXPECT_EQ(FleetAibrixBlockBytes(a), 4u);
  a.router_params = {"aibrix-prefix.block_size=16"};
  EXPECT_EQ(FleetAibrixBlockBytes(a), 16u);
  EXPECT_TRUE(CheckFleetArgs(a, std::nullopt).ok());
}

size_t Count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(FleetRankingSection, ATablePerSizeAndEachNamedRouterViewOnce) {
  Profile p;
  p.block_size = 16;
  p.fleet = Base();
  p.fleet->options.capacity_blocks = {64, 1024};
  p.fleet->pooled = {HitTokens{300, 0}, HitTokens{600, 0}};
  const RoutingPolicy* sg = Routing("sglang-cache-aware");
  const RoutingPolicy* ab = Routing("aibrix-prefix");
  const RoutingPolicy* dy = Routing("dynamo-kv");
  p.fleet->policies = {
      Entry(Routing("round-robin"), {Point(64, 100, {5, 5}), Point(1024, 200, {5, 5})}),
      Entry(sg, {Point(64, 300, {5, 5}), Point(1024, 450, {5, 5})}),
      Entry(sg, {Point(64, 250, {5, 5}), Point(1024, 450, {5, 5})},
            {"sglang-cache-aware", "cache_threshold", 0.7}),
      Entry(ab, {Point(64, 250, {4, 6}), Point(1024, 400, {4, 6})}),
      Entry(dy, {Point(64, 260, {4, 6}), Point(1024, 410, {4, 6})}),
  };
  const std::string html = RankingSection().Html(p);
  EXPECT_EQ(Count(html, "<table class=\"fleet-ranking-table\""), 2u) << html;
  EXPECT_EQ(Count(html, "data-per-worker-capacity-blocks=\"64\""), 1u);
  EXPECT_EQ(Count(html, "data-per-worker-capacity-blocks=\"1024\""), 1u);
  for (const RoutingPolicy* r : {sg, ab, dy})  // once, however many entries ran it
    EXPECT_EQ(Count(html, fmt::format("<li><strong>{}</strong>: {}</li>", r->name(),
                                      HtmlEscape(r->view()))),
              1u)
        << r->name();
  EXPECT_EQ(Count(html, "<strong>round-robin</strong>"), 0u);  // a generic policy
}

}  // namespace
}  // namespace ltl
