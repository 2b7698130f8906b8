// Options shared by every replay: the warm-up share and the order in which a request touches
// its blocks after its hit is computed (see docs/SEMANTICS.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

namespace ltl {

enum class EvictOrder {
  kTailFirst,  // last block touched first, first block last (vLLM frees blocks in reverse)
  kHeadFirst,  // first block touched first
};

// Which LRU the headline figures (curve, knee, the KV-cache section's lru) follow
// (docs/SEMANTICS.md "Two LRUs").
enum class LruEngine {
  kVllm,    // flat block LRU, tail-first eviction (vLLM's free-block queue): the one-pass curve
  kSglang,  // radix-tree LRU, leaves only, running request locked (SGLang's RadixCache): one
            // replay per capacity (radix_lru_replay.h)
};

struct ReplayOptions {
  static constexpr size_t kByWarmup = std::numeric_limits<size_t>::max();

  double warmup = 0.5;  // the first floor(n * warmup) requests fill the cache and are not measured
  EvictOrder order = EvictOrder::kTailFirst;
  LruEngine lru = LruEngine::kVllm;
  // When set, requests [measured_from, n) are measured and `warmup` is ignored: a fleet worker's
  // sub-trace measures the requests that are in the fleet's window, which no share of its own
  // length expresses exactly.
  size_t measured_from = kByWarmup;
};

// Hit tokens of a replay, split by where the hit could come from when conversations are known.
struct HitTokens {
  int64_t hit = 0;     // all hit tokens
  int64_t across = 0;  // block had been used by another conversation before this request
  int64_t same() const { return hit - across; }
};

}  // namespace ltl
