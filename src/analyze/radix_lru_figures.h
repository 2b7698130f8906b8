// RadixLruFigures: the headline LRU figures (hit tokens at any capacity) under --eviction sglang,
// SGLang's radix-tree LRU. That policy is not a stack algorithm (a request longer than the free
// space is cached only in part, and which leaf goes depends on the tree), so no one-pass curve
// gives it exactly: each capacity is its own replay (radix_lru_replay.h), run on the policy sweep's
// threads and memoized, so the curve rows, the chart's points and the knee's grid cost one replay
// per distinct capacity.
// Internal to src/analyze/ (tests/build/internal_headers.cmake).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "simulate/replay_options.h"
#include "simulate/trace.h"

namespace ltl {

class RadixLruFigures {
 public:
  RadixLruFigures(const Trace& trace, const ReplayOptions& options, unsigned threads = 0)
      : trace_(trace), options_(options), threads_(threads) {}

  // Replays every capacity not yet replayed, in parallel.
  void Evaluate(const std::vector<uint64_t>& capacities);
  // Hit tokens at a replayed capacity (replays it first when it was not).
  HitTokens At(uint64_t capacity_blocks);
  // A capacity large enough that nothing is ever evicted (every block access of the trace).
  uint64_t unbounded_blocks() const;
  // Every replayed capacity with its hit, ascending.
  const std::map<uint64_t, HitTokens>& replayed() const { return hits_; }

 private:
  const Trace& trace_;
  ReplayOptions options_;
  unsigned threads_;
  std::map<uint64_t, HitTokens> hits_;
};

}  // namespace ltl
