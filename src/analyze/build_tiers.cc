// BuildTiersSection (see build_tiers.h).
#include "analyze/build_tiers.h"

#include <algorithm>
#include <cmath>

#include "simulate/lru_curve.h"

namespace ltl {

const std::vector<double>& TierSweepScales() {
  static const std::vector<double> scales = {1.0 / 64, 1.0 / 16, 1.0 / 4, 4.0};
  return scales;
}

void BuildTiersSection(const Trace& trace, const ReplayOptions& options,
                       const TiersRequest& request, Profile* p) {
  TiersSection& s = p->tiers;
  s = TiersSection{};
  if (request.tiers.empty()) return;
  s.present = true;
  s.inclusive = request.inclusive;
  const uint32_t bs = std::max<uint32_t>(trace.block_size, 1);
  s.bytes_per_token = static_cast<double>(request.bits_per_token) / 8.0;
  for (const TierSize& t : request.tiers) {
    TierInfo info;
    info.name = t.name;
    info.size_text = t.text;
    info.capacity_blocks = TierCapacityBlocks(t, request.bits_per_token, bs);
    info.capacity_tokens = info.capacity_blocks * bs;
    info.bytes =
        t.bytes > 0 ? t.bytes : static_cast<double>(info.capacity_tokens) * s.bytes_per_token;
    s.tiers.push_back(info);
  }
  const size_t nt = s.tiers.size();

  // Rows: the leading 1 .. nt tiers (the last is the hierarchy asked for), then the scaled ones.
  TierHierarchies h;
  auto add_row = [&](const std::string& kind, double scale, size_t used) {
    TierRow row;
    row.kind = kind;
    row.scale = scale;
    row.tiers_used = used;
    std::vector<uint64_t> cum;
    uint64_t total = 0;
    for (size_t k = 0; k < nt; ++k) {
      uint64_t cap = 0;
      if (k < used)
        cap = static_cast<uint64_t>(
            std::floor(static_cast<long double>(s.tiers[k].capacity_blocks) * scale));
      row.capacity_blocks.push_back(cap);
      // Exclusive: tier k holds stack positions [sum of the tiers above, + its own size).
      // Inclusive: tier k holds the top cap positions, so it serves [the largest tier above, cap).
      total = request.inclusive ? std::max(total, cap) : total + cap;
      cum.push_back(total);
    }
    row.effective_blocks = total;
    h.cumulative_blocks.push_back(cum);
    s.rows.push_back(row);
  };
  for (size_t used = 1; used <= nt; ++used) add_row("leading", 1.0, used);
  s.asked_row = nt - 1;
  for (double scale : TierSweepScales()) add_row("scaled", scale, nt);

  TierSplit split;
  const LruCurve curve =
      LruCurve::ComputeWithTiers(trace, options, FirstMeasuredIndex(trace, options), h, &split);
  s.measured_tokens = curve.measured_tokens();
  s.measured_requests = curve.measured_requests();
  for (size_t r = 0; r < s.rows.size(); ++r) {
    TierRow& row = s.rows[r];
    for (size_t k = 0; k < nt; ++k) row.hit.push_back(split.At(r, k));
    row.flat_hit = curve.At(row.effective_blocks).hit;
  }
  BuildTierTimeModel(trace, request.time, s.bytes_per_token, split, p);
}

}  // namespace ltl
