// "Tiers and time" (--tiers): hits of an exclusive LRU hierarchy of KV tiers split by the tier
// that serves them (report.json "tiers", the page's table, the terminal lines). Every number here
// is the replay's, exact for LRU; the section says so and names the model (docs/SEMANTICS.md,
// "Tiered KV memory").
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/units.h"
#include "models/kv_models.h"
#include "report/html_text.h"
#include "report/html_widgets.h"
#include "report/report_section.h"
#include "report/tier_chart.h"

namespace ltl {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kExclusive =
    "exclusive LRU hierarchy: a block evicted from tier k moves to tier k+1 (dropped off the "
    "last), a hit in any tier moves it to tier 1; a request's leading run of cached blocks hits, "
    "each block served by the fastest tier holding it";
constexpr const char* kInclusive =
    "inclusive LRU hierarchy: every tier is an LRU cache over every access (a block is written "
    "to all tiers), so a lower tier holds a superset of a smaller one above; a request's leading "
    "run of cached blocks hits, each block served by the fastest tier holding it";

const char* Semantics(const TiersSection& s) {
  return s.inclusive ? kInclusive : kExclusive;
}

double Ratio(int64_t a, int64_t b) {
  return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

std::string RowLabel(const TiersSection& s, const TierRow& r) {
  if (r.kind == "scaled") return fmt::format("all tiers x {:g}", r.scale);
  std::string l;
  for (size_t k = 0; k < r.tiers_used; ++k) l += (k ? " + " : "") + s.tiers[k].name;
  return l;
}

std::string SizeText(const TiersSection& s, uint64_t blocks, uint32_t bs) {
  const uint64_t tokens = blocks * bs;
  if (s.bytes_per_token > 0)
    return BinaryBytes(static_cast<double>(tokens) * s.bytes_per_token) + " (" + TokenSize(tokens) +
           " tokens)";
  return TokenSize(tokens) + " tokens";
}

Json TimeJson(const TierTimeModel& t) {
  Json j;
  j["estimate"] = true;
  j["model"] = t.model;
  j["model_source"] = t.model_source;
  j["active_params"] = t.active_params;
  j["gpu"] = t.gpu;
  j["gpu_source"] = t.gpu_source;
  j["precision"] = t.precision;
  j["peak_flops"] = t.peak_flops;
  j["mfu"] = t.mfu;
  Json bw = Json::array();
  for (size_t k = 0; k < t.tier_bytes_per_s.size(); ++k)
    bw.push_back({{"bytes_per_s", k == 0 ? Json(nullptr) : Json(t.tier_bytes_per_s[k])},
                  {"source", t.tier_bandwidth_source[k]}});
  j["tier_bandwidth"] = bw;
  j["decode_tokens_per_s"] = t.decode_tokens_per_s;
  j["gpu_hour_price"] = t.gpu_hour_price > 0 ? Json(t.gpu_hour_price) : Json(nullptr);
  j["window_s"] = t.window_s;
  j["unknown_output_requests"] = t.unknown_output_requests;
  j["no_cache"] = {{"ttft_s",
                    {{"p50", t.ttft_p50},
                     {"p90", t.ttft_p90},
                     {"p95", t.ttft_p95},
                     {"p99", t.ttft_p99},
                     {"mean", t.ttft_mean}}},
                   {"prefill_gpu_s", t.prefill_gpu_s},
                   {"decode_s", t.decode_s}};
  j["assumptions"] = t.assumptions;
  return j;
}

std::string Seconds(double s) {
  if (s < 1) return fmt::format("{:.0f} ms", s * 1000);
  return fmt::format("{:.2f} s", s);
}

Json TiersJson(const Profile& p) {
  const TiersSection& s = p.tiers;
  Json j;
  j["mode"] = s.inclusive ? "inclusive" : "exclusive";
  j["semantics"] = Semantics(s);
  j["block_size"] = p.block_size;
  j["bytes_per_token"] = s.bytes_per_token > 0 ? Json(s.bytes_per_token) : Json(nullptr);
  j["measured_requests"] = s.measured_requests;
  j["measured_tokens"] = s.measured_tokens;
  Json tiers = Json::array();
  for (const TierInfo& t : s.tiers) {
    Json e;
    e["name"] = t.name;
    e["size"] = t.size_text;
    e["capacity_blocks"] = t.capacity_blocks;
    e["capacity_tokens"] = t.capacity_tokens;
    e["capacity_bytes"] = t.bytes > 0 ? Json(t.bytes) : Json(nullptr);
    tiers.push_back(e);
  }
  j["tiers"] = tiers;
  Json rows = Json::array();
  for (size_t i = 0; i < s.rows.size(); ++i) {
    const TierRow& r = s.rows[i];
    Json e;
    e["label"] = RowLabel(s, r);
    e["kind"] = r.kind;
    e["asked"] = i == s.asked_row;
    e["scale"] = r.scale;
    e["tiers_used"] = r.tiers_used;
    Json caps = Json::array(), hits = Json::array(), rates = Json::array();
    uint64_t total_blocks = 0;
    for (size_t k = 0; k < r.capacity_blocks.size(); ++k) {
      caps.push_back(r.capacity_blocks[k]);
      hits.push_back(r.hit[k]);
      rates.push_back(Ratio(r.hit[k], s.measured_tokens));
      total_blocks += r.capacity_blocks[k];
    }
    e["capacity_blocks"] = caps;
    e["total_capacity_blocks"] = total_blocks;
    e["effective_capacity_blocks"] = r.effective_blocks;
    e["hit_tokens"] = hits;
    e["hit_rate"] = rates;
    e["total_hit_tokens"] = r.total_hit();
    e["total_hit_rate"] = Ratio(r.total_hit(), s.measured_tokens);
    e["flat_lru_hit_tokens"] = r.flat_hit;
    if (s.time.present) {
      const TierTimeModel& t = s.time;
      e["ttft_s"] = {{"p50", r.ttft_p50},
                     {"p90", r.ttft_p90},
                     {"p95", r.ttft_p95},
                     {"p99", r.ttft_p99},
                     {"mean", r.ttft_mean}};
      e["prefill_gpu_s"] = r.prefill_gpu_s;
      e["transfer_s"] = r.transfer_s;
      e["e2e_speedup"] = r.e2e_speedup;
      e["gpu_s_saved_per_day"] = t.window_s > 0 ? Json(r.gpu_s_saved_per_day) : Json(nullptr);
      e["gpu_hours_saved_per_day"] =
          t.window_s > 0 ? Json(r.gpu_s_saved_per_day / 3600.0) : Json(nullptr);
      if (t.gpu_hour_price > 0 && t.window_s > 0) {
        e["cost_saved_per_day"] = r.gpu_s_saved_per_day / 3600.0 * t.gpu_hour_price;
        e["cost_saved_per_month"] = r.gpu_s_saved_per_day / 3600.0 * t.gpu_hour_price * 30;
      } else {
        e["cost_saved_per_day"] = nullptr;
        e["cost_saved_per_month"] = nullptr;
      }
    }
    rows.push_back(e);
  }
  j["rows"] = rows;
  if (s.time.present) j["time_model"] = TimeJson(s.time);
  return j;
}

std::string TiersHtml(const Profile& p) {
  const TiersSection& s = p.tiers;
  const uint32_t bs = std::max<uint32_t>(p.block_size, 1);
  std::string o = "<section id=\"tiers\">\n<h2>Tiers and time</h2>\n";
  o += fmt::format(
      "<p class=\"note\">{}. Replayed exactly (one LRU pass; the tiers together hold "
      "what one LRU cache of their summed size, inclusive: of the largest tier, "
      "holds).</p>\n",
      HtmlEscape(Semantics(s)));
  o += "<table id=\"tiers-table\"><thead><tr><th>memory</th><th class=\"num\">total</th>";
  for (const TierInfo& t : s.tiers)
    o += fmt::format("<th class=\"num\">from {}</th>", HtmlEscape(t.name));
  o += "<th class=\"num\">hit rate</th>";
  const TierTimeModel& tm = s.time;
  if (tm.present) {
    o += "<th class=\"num\">TTFT p50</th><th class=\"num\">TTFT p95</th><th "
         "class=\"num\">end-to-end speed-up</th><th class=\"num\">GPU-hours saved / day</th>";
    if (tm.gpu_hour_price > 0) o += "<th class=\"num\">saved / month</th>";
  }
  o += "</tr></thead><tbody>\n";
  if (tm.present) {
    o += fmt::format("<tr><td>no cache</td><td class=\"num\">–</td>");
    for (size_t k = 0; k < s.tiers.size(); ++k) o += "<td class=\"num\">–</td>";
    o += fmt::format(
        "<td class=\"num\">0%</td><td class=\"num\">{}</td><td "
        "class=\"num\">{}</td><td class=\"num\">1.00x</td><td class=\"num\">0</td>{}"
        "</tr>\n",
        Seconds(tm.ttft_p50), Seconds(tm.ttft_p95),
        tm.gpu_hour_price > 0 ? "<td class=\"num\">0</td>" : "");
  }
  for (size_t i = 0; i < s.rows.size(); ++i) {
    const TierRow& r = s.rows[i];
    uint64_t total = 0;
    for (uint64_t c : r.capacity_blocks) total += c;
    o += fmt::format("<tr{}><td>{}</td><td class=\"num\">{}</td>",
                     i == s.asked_row ? " class=\"asked\"" : "", HtmlEscape(RowLabel(s, r)),
                     HtmlEscape(SizeText(s, total, bs)));
    for (size_t k = 0; k < r.hit.size(); ++k)
      o += fmt::format("<td class=\"num\">{}</td>",
                       k < r.tiers_used ? Percent(Ratio(r.hit[k], s.measured_tokens)) : "–");
    o += fmt::format("<td class=\"num\">{}</td>", Percent(Ratio(r.total_hit(), s.measured_tokens)));
    if (tm.present) {
      o += fmt::format(
          "<td class=\"num\">{}</td><td class=\"num\">{}</td><td "
          "class=\"num\">{:.2f}x</td><td class=\"num\">{}</td>",
          Seconds(r.ttft_p50), Seconds(r.ttft_p95), r.e2e_speedup,
          tm.window_s > 0 ? fmt::format("{:.1f}", r.gpu_s_saved_per_day / 3600) : "–");
      if (tm.gpu_hour_price > 0)
        o += fmt::format("<td class=\"num\">{}</td>",
                         tm.window_s > 0 ? fmt::format("{:.0f}", r.gpu_s_saved_per_day / 3600 *
                                                                     tm.gpu_hour_price * 30)
                                         : "–");
    }
    o += "</tr>\n";
  }
  o += "</tbody></table>\n";
  o += TierStackSvg(s);
  if (tm.present) o += TtftSvg(s);
  if (tm.present) {
    o += "<p class=\"note\">Times are a model estimate, not measurements. Assumptions:</p><ul "
         "class=\"note\">";
    for (const std::string& a : tm.assumptions) o += "<li>" + HtmlEscape(a) + "</li>";
    o += "</ul>\n";
  }
  o += "</section>\n";
  return o;
}

std::string TiersTerminal(const Profile& p) {
  const TiersSection& s = p.tiers;
  const uint32_t bs = std::max<uint32_t>(p.block_size, 1);
  std::string out =
      fmt::format("\ntiers · {} LRU hierarchy", s.inclusive ? "inclusive" : "exclusive");
  out += p.warmup > 0
             ? fmt::format(" (steady state: last {} of requests)\n", Percent(1.0 - p.warmup, 0))
             : " (cold start: all requests)\n";
  std::string sizes;
  for (const TierInfo& t : s.tiers)
    sizes += fmt::format("{}{} {}", sizes.empty() ? "" : ", ", t.name,
                         SizeText(s, t.capacity_blocks, bs));
  out += "  " + sizes + "\n";
  for (size_t i = 0; i < s.rows.size(); ++i) {
    const TierRow& r = s.rows[i];
    if (r.kind != "leading") continue;
    std::string split;
    for (size_t k = 0; k < r.tiers_used; ++k)
      split += fmt::format("{}{} {}", k ? " + " : "", s.tiers[k].name,
                           Percent(Ratio(r.hit[k], s.measured_tokens)));
    out += fmt::format("  {:<28} hit {:>6}  = {}\n", RowLabel(s, r),
                       Percent(Ratio(r.total_hit(), s.measured_tokens)), split);
  }
  const TierTimeModel& t = s.time;
  if (!t.present) return out;
  const TierRow& a = s.rows[s.asked_row];
  out += fmt::format("  time model (estimate): {} on {} {} x MFU {:g}, decode {:g} tok/s\n",
                     t.model, t.gpu, t.precision, t.mfu, t.decode_tokens_per_s);
  out += fmt::format("  TTFT p50 {} -> {}, p95 {} -> {} (no cache -> {})\n", Seconds(t.ttft_p50),
                     Seconds(a.ttft_p50), Seconds(t.ttft_p95), Seconds(a.ttft_p95), RowLabel(s, a));
  out += fmt::format(
      "  end-to-end speed-up with decode {:.2f}x (ideal prefill-only 1/(1-h) = {})\n",
      a.e2e_speedup,
      a.total_hit() < s.measured_tokens
          ? fmt::format("{:.2f}x", 1.0 / (1.0 - Ratio(a.total_hit(), s.measured_tokens)))
          : std::string("inf"));
  if (t.window_s > 0) {
    out += fmt::format("  prefill GPU-hours saved per day {:.1f}", a.gpu_s_saved_per_day / 3600);
    if (t.gpu_hour_price > 0)
      out += fmt::format(" = {:.2f} per day, {:.0f} per month at {:g} per GPU-hour",
                         a.gpu_s_saved_per_day / 3600 * t.gpu_hour_price,
                         a.gpu_s_saved_per_day / 3600 * t.gpu_hour_price * 30, t.gpu_hour_price);
    out += "\n";
  }
  return out;
}

class TiersPart final : public ReportSection {
 public:
  std::string_view name() const override { return "tiers"; }
  std::string_view toc_title() const override { return "Tiers and time"; }
  void AddJson(const Profile& p, Json* root) const override {
    if (p.tiers.present) (*root)["tiers"] = TiersJson(p);
  }
  std::string Html(const Profile& p) const override { return p.tiers.present ? TiersHtml(p) : ""; }
  std::string Terminal(const Profile& p) const override {
    return p.tiers.present ? TiersTerminal(p) : "";
  }
};

}  // namespace

const ReportSection& TieredMemorySection() {
  static const TiersPart section;
  return section;
}

}  // namespace ltl
