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
    rows.push_back(e);
  }
  j["rows"] = rows;
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
  o += "<th class=\"num\">hit rate</th></tr></thead><tbody>\n";
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
    o += fmt::format("<td class=\"num\">{}</td></tr>\n",
                     Percent(Ratio(r.total_hit(), s.measured_tokens)));
  }
  o += "</tbody></table>\n</section>\n";
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
