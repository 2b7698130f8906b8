// report.json rendering (see report_json.h). Rates are ratios in [0, 1]; tokens are integers.
#include "report/report_json.h"

#include "report/fleet_json.h"
#include "report/gateway_findings_render.h"
#include "report/kv_cache_json.h"

namespace ltl {
namespace {

using Json = nlohmann::ordered_json;

double Ratio(int64_t a, int64_t b) {
  return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

Json QuantilesJson(const Quantiles& q) {
  return Json{{"count", q.count}, {"p50", q.p50}, {"p90", q.p90},
              {"p99", q.p99},     {"max", q.max}, {"mean", q.mean}};
}

Json HistogramJson(const std::vector<HistogramBin>& bins) {
  Json a = Json::array();
  for (const auto& b : bins) a.push_back(Json{{"lo", b.lo}, {"hi", b.hi}, {"count", b.count}});
  return a;
}

Json HitJson(const HitTokens& h, int64_t measured, bool split) {
  Json j{
      {"hit_rate", Ratio(h.hit, measured)}, {"hit_tokens", h.hit}, {"measured_tokens", measured}};
  if (split) {
    j["across"] = Ratio(h.across, measured);
    j["same_conv"] = Ratio(h.same(), measured);
    j["across_tokens"] = h.across;
    j["same_conv_tokens"] = h.same();
  }
  return j;
}

Json CctraceRatesJson(const CctraceRates& r) {
  return Json{{"requests", r.requests}, {"blocks", r.blocks},         {"hit_blocks", r.hit_blocks},
              {"tokens", r.tokens},     {"hit_tokens", r.hit_tokens}, {"hit_rate", r.hit_rate()}};
}

Json CctraceJson(const CctraceSummary& c) {
  Json convs = Json::array();
  for (const auto& cs : c.conversations)
    convs.push_back(Json{{"id", cs.id},
                         {"segment", cs.segment},
                         {"subagents", cs.subagents},
                         {"parent", CctraceRatesJson(cs.parent)},
                         {"subagent", CctraceRatesJson(cs.subagent)}});
  return Json{
      {"files", c.files},
      {"ignored_files", c.ignored_files},
      {"subagents", c.subagents},
      {"warm_prefix", c.warm_prefix},
      {"warm_blocks", c.warm_blocks},
      {"usage", Json{{"parent", Json{{"input", c.parent_in}, {"output", c.parent_out}}},
                     {"subagent", Json{{"input", c.subagent_in}, {"output", c.subagent_out}}}}},
      {"reference_replay",
       Json{{"parent", CctraceRatesJson(c.parent)}, {"subagent", CctraceRatesJson(c.subagent)}}},
      {"conversations", convs}};
}

Json PrefixRowJson(const PrefixRow& r) {
  Json models = Json::object();
  for (const auto& [m, n] : r.models) models[m.empty() ? "unknown" : m] = n;
  Json j{{"tokens", r.tokens},
         {"blocks", r.blocks},
         {"requests", r.requests},
         {"reusable_tokens", r.reusable_tokens},
         {"share", r.share},
         {"own_tokens", r.own_tokens},
         {"own_share", r.own_share},
         {"first_seen_s", r.first_seen_s},
         {"last_seen_s", r.last_seen_s},
         {"models", models},
         {"with_session_id", r.with_session_id},
         {"session_id_share",
          Ratio(static_cast<int64_t>(r.with_session_id), static_cast<int64_t>(r.requests))}};
  if (!r.text.empty()) j["text"] = r.text;
  return j;
}

Json LeaderboardsJson(const Leaderboards& lb) {
  Json by_count = Json::array(), by_volume = Json::array();
  for (const PrefixRow& r : lb.by_count) by_count.push_back(PrefixRowJson(r));
  for (const PrefixRow& r : lb.by_volume) by_volume.push_back(PrefixRowJson(r));
  return Json{{"reusable_tokens", lb.reusable_tokens},
              {"listed_prefixes", lb.listed_prefixes},
              {"by_count", by_count},
              {"by_volume", by_volume}};
}

}  // namespace

Json ProfileToJson(const Profile& p) {
  Json j;
  j["tool"] = Json{{"name", "llmtrafficlens"}, {"version", LTL_VERSION}};
  j["input"] = Json{
      {"file", p.input_name},   {"format", p.format},
      {"encoding", p.encoding}, {"bytes", p.input_bytes},
      {"counting", p.counting}, {"tokenizer", p.tokenizer.empty() ? Json() : Json(p.tokenizer)}};
  Json skipped = Json::object();
  for (const auto& [reason, e] : p.skipped.by_reason())
    skipped[reason] = Json{{"count", e.count}, {"first_lines", e.lines}};
  j["counts"] = Json{{"rows", p.rows_read},
                     {"requests", p.requests},
                     {"skipped", p.skipped.total()},
                     {"skipped_by_reason", skipped},
                     {"filtered_status", p.filtered_status},
                     {"measured_requests", p.measured_requests},
                     {"distinct_blocks", p.distinct_blocks},
                     {"block_accesses", p.block_accesses}};
  j["replay"] =
      Json{{"block_size", p.block_size},
           {"warmup", p.warmup},
           {"first_measured_request", p.requests - p.measured_requests},
           {"evict_order", p.order == EvictOrder::kTailFirst ? "tail-first" : "head-first"},
           {"conversations_known", p.has_conversations}};
  j["ceiling"] = HitJson(p.ceiling, p.measured_tokens, p.has_conversations);
  j["ceiling"]["saturation_blocks"] = p.saturation_blocks;
  j["ceiling"]["saturation_tokens"] = p.saturation_blocks * p.block_size;
  j["cold_ceiling"] = HitJson(p.cold_ceiling, p.cold_measured_tokens, p.has_conversations);
  j["aiperf_cache_hit_rate"] = p.aiperf_cache_hit_rate;
  Json curve = Json::array();
  for (const CurveRow& r : p.curve) {
    Json e{{"policy", r.policy},
           {"capacity_tokens", r.capacity_tokens},
           {"capacity_blocks", r.capacity_blocks}};
    Json h = HitJson(r.hit, r.measured_tokens, p.has_conversations);
    for (auto& [k, v] : h.items()) e[k] = v;
    if (r.policy != "lru") e["underfilled"] = r.underfilled;
    curve.push_back(e);
  }
  j["curve"] = curve;
  Json dense = Json::array();
  for (const CurvePoint& pt : p.dense_curve) {
    Json e{{"capacity_blocks", pt.capacity_blocks},
           {"capacity_tokens", pt.capacity_blocks * p.block_size},
           {"hit_rate", Ratio(pt.hit.hit, p.measured_tokens)}};
    if (p.has_conversations) e["across"] = Ratio(pt.hit.across, p.measured_tokens);
    dense.push_back(e);
  }
  j["dense_curve"] = dense;
  if (p.fleet) j["fleet"] = FleetToJson(*p.fleet, p.block_size);
  if (p.kv_cache.present) j["kv_cache"] = KvCacheToJson(p);

  const Distributions& d = p.dist;
  Json models = Json::object();
  for (const auto& [m, n] : d.models) models[m.empty() ? "unknown" : m] = n;
  Json status = Json::object();
  for (const auto& [c, n] : d.status_codes) status[c == 0 ? "unknown" : std::to_string(c)] = n;
  j["distributions"] =
      Json{{"input_tokens", QuantilesJson(d.input_tokens)},
           {"input_tokens_histogram", HistogramJson(d.input_hist)},
           {"output_tokens", QuantilesJson(d.output_tokens)},
           {"output_tokens_histogram", HistogramJson(d.output_hist)},
           {"stream", Json{{"known", d.stream_known},
                           {"streaming", d.stream_true},
                           {"share", Ratio(static_cast<int64_t>(d.stream_true),
                                           static_cast<int64_t>(d.stream_known))}}},
           {"models", models},
           {"duration_s", d.duration_s},
           {"qps", d.qps},
           {"qps_over_time", Json{{"bin_s", d.qps_bin_s}, {"qps", d.qps_over_time}}},
           {"inter_arrival_ms", QuantilesJson(d.inter_arrival_ms)},
           {"status_codes", status},
           {"conversations", d.conversations},
           {"requests_per_conversation", QuantilesJson(d.requests_per_conversation)},
           {"turns", QuantilesJson(d.turns)}};
  Json& dj = j["distributions"];
  dj["qps_over_time"]["peak_qps"] = d.qps_peak;
  dj["inter_arrival_ms_histogram"] = HistogramJson(d.inter_arrival_hist);
  dj["requests_per_conversation_histogram"] = HistogramJson(d.requests_per_conversation_hist);
  dj["turns_histogram"] = HistogramJson(d.turns_hist);
  Json fields = Json::object();
  for (const auto& [f, n] : d.session_fields) fields[f] = n;
  j["session_ids"] = Json{
      {"requests", d.with_session_id},
      {"share", Ratio(static_cast<int64_t>(d.with_session_id), static_cast<int64_t>(p.requests))},
      {"fields", fields}};
  j["prefixes"] = LeaderboardsJson(p.leaderboards);
  j["capacity_knee"] = Json{{"found", p.knee.found},
                            {"capacity_blocks", p.knee.capacity_blocks},
                            {"capacity_tokens", p.knee.capacity_blocks * p.block_size},
                            {"hit_rate", p.knee.hit_rate},
                            {"min_gain_per_doubling", p.knee.min_gain}};
  Json settings = Json::object();
  settings["template_layout"] = p.template_layout;
  j["settings"] = settings;
  j["findings"] = p.findings;
  if (p.cctrace.present) j["cctrace"] = CctraceJson(p.cctrace);
  if (p.gateway.present) j["gateway"] = GatewayFindingsJson(p.gateway);
  return j;
}

std::string RenderReportJson(const Profile& p) {
  return ProfileToJson(p).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
         "\n";
}

}  // namespace ltl
