// Options shared by every replay: the warm-up share and the order in which a request touches
// its blocks after its hit is computed (see docs/SEMANTICS.md).
#pragma once

#include <cstdint>

namespace ltl {

enum class EvictOrder {
  kTailFirst,  // last block touched first, first block last (vLLM frees blocks in reverse)
  kHeadFirst,  // first block touched first
};

struct ReplayOptions {
  double warmup = 0.5;  // the first floor(n * warmup) requests fill the cache and are not measured
  EvictOrder order = EvictOrder::kTailFirst;
};

// Hit tokens of a replay, split by where the hit could come from when conversations are known.
struct HitTokens {
  int64_t hit = 0;     // all hit tokens
  int64_t across = 0;  // block had been used by another conversation before this request
  int64_t same() const { return hit - across; }
};

}  // namespace ltl
