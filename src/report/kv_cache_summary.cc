// RenderKvCacheSummary (see kv_cache_summary.h). Budgets whose cache never fills before the
// measured window (underfilled) are left out of the table and named on one line below it.
#include "report/kv_cache_summary.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "common/units.h"
#include "report/kv_cache_json.h"

namespace ltl {
namespace {

std::string GibLabel(double gib) {
  if (gib == std::floor(gib)) return WithCommas(static_cast<int64_t>(gib)) + " GiB";
  return fmt::format("{:g} GiB", gib);
}

std::string Label(const KvCacheSection& s, const CurveRow& r) {
  if (s.has_memory) return GibLabel(r.capacity_gib);
  return r.capacity_tokens > 0 ? fmt::format("{} tokens", TokenSize(r.capacity_tokens))
                               : fmt::format("{} blocks", WithCommas(r.capacity_blocks));
}

std::string RateText(const HitTokens& h, int64_t measured) {
  const double rate = measured > 0 ? static_cast<double>(h.hit) / measured : 0.0;
  const double s = PrefillSpeedup(rate);
  std::string speed = std::isfinite(s) ? fmt::format("{:.1f}x", s) : "inf";
  return fmt::format("{:>5} ({})", Percent(rate), speed);
}

}  // namespace

std::string RenderKvCacheSummary(const Profile& p) {
  const KvCacheSection& s = p.kv_cache;
  if (!s.present) return "";
  std::string out = "\n";
  if (s.has_memory) {
    out += fmt::format("kv cache · {} · {}/token", s.memory.model,
                       BinaryBytes(s.memory.bytes_per_token()));
    if (!s.memory.precision.empty()) out += fmt::format(" ({})", s.memory.precision);
  } else {
    out += "eviction policies";
  }
  out += p.warmup > 0
             ? fmt::format("  (steady state: last {} of requests)\n", Percent(1.0 - p.warmup, 0))
             : "  (cold start: all requests)\n";
  out += fmt::format("  ceiling {}\n", Percent(p.Rate(p.ceiling, p.measured_tokens)));

  // One line per capacity (ascending), policies in the order asked. A capacity is left out when
  // any policy is underfilled there (in practice all are or none: see docs/SEMANTICS.md).
  std::map<std::pair<uint64_t, double>, std::vector<const CurveRow*>> by_cap;
  for (const CurveRow& r : s.rows) by_cap[{r.capacity_blocks, r.capacity_gib}].push_back(&r);
  std::vector<std::string> omitted;
  for (const auto& [key, rows] : by_cap) {
    bool underfilled = false;
    for (const CurveRow* r : rows) underfilled = underfilled || r->underfilled;
    if (underfilled) {
      omitted.push_back(Label(s, *rows.front()));
      continue;
    }
    std::string line = fmt::format("{:>14} ", Label(s, *rows.front()));
    for (const CurveRow* r : rows)
      line += fmt::format(" {} {}", r->policy, RateText(r->hit, r->measured_tokens));
    out += line + "\n";
  }
  if (!omitted.empty()) {
    std::string list;
    for (size_t i = 0; i < omitted.size(); ++i) list += (i ? ", " : "") + omitted[i];
    out += fmt::format("  not under memory pressure (never full before the measured window): {}\n",
                       list);
  }
  return out;
}

}  // namespace ltl
