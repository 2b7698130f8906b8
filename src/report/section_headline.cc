// The headline: the input and its counts, the ceiling, the hit rate at the asked sizes and the
// knee (report.json core keys, the page's cards and size table, the terminal's first lines).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "analyze/kv_memory_view.h"
#include "analyze/main_finding.h"
#include "common/units.h"
#include "report/html_text.h"
#include "report/html_widgets.h"
#include "report/report_section.h"

namespace ltl {
namespace {

using Json = nlohmann::ordered_json;

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

std::string SplitText(const Profile& p, const HitTokens& h, int64_t measured) {
  if (!p.has_conversations || measured <= 0) return "";
  double m = static_cast<double>(measured);
  return fmt::format("   ({} across + {} same-conv)", Percent(h.across / m), Percent(h.same() / m));
}

// Sampled: " ± x" after a hit rate (x in points), else "".
std::string ErrorText(const Profile& p, double points) {
  return p.sampling.active ? fmt::format(" ± {:.1f}", points) : "";
}

// The ceiling's: " exact" when the cluster's shuffle computed it under sampling (no error to
// state; " ± 0.0" would read as an estimate that happened to be tight).
std::string CeilingErrorText(const Profile& p) {
  return p.sampling.unbounded_exact ? " exact" : ErrorText(p, p.sampling.ceiling_error_points);
}

std::string ModelsText(const Profile& p) {
  const auto& models = p.dist.models;
  if (models.empty() || (models.size() == 1 && models.begin()->first.empty())) return "unknown";
  // The most used model, and how many others.
  std::string best;
  uint64_t n = 0;
  for (const auto& [m, c] : models)
    if (c > n) n = c, best = m.empty() ? "unknown" : m;
  if (models.size() == 1) return best;
  return fmt::format("{} (+{} more models)", best, models.size() - 1);
}

std::string HeadlineHtml(const Profile& p) {
  const double ceiling = p.Rate(p.ceiling, p.measured_tokens);
  std::string o = "<section id=\"headline\">\n<div class=\"cards\">\n";
  std::string ceiling_detail =
      p.warmup > 0 ? fmt::format("of input tokens with an unbounded cache, last {} of requests",
                                 Percent(1.0 - p.warmup, 0))
                   : "of input tokens with an unbounded cache, all requests (cold start)";
  if (p.has_conversations && p.ceiling.hit > 0)
    ceiling_detail += fmt::format(" · {} across + {} same-conversation",
                                  Percent(Ratio(p.ceiling.across, p.measured_tokens)),
                                  Percent(Ratio(p.ceiling.same(), p.measured_tokens)));
  o += Card("Ceiling", Percent(ceiling), ceiling_detail, "ceiling");
  if (p.knee.found) {
    const double kt =
        static_cast<double>(p.knee.capacity_blocks) * std::max<uint32_t>(p.block_size, 1);
    o += Card(
        "Knee", CompactBinary(kt) + " tok",
        fmt::format(
            "{}reaches {}; past it each doubling adds &lt; 1 point",
            KvBytesPerToken(p) > 0 ? BinaryBytes(kt * KvBytesPerToken(p)) + " of KV cache · " : "",
            Percent(p.knee.hit_rate)));
  }
  // Same three cases as the terminal's session line.
  const double session_share = Ratio(p.dist.with_session_id, p.requests);
  o += Card("Session identifiers", Percent(session_share),
            session_share == 0 ? "of requests carry one: affinity routing cannot reach this reuse"
            : session_share < 0.5 ? "of requests carry one (affinity routing reaches only these)"
                                  : "of requests carry one (affinity routing can pin most "
                                    "conversations)");
  o += Card(
      "Requests", Commas(p.requests),
      fmt::format("over {} · {:.1f} req/s · input p50 {} tok", FormatDuration(p.dist.duration_s),
                  p.dist.qps, WithCommas(p.dist.input_tokens.p50)));
  o += "</div>\n";
  o += fmt::format("<p class=\"finding-main\">{}</p>\n", HtmlEscape(MainFinding(p)));

  // Hit rate at the sizes asked, one column per policy.
  std::vector<std::string> policies;  // the curve's own policy first, as the rows list it
  for (const CurveRow& r : p.curve)
    if (r.headline && policies.empty()) policies.push_back(r.policy);
  for (const CurveRow& r : p.curve)
    if (std::find(policies.begin(), policies.end(), r.policy) == policies.end())
      policies.push_back(r.policy);
  std::vector<uint64_t> sizes;
  for (const CurveRow& r : p.curve)
    if (std::find(sizes.begin(), sizes.end(), r.capacity_blocks) == sizes.end())
      sizes.push_back(r.capacity_blocks);
  std::sort(sizes.begin(), sizes.end());
  o += "<table class=\"sizes\" id=\"sizes-table\">\n<thead><tr><th>cache size</th>";
  if (KvBytesPerToken(p) > 0) o += "<th class=\"num\">memory</th>";
  for (const std::string& pol : policies)
    o += fmt::format("<th class=\"num\">{} hit rate</th>", HtmlEscape(pol));
  if (p.has_conversations)
    o += "<th class=\"num\">LRU across</th><th class=\"num\">LRU same-conv</th>";
  o += "</tr></thead>\n<tbody>\n";
  auto row_for = [&](const std::string& pol, uint64_t blocks) -> const CurveRow* {
    for (const CurveRow& r : p.curve)
      if (r.policy == pol && r.capacity_blocks == blocks) return &r;
    return nullptr;
  };
  for (uint64_t blocks : sizes) {
    const double tokens = static_cast<double>(blocks) * std::max<uint32_t>(p.block_size, 1);
    o += fmt::format("<tr><td>{} tokens <span class=\"note\">({} blocks)</span></td>",
                     CompactBinary(tokens), Commas(blocks));
    if (KvBytesPerToken(p) > 0)
      o += fmt::format("<td class=\"num\">{}</td>", BinaryBytes(tokens * KvBytesPerToken(p)));
    for (const std::string& pol : policies) {
      const CurveRow* r = row_for(pol, blocks);
      if (!r)
        o += "<td class=\"num\">–</td>";
      else if (r->underfilled)
        o += "<td class=\"num note\">not filled</td>";
      else
        o += fmt::format("<td class=\"num\">{}{}</td>", Percent(p.Rate(r->hit, r->measured_tokens)),
                         ErrorText(p, r->error_points));
    }
    if (p.has_conversations) {
      const CurveRow* r = nullptr;
      for (const CurveRow& c : p.curve)
        if (c.headline && c.capacity_blocks == blocks) r = &c;
      if (r)
        o += fmt::format("<td class=\"num\">{}</td><td class=\"num\">{}</td>",
                         Percent(Ratio(r->hit.across, r->measured_tokens)),
                         Percent(Ratio(r->hit.same(), r->measured_tokens)));
      else
        o += "<td class=\"num\">–</td><td class=\"num\">–</td>";
    }
    o += "</tr>\n";
  }
  o += fmt::format("<tr><td><strong>unbounded</strong> (ceiling)</td>{}",
                   KvBytesPerToken(p) > 0 ? "<td class=\"num\">–</td>" : "");
  for (size_t i = 0; i < policies.size(); ++i)
    o += fmt::format("<td class=\"num\"><strong>{}</strong>{}</td>", Percent(ceiling),
                     CeilingErrorText(p));
  if (p.has_conversations)
    o += fmt::format("<td class=\"num\">{}</td><td class=\"num\">{}</td>",
                     Percent(Ratio(p.ceiling.across, p.measured_tokens)),
                     Percent(Ratio(p.ceiling.same(), p.measured_tokens)));
  o += "</tr>\n</tbody></table>\n";
  o += "</section>\n";
  return o;
}

class HeadlinePart final : public ReportSection {
 public:
  std::string_view name() const override { return "headline"; }
  void AddJson(const Profile& p, Json* root) const override {
    Json& j = *root;
    j["tool"] = Json{{"name", "llmtrafficlens"}, {"version", LTL_VERSION}};
    j["input"] = Json{{"file", p.input_name},
                      {"format", p.format},
                      {"encoding", p.encoding},
                      {"bytes", p.input_bytes},
                      {"counting", p.counting},
                      {"tokenizer", p.tokenizer.empty() ? Json() : Json(p.tokenizer)},
                      {"detection", Json{{"framing", p.framing.empty() ? Json() : Json(p.framing)},
                                         {"source", p.source.empty() ? Json() : Json(p.source)},
                                         {"reason", p.detection_reason}}},
                      {"times", Json{{"clock", p.times.absolute_clock ? "absolute" : "relative"},
                                     {"untimed", p.untimed},
                                     {"implausible", p.times.implausible},
                                     {"first_implausible_line",
                                      p.times.implausible ? Json(p.times.first_line) : Json()}}}};
    auto skipped_json = [](const SkipCounter& c) {
      Json by = Json::object();
      for (const auto& [reason, e] : c.by_reason())
        by[reason] = Json{{"count", e.count}, {"first_lines", e.lines}};
      return by;
    };
    Json files = Json::array();
    for (const InputFileSummary& f : p.files)
      files.push_back(Json{{"file", f.name},
                           {"format", FormatName(f.format)},
                           {"encoding", f.encoding},
                           {"framing", f.framing.empty() ? Json() : Json(f.framing)},
                           {"source", f.source.empty() ? Json() : Json(f.source)},
                           {"bytes", f.bytes},
                           {"rows", f.rows()},
                           {"requests", f.requests},
                           {"skipped", f.skipped.total()},
                           {"skipped_by_reason", skipped_json(f.skipped)},
                           {"filtered_status", f.filtered_status},
                           {"ignored", f.ignored},
                           {"untimed", f.untimed},
                           {"implausible_times", f.implausible}});
    j["input"]["files"] = std::move(files);
    Json skipped = skipped_json(p.skipped);
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
             {"eviction", p.lru == LruEngine::kSglang ? "sglang" : "vllm"},
             {"conversations_known", p.has_conversations}};
    j["ceiling"] = HitJson(p.ceiling, p.measured_tokens, p.has_conversations);
    if (p.sampling.active) j["ceiling"]["error_points"] = p.sampling.ceiling_error_points;
    j["ceiling"]["saturation_blocks"] = p.saturation_blocks;
    j["ceiling"]["saturation_tokens"] = p.saturation_blocks * p.block_size;
    j["cold_ceiling"] = HitJson(p.cold_ceiling, p.cold_measured_tokens, p.has_conversations);
    if (p.sampling.active) j["cold_ceiling"]["error_points"] = p.sampling.cold_ceiling_error_points;
    j["aiperf_cache_hit_rate"] = p.sampling.active ? Json() : Json(p.aiperf_cache_hit_rate);
    Json curve = Json::array();
    for (const CurveRow& r : p.curve) {
      Json e{{"policy", r.policy},
             {"capacity_tokens", r.capacity_tokens},
             {"capacity_blocks", r.capacity_blocks}};
      Json h = HitJson(r.hit, r.measured_tokens, p.has_conversations);
      for (auto& [k, v] : h.items()) e[k] = v;
      if (!r.headline) e["underfilled"] = r.underfilled;
      if (p.sampling.active) e["error_points"] = r.error_points;
      const auto row = static_cast<size_t>(&r - p.curve.data());
      if (!r.engine.empty() && row < p.engine.rows.size()) {  // --engine (section_engine.cc)
        const EnginePoolRow& w = p.engine.rows[row];
        for (const char* k : {"across", "same_conv", "across_tokens", "same_conv_tokens"})
          e.erase(k);
        e["engine"] = r.engine;
        e["waiting_p50_s"] = w.waiting_p50_s;
        e["waiting_p95_s"] = w.waiting_p95_s;
        e["waiting_max_s"] = w.waiting_max_s;
        e["waited_requests"] = w.waited;
        e["evictions"] = w.evictions;
        e["too_large"] = w.too_large;
        e["max_running"] = w.max_running;
      }
      curve.push_back(e);
    }
    j["curve"] = curve;
    Json dense = Json::array();
    for (size_t i = 0; i < p.dense_curve.size(); ++i) {
      const CurvePoint& pt = p.dense_curve[i];
      Json e{{"capacity_blocks", pt.capacity_blocks},
             {"capacity_tokens", pt.capacity_blocks * p.block_size},
             {"hit_rate", Ratio(pt.hit.hit, p.measured_tokens)}};
      if (p.has_conversations) e["across"] = Ratio(pt.hit.across, p.measured_tokens);
      if (i < p.dense_error_points.size()) e["error_points"] = p.dense_error_points[i];
      dense.push_back(e);
    }
    j["dense_curve"] = dense;
    j["capacity_knee"] = Json{{"found", p.knee.found},
                              {"capacity_blocks", p.knee.capacity_blocks},
                              {"capacity_tokens", p.knee.capacity_blocks * p.block_size},
                              {"hit_rate", p.knee.hit_rate},
                              {"min_gain_per_doubling", p.knee.min_gain}};
    Json settings = Json::object();
    settings["template_layout"] = p.template_layout;
    j["settings"] = settings;
  }
  std::string Html(const Profile& p) const override { return HeadlineHtml(p); }
  std::string Terminal(const Profile& p) const override {
    std::string out;
    const Distributions& d = p.dist;
    out += fmt::format("{} requests · {}\n", WithCommas(static_cast<int64_t>(p.requests)),
                       ModelsText(p));
    double stream = d.stream_known ? static_cast<double>(d.stream_true) / d.stream_known : 0.0;
    out += fmt::format("input p50 {} tok · output p50 {} tok · stream {} · {:.1f} req/s\n",
                       WithCommas(d.input_tokens.p50), WithCommas(d.output_tokens.p50),
                       Percent(stream, 0), d.qps);
    if (p.skipped.total() > 0 || p.filtered_status > 0) {
      out += fmt::format("skipped {} rows", WithCommas(static_cast<int64_t>(p.skipped.total())));
      if (p.filtered_status > 0)
        out += fmt::format(" · {} non-2xx rows not replayed",
                           WithCommas(static_cast<int64_t>(p.filtered_status)));
      out += " (see report.json counts)\n";
    }
    out += "\n";
    if (p.warmup > 0)
      out += fmt::format("hit rate by cache size  (steady state: last {} of requests)\n",
                         Percent(1.0 - p.warmup, 0));
    else
      out += "hit rate by cache size  (cold start: all requests)\n";
    for (const CurveRow& r : p.curve) {
      if (!r.headline) continue;
      std::string label = r.capacity_tokens > 0
                              ? fmt::format("{} tokens", TokenSize(r.capacity_tokens))
                              : fmt::format("{} blocks", WithCommas(r.capacity_blocks));
      out += fmt::format("{:>16}  {:>6}{}{}\n", label, Percent(p.Rate(r.hit, r.measured_tokens)),
                         ErrorText(p, r.error_points), SplitText(p, r.hit, r.measured_tokens));
    }
    out += fmt::format("{:>16}  {:>6}{}{}  <- ceiling\n", "unbounded",
                       Percent(p.Rate(p.ceiling, p.measured_tokens)), CeilingErrorText(p),
                       SplitText(p, p.ceiling, p.measured_tokens));
    out += "\n";
    return out;
  }
};

}  // namespace

const ReportSection& HeadlineSection() {
  static const HeadlinePart section;
  return section;
}

}  // namespace ltl
