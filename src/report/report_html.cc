// report.html rendering (see report_html.h). Sections are one function each, in page order.
#include "report/report_html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "analyze/kv_memory_view.h"
#include "analyze/main_finding.h"
#include "common/units.h"
#include "models/kv_models.h"
#include "report/capacity_chart.h"
#include "report/fleet_chart.h"
#include "report/html_text.h"
#include "report/report_css.h"
#include "report/svg_chart.h"

namespace ltl {
namespace {

double Ratio(uint64_t a, uint64_t b) {
  return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}
std::string Commas(uint64_t v) {
  return WithCommas(static_cast<int64_t>(v));
}

std::string Card(const std::string& label, const std::string& value, const std::string& detail,
                 const char* value_class = "") {
  return fmt::format(
      "<div class=\"card\"><div class=\"label\">{}</div><div class=\"value {}\">{}</div>"
      "<div class=\"detail\">{}</div></div>\n",
      label, value_class, value, detail);
}

std::string ShareCell(double share) {
  const double w = std::clamp(share * 100.0, 0.0, 100.0);
  return fmt::format(
      "<td class=\"sharecell\"><span class=\"sharebar\"><span style=\"width:{:.1f}%\"></span>"
      "</span>{}</td>",
      w, Percent(share));
}

std::string Header(const Profile& p) {
  std::string o = "<header class=\"top\">\n<h1>Prefix-cache profile</h1>\n";
  o += fmt::format(
      "<div class=\"sub\"><span class=\"file\">{}</span> · {} · {} requests · {} · "
      "llmtrafficlens {}</div>\n",
      HtmlEscape(p.input_name), HtmlEscape(p.format), Commas(p.requests),
      FormatDuration(p.dist.duration_s), LTL_VERSION);
  o += "<nav class=\"toc\"><a href=\"#capacity\">Capacity curve</a>";
  if (p.fleet) o += "<a href=\"#fleet\">Fleet</a>";
  o += "<a href=\"#prefixes\">Top "
       "prefixes</a><a href=\"#distributions\">Distributions</a><a href=\"#qps\">Traffic over "
       "time</a><a href=\"#findings\">Findings</a><a href=\"#skipped\">Skipped rows</a><a "
       "href=\"#method\">Method</a></nav>\n</header>\n";
  return o;
}

// --policies / --model: every policy at every budget, with the ideal prefill speed-up.
std::string KvTable(const Profile& p) {
  const KvCacheSection& kv = p.kv_cache;
  if (!kv.present || kv.rows.empty()) return "";
  std::vector<uint64_t> sizes;
  for (const CurveRow& r : kv.rows)
    if (std::find(sizes.begin(), sizes.end(), r.capacity_blocks) == sizes.end())
      sizes.push_back(r.capacity_blocks);
  std::sort(sizes.begin(), sizes.end());
  std::string o = "<h3>Eviction policies side by side</h3>\n";
  if (kv.has_memory)
    o += fmt::format(
        "<p class=\"note\">{}: {} per token. (Nx) is the ideal prefill speed-up "
        "1 / (1 − hit rate); “not filled” budgets never came under memory pressure "
        "before the measured window.</p>\n",
        HtmlEscape(kv.memory.model), BinaryBytes(kv.memory.bytes_per_token()));
  o += "<table id=\"policies-table\"><thead><tr><th>budget</th><th class=\"num\">blocks</th>";
  for (const std::string& pol : kv.policies)
    o += fmt::format("<th class=\"num\">{}</th>", HtmlEscape(pol));
  o += "</tr></thead><tbody>\n";
  for (uint64_t blocks : sizes) {
    const CurveRow* any = nullptr;
    for (const CurveRow& r : kv.rows)
      if (r.capacity_blocks == blocks) any = &r;
    const std::string budget =
        any && any->capacity_gib > 0
            ? (any->capacity_gib == std::floor(any->capacity_gib)
                   ? Commas(static_cast<uint64_t>(any->capacity_gib)) + " GiB"  // as the terminal
                   : fmt::format("{:g} GiB", any->capacity_gib))
            : CompactBinary(static_cast<double>(blocks) * std::max<uint32_t>(p.block_size, 1)) +
                  " tokens";
    o += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td>", budget, Commas(blocks));
    for (const std::string& pol : kv.policies) {
      const CurveRow* r = nullptr;
      for (const CurveRow& c : kv.rows)
        if (c.policy == pol && c.capacity_blocks == blocks) r = &c;
      if (!r) {
        o += "<td class=\"num\">–</td>";
      } else if (r->underfilled) {
        o += "<td class=\"num note\">not filled</td>";
      } else {
        const double rate = p.Rate(r->hit, r->measured_tokens);
        o += fmt::format("<td class=\"num\">{} <span class=\"note\">({:.1f}x)</span></td>",
                         Percent(rate), rate < 1 ? 1.0 / (1.0 - rate) : 0.0);
      }
    }
    o += "</tr>\n";
  }
  o += "</tbody></table>\n";
  return o;
}

std::string Headline(const Profile& p) {
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
  std::vector<std::string> policies = {"lru"};
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
        o += fmt::format("<td class=\"num\">{}</td>", Percent(p.Rate(r->hit, r->measured_tokens)));
    }
    if (p.has_conversations) {
      const CurveRow* r = row_for("lru", blocks);
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
    o += fmt::format("<td class=\"num\"><strong>{}</strong></td>", Percent(ceiling));
  if (p.has_conversations)
    o += fmt::format("<td class=\"num\">{}</td><td class=\"num\">{}</td>",
                     Percent(Ratio(p.ceiling.across, p.measured_tokens)),
                     Percent(Ratio(p.ceiling.same(), p.measured_tokens)));
  o += "</tr>\n</tbody></table>\n";
  o += KvTable(p);
  o += "</section>\n";
  return o;
}

std::string Capacity(const Profile& p) {
  std::string o = "<section id=\"capacity\">\n<h2>Capacity curve</h2>\n";
  o += "<p>Hit rate (share of input tokens served from cache) at every cache size, replaying the "
       "requests in time order against one LRU block cache. Where the curve flattens, more memory "
       "stops paying.";
  if (p.has_conversations)
    o += " The shaded areas split each hit by what could supply it: text shared with other "
         "conversations (templates, system prompts, tools) or an earlier turn of the same "
         "conversation.";
  o += "</p>\n";
  o += CapacityChartHtml(p);
  o += "<p class=\"note\">One global cache: a single worker, or perfect prefix-aware routing. With "
       "N workers behind hash routing each sees a partition; read the curve as fleet-level "
       "guidance.</p>\n</section>\n";
  return o;
}

std::string ModelsCell(const std::map<std::string, uint64_t>& models) {
  std::vector<std::pair<uint64_t, std::string>> v;
  v.reserve(models.size());
  for (const auto& [m, n] : models) v.emplace_back(n, m);
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::string s;
  for (size_t i = 0; i < v.size() && i < 3; ++i) {
    if (i) s += ", ";
    s += HtmlEscape(v[i].second.empty() ? "unknown" : v[i].second);
  }
  if (v.size() > 3) s += fmt::format(" +{} more", v.size() - 3);
  return s;
}

std::string LeaderboardTable(const std::string& id, const std::vector<PrefixRow>& rows) {
  if (rows.empty()) return "<p class=\"empty\">No prefix is shared by two requests.</p>\n";
  const bool has_text =
      std::any_of(rows.begin(), rows.end(), [](const PrefixRow& r) { return !r.text.empty(); });
  std::string o = fmt::format(
      "<table id=\"{}\" class=\"leaderboard\">\n<thead><tr><th class=\"num\">#</th><th "
      "class=\"num\">prefix</th><th class=\"num\">requests</th><th>share of reusable "
      "volume</th><th>first seen</th><th>last seen</th><th>models</th><th class=\"num\">session "
      "ids</th></tr></thead>\n<tbody>\n",
      id);
  for (size_t i = 0; i < rows.size(); ++i) {
    const PrefixRow& r = rows[i];
    o += fmt::format(
        "<tr><td class=\"num\">{}</td><td class=\"num\" title=\"{} blocks\">{} tok</td><td "
        "class=\"num\">{}</td>{}<td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>\n",
        i + 1, Commas(r.blocks), WithCommas(r.tokens), Commas(r.requests), ShareCell(r.share),
        HtmlEscape(FormatTraceTime(r.first_seen_s)), HtmlEscape(FormatTraceTime(r.last_seen_s)),
        ModelsCell(r.models), Percent(Ratio(r.with_session_id, r.requests), 0));
    if (has_text && !r.text.empty())
      o += fmt::format(
          "<tr class=\"prefix-text\"><td></td><td colspan=\"7\"><code "
          "class=\"prefix\">{}</code></td></tr>\n",
          HtmlEscape(r.text));
  }
  o += "</tbody></table>\n";
  return o;
}

std::string Prefixes(const Profile& p) {
  const Leaderboards& lb = p.leaderboards;
  std::string o = "<section id=\"prefixes\">\n<h2>Top prefixes</h2>\n";
  o += fmt::format(
      "<p>Which prefixes to keep resident. A prefix is listed at its longest length for its "
      "request count (a branch point or an end of the block tree); {} prefixes qualify. "
      "<em>Reusable volume</em> = prefix tokens × (requests − 1); shares are of all reusable "
      "volume, {} tokens (the hit tokens of an unbounded cache replaying every request from "
      "cold). Shares of nested prefixes overlap.</p>\n",
      Commas(lb.listed_prefixes), WithCommas(lb.reusable_tokens));
  o += "<h3>By reusable volume</h3>\n" + LeaderboardTable("top-by-volume", lb.by_volume);
  o += "<h3>By request count</h3>\n" + LeaderboardTable("top-by-count", lb.by_count);
  o += "<p class=\"note\">The two rankings differ: a short prefix reused very often contributes "
       "little volume, a long one reused a few dozen times can carry most of it. The volume "
       "ranking is what determines savings.</p>\n</section>\n";
  return o;
}

std::string QuantLine(const Quantiles& q, const char* unit) {
  if (q.count == 0) return "<p class=\"quant\">no data</p>";
  return fmt::format(
      "<p class=\"quant\">p50 {} · p90 {} · p99 {} · max {} {} · mean {:.1f} · n = {}</p>",
      WithCommas(q.p50), WithCommas(q.p90), WithCommas(q.p99), WithCommas(q.max), unit, q.mean,
      Commas(q.count));
}

std::string HistPanel(const std::string& id, const std::string& title, const Quantiles& q,
                      const std::vector<HistogramBin>& bins, const char* unit,
                      const std::string& x_label, const std::string& counted) {
  std::string o = fmt::format("<div class=\"panel\">\n<h3>{}</h3>\n", title);
  o += QuantLine(q, unit);
  svg::BarChart spec{id, title, x_label, counted, counted};
  o += svg::HistogramSvg(bins, spec);
  o += "</div>\n";
  return o;
}

std::string CountTable(const std::string& id, const char* what,
                       const std::vector<std::pair<std::string, uint64_t>>& items, uint64_t total) {
  std::string o = fmt::format(
      "<table id=\"{}\"><thead><tr><th>{}</th><th class=\"num\">requests</th><th>share</th>"
      "</tr></thead><tbody>\n",
      id, what);
  for (const auto& [name, n] : items)
    o += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td>{}</tr>\n", HtmlEscape(name),
                     Commas(n), ShareCell(Ratio(n, total)));
  o += "</tbody></table>\n";
  return o;
}

std::string DistributionsSection(const Profile& p) {
  const auto& d = p.dist;
  std::string o = "<section id=\"distributions\">\n<h2>Distributions</h2>\n<div class=\"grid2\">\n";
  o += HistPanel("hist-input", "Input tokens per request", d.input_tokens, d.input_hist, "tok",
                 "input tokens (log2 bins)", "requests");
  o += HistPanel("hist-output", "Output tokens per request", d.output_tokens, d.output_hist, "tok",
                 "output tokens (log2 bins)", "requests");
  o += HistPanel("hist-interarrival", "Time between requests", d.inter_arrival_ms,
                 d.inter_arrival_hist, "ms", "inter-arrival time, ms (log2 bins)", "gaps");
  if (d.conversations > 0) {
    o += HistPanel("hist-conversation", "Requests per conversation", d.requests_per_conversation,
                   d.requests_per_conversation_hist, "", "requests (log2 bins)", "conversations");
  }
  if (d.turns.count > 0)
    o += HistPanel("hist-turns", "Turn of each request", d.turns, d.turns_hist, "",
                   "turn within its conversation (log2 bins)", "requests");

  // Models, status codes, streaming.
  std::vector<std::pair<std::string, uint64_t>> models;
  for (const auto& [m, n] : d.models) models.push_back({m.empty() ? "unknown" : m, n});
  std::sort(models.begin(), models.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  o += "<div class=\"panel\">\n<h3>Model mix</h3>\n";
  o += CountTable("models-table", "model", models, p.requests);
  std::vector<std::pair<std::string, uint64_t>> status;
  for (const auto& [c, n] : d.status_codes)
    status.push_back({c == 0 ? "not recorded" : std::to_string(c), n});
  o += "<h3>Status codes (replayed requests)</h3>\n";
  o += CountTable("status-table", "status", status, p.requests);
  if (p.filtered_status > 0)
    o += fmt::format("<p class=\"note\">{} rows with a non-2xx status were not replayed.</p>\n",
                     Commas(p.filtered_status));
  o += "<h3>Streaming</h3>\n";
  if (d.stream_known == 0)
    o += "<p class=\"note\">The input does not record whether requests streamed.</p>\n";
  else
    o += fmt::format(
        "<p>{} of {} requests that record it asked for <code>stream: true</code>.</p>\n",
        Percent(Ratio(d.stream_true, d.stream_known)), Commas(d.stream_known));
  if (!d.session_fields.empty()) {
    std::vector<std::pair<std::string, uint64_t>> fields(d.session_fields.begin(),
                                                         d.session_fields.end());
    o += "<h3>Session identifier fields seen</h3>\n";
    o += CountTable("session-fields-table", "field", fields, p.requests);
  }
  o += "</div>\n</div>\n</section>\n";
  return o;
}

std::string Qps(const Profile& p) {
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

std::string Findings(const Profile& p) {
  std::string o = "<section id=\"findings\">\n<h2>Findings</h2>\n";
  if (p.findings.empty()) {
    o += "<p class=\"empty\">Nothing was flagged.</p>\n</section>\n";
    return o;
  }
  o += "<ul class=\"findings\">\n";
  for (const std::string& f : p.findings) o += "<li>" + HtmlEscape(f) + "</li>\n";
  o += "</ul>\n</section>\n";
  return o;
}

std::string Skipped(const Profile& p) {
  std::string o = "<section id=\"skipped\">\n<h2>Skipped rows</h2>\n";
  if (p.skipped.total() == 0 && p.filtered_status == 0) {
    o += fmt::format("<p>None: all {} rows read were replayed.</p>\n</section>\n",
                     Commas(p.rows_read));
    return o;
  }
  o += fmt::format("<p>{} of {} rows were skipped ({}); a skipped row is not replayed.</p>\n",
                   Commas(p.skipped.total()), Commas(p.rows_read),
                   Percent(Ratio(p.skipped.total(), p.rows_read)));
  if (p.skipped.total() > 0) {
    o += "<table id=\"skipped-table\"><thead><tr><th>reason</th><th class=\"num\">rows</th>"
         "<th>first rows (line or record number)</th></tr></thead><tbody>\n";
    for (const auto& [reason, e] : p.skipped.by_reason()) {
      std::string lines;
      for (uint64_t l : e.lines) lines += (lines.empty() ? "" : ", ") + Commas(l);
      o += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                       HtmlEscape(reason), Commas(e.count), lines);
    }
    o += "</tbody></table>\n";
  }
  if (p.filtered_status > 0)
    o += fmt::format("<p>{} further rows had a non-2xx status code and were not replayed.</p>\n",
                     Commas(p.filtered_status));
  o += "</section>\n";
  return o;
}

std::string Method(const Profile& p) {
  std::string o =
      "<section id=\"method\">\n<h2>How the numbers were computed</h2>\n<dl class=\"method\">\n";
  auto item = [&](const std::string& k, const std::string& v) {
    o += fmt::format("<dt>{}</dt><dd>{}</dd>\n", k, v);
  };
  item("input",
       fmt::format("<span class=\"file\">{}</span> · {} · {} · {} bytes", HtmlEscape(p.input_name),
                   HtmlEscape(p.format), HtmlEscape(p.encoding), Commas(p.input_bytes)));
  item("token counts", HtmlEscape(p.counting));
  item("block size", fmt::format("{} tokens; prefixes are compared block by block through "
                                 "chained block ids (a block matches only if everything before "
                                 "it matches too)",
                                 p.block_size));
  if (!p.template_layout.empty()) item("template layout", HtmlEscape(p.template_layout));
  item("warm-up",
       p.warmup > 0
           ? fmt::format("the first {} of requests ({}) fill the cache and are not measured; the "
                         "other {} are",
                         Percent(p.warmup, 0), Commas(p.requests - p.measured_requests),
                         Commas(p.measured_requests))
           : std::string("none: all requests are measured from a cold cache"));
  item("replay", fmt::format("requests in timestamp order (ties in file order); a request's hit is "
                             "its longest leading run of cached blocks, hit tokens = min(hit "
                             "blocks × block size, input tokens); then all its blocks are touched "
                             "{}",
                             p.order == EvictOrder::kTailFirst
                                 ? "tail first, as vLLM frees blocks (heads outlive tails)"
                                 : "head first"));
  item("LRU curve", "exact at every capacity from one pass (LRU stack distances), not sampled");
  item("hit rate", "hit tokens / input tokens of the measured requests (token-weighted)");
  item("measured", fmt::format("{} requests, {} input tokens", Commas(p.measured_requests),
                               WithCommas(p.measured_tokens)));
  item("blocks", fmt::format("{} distinct, {} accesses", Commas(p.distinct_blocks),
                             Commas(p.block_accesses)));
  item("cold ceiling", fmt::format("{} (unbounded cache, every request measured)",
                                   Percent(Ratio(p.cold_ceiling.hit, p.cold_measured_tokens))));
  item("AIPerf figure", fmt::format("cache_hit_rate {:.6f} (unweighted mean over requests of "
                                    "leading seen blocks / blocks, as aiperf analyze-trace)",
                                    p.aiperf_cache_hit_rate));
  if (p.has_conversations)
    item("across / same",
         "a hit block is <em>across</em> when another conversation had used it "
         "before this request, else <em>same-conversation</em>");
  if (p.gateway.present && p.gateway.provider_cache_requests > 0 &&
      p.gateway.provider_input_tokens > 0) {
    const GatewayFindings& g = p.gateway;
    item("provider cache",
         fmt::format("{} of input tokens observed cached by the provider vs {} predicted here, on "
                     "the {} requests whose usage reported cached tokens (predicted: unbounded "
                     "cache replayed from the first request)",
                     Percent(Ratio(g.provider_cached_tokens, g.provider_input_tokens)),
                     Percent(Ratio(g.predicted_hit_tokens, g.provider_input_tokens)),
                     Commas(g.provider_cache_requests)));
  }
  if (p.cctrace.present) {
    const CctraceSummary& c = p.cctrace;
    item("cache trace",
         fmt::format("{} conversation files, {} sub-agents{}; the format's reference replay "
                     "(unbounded, cold, a cache per conversation, a fresh one per sub-agent): "
                     "parent {}, sub-agents {}",
                     Commas(c.files), Commas(c.subagents),
                     c.warm_prefix ? fmt::format(", warm prefix {} blocks", Commas(c.warm_blocks))
                                   : std::string(),
                     Percent(c.parent.hit_rate()),
                     c.subagent.requests ? Percent(c.subagent.hit_rate()) : std::string("–")));
  }
  if (KvBytesPerToken(p) > 0)
    item("memory", fmt::format("{}: {} per token; GiB = tokens × bytes per token / 2<sup>30</sup>",
                               HtmlEscape(KvModel(p)), BinaryBytes(KvBytesPerToken(p))));
  item("knee", fmt::format("smallest size past which doubling the cache adds less than {:.0f} "
                           "point of hit rate (checked on a 1/16-octave grid)",
                           p.knee.min_gain * 100));
  o += "</dl>\n</section>\n";
  return o;
}

}  // namespace

std::string RenderReportHtml(const Profile& p) {
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  o += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  // No network: the page may load nothing (no scripts, images, fonts or connections).
  o += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
       "'unsafe-inline'; img-src data:\">\n";
  o += fmt::format("<title>Prefix-cache profile · {}</title>\n", HtmlEscape(p.input_name));
  o += "<style>" + std::string(kReportCss) + "</style>\n</head>\n<body>\n<main>\n";
  o += Header(p);
  o += Headline(p);
  o += Capacity(p);
  if (p.fleet) o += FleetSectionHtml(*p.fleet, p.block_size, p.warmup);
  o += Prefixes(p);
  o += DistributionsSection(p);
  o += Qps(p);
  o += Findings(p);
  o += Skipped(p);
  o += Method(p);
  o += fmt::format(
      "<footer>Generated by llmtrafficlens {}. Aggregates only: no prompt text appears in this "
      "report unless --show-prefix-text was given.</footer>\n",
      LTL_VERSION);
  o += "</main>\n</body>\n</html>\n";
  return o;
}

}  // namespace ltl
