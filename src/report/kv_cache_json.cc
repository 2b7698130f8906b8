// KvCacheToJson (see kv_cache_json.h). Rates are ratios in [0, 1]; sizes are integers (bytes,
// blocks, tokens) except capacity_gib; an infinite speed-up (hit rate 1) is written as null.
#include "report/kv_cache_json.h"

#include <cmath>
#include <limits>

namespace ltl {
namespace {

using Json = nlohmann::ordered_json;

double Ratio(int64_t a, int64_t b) {
  return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

Json SpeedupJson(double rate) {
  double s = PrefillSpeedup(rate);
  return std::isfinite(s) ? Json(s) : Json(nullptr);
}

void AddHit(Json& e, const HitTokens& h, int64_t measured, bool split) {
  const double rate = Ratio(h.hit, measured);
  e["hit_tokens"] = h.hit;
  e["measured_tokens"] = measured;
  e["hit_rate"] = rate;
  e["speedup"] = SpeedupJson(rate);
  if (split) {
    e["across"] = Ratio(h.across, measured);
    e["same_conv"] = Ratio(h.same(), measured);
    e["across_tokens"] = h.across;
    e["same_conv_tokens"] = h.same();
  }
}

}  // namespace

double PrefillSpeedup(double hit_rate) {
  if (hit_rate >= 1) return std::numeric_limits<double>::infinity();
  return 1.0 / (1.0 - hit_rate);
}

Json KvCacheToJson(const Profile& p) {
  const KvCacheSection& s = p.kv_cache;
  Json j;
  if (s.has_memory) {
    const KvMemory& m = s.memory;
    j["model"] = m.model;
    j["precision"] = m.precision.empty() ? Json(nullptr) : Json(m.precision);
    j["source"] = m.source;
    j["derivation"] = m.derivation.empty() ? Json(nullptr) : Json(m.derivation);
    // Whole bytes as integers; fp4 can leave half a byte per token.
    if (m.bits_per_token % 8 == 0) {
      j["bytes_per_token"] = m.bits_per_token / 8;
    } else {
      j["bytes_per_token"] = m.bytes_per_token();
    }
    const uint64_t block_bits = m.bits_per_token * p.block_size;
    if (block_bits % 8 == 0) {
      j["block_bytes"] = block_bits / 8;
    } else {
      j["block_bytes"] = static_cast<double>(block_bits) / 8.0;
    }
  } else {
    j["model"] = nullptr;
    j["bytes_per_token"] = nullptr;
  }
  j["block_size"] = p.block_size;
  j["policies"] = s.policies;
  Json ceiling;
  AddHit(ceiling, p.ceiling, p.measured_tokens, p.has_conversations);
  j["ceiling"] = ceiling;
  Json entries = Json::array();
  for (const CurveRow& r : s.rows) {
    Json e;
    e["policy"] = r.policy;
    if (s.has_memory) {
      e["capacity_gib"] = r.capacity_gib;
      e["capacity_bytes"] = static_cast<uint64_t>(std::ldexp(r.capacity_gib, 30));
    }
    e["capacity_blocks"] = r.capacity_blocks;
    e["capacity_tokens"] = r.capacity_tokens;
    AddHit(e, r.hit, r.measured_tokens, p.has_conversations);
    e["underfilled"] = r.underfilled;
    if (p.sampling.active) e["error_points"] = r.error_points;
    entries.push_back(e);
  }
  j["entries"] = entries;
  return j;
}

}  // namespace ltl
