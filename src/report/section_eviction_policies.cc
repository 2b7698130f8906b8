// Eviction policies side by side (--policies, --kvcache-sim, --model): report.json "kv_cache",
// the page's policy table, the terminal's policy table.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "common/units.h"
#include "report/html_text.h"
#include "report/html_widgets.h"
#include "report/kv_cache_json.h"
#include "report/kv_cache_summary.h"
#include "report/report_section.h"

namespace ltl {
namespace {

using Json = nlohmann::ordered_json;

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

class EvictionPoliciesPart final : public ReportSection {
 public:
  std::string_view name() const override { return "policies"; }
  void AddJson(const Profile& p, Json* root) const override {
    if (p.kv_cache.present) (*root)["kv_cache"] = KvCacheToJson(p);
  }
  std::string Html(const Profile& p) const override {
    const std::string table = KvTable(p);
    return table.empty() ? "" : "<section id=\"policies\">\n" + table + "</section>\n";
  }
  std::string Terminal(const Profile& p) const override { return RenderKvCacheSummary(p); }
};

}  // namespace

const ReportSection& EvictionPoliciesSection() {
  static const EvictionPoliciesPart section;
  return section;
}

}  // namespace ltl
