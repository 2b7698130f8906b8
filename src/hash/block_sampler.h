// Spatial block sampling (`--sample-rate`, `--sample-max-blocks`): the keep rule of SHARDS
// (Waldspurger, Park, Garthwaite, Ahmad: "Efficient MRC Construction with SHARDS", FAST '15,
// section 3, read 2026-12-06). A block is kept when its key, a 64-bit number derived from the block
// id alone, is below a threshold T; the sampling rate is R = T / 2^64. The decision depends on the
// id only, so every shard, file, thread and machine keeps the same blocks of the same traffic.
//
// Block ids of gateway logs are already salted SipHash outputs; hashed traces (Mooncake, bailian)
// carry small integers. The key is the SplitMix64 finalizer of the id (a bijection,
// common/mix64.h), which spreads both uniformly over 64 bits. The key's low bits also place a kept
// block in one of kSampleGroups groups, the disjoint sub-samples whose spread gives each curve
// point its error estimate (analyze: the random-group variance estimator).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "common/mix64.h"

namespace ltl {

inline constexpr uint64_t kKeepAll = std::numeric_limits<uint64_t>::max();
inline constexpr unsigned kSampleGroups = 32;

inline uint64_t SampleKey(uint64_t block_id) {
  return SplitMix64Finalizer(block_id);
}

// The threshold of a rate in (0, 1]: keep iff key < threshold. A rate of 1 keeps every block
// (kKeepAll, with the one key 2^64 - 1 kept too: see Keep).
inline uint64_t SampleThreshold(double rate) {
  if (!(rate < 1)) return kKeepAll;
  const double t = std::ldexp(rate, 64);  // exact: a power-of-two scaling
  return t < 1 ? 1 : static_cast<uint64_t>(t);
}

inline bool KeepBlock(uint64_t key, uint64_t threshold) {
  return threshold == kKeepAll || key < threshold;
}

// The rate a threshold samples at (1 for kKeepAll).
inline double ThresholdRate(uint64_t threshold) {
  return threshold == kKeepAll ? 1.0 : std::ldexp(static_cast<double>(threshold), -64);
}

inline uint8_t SampleGroup(uint64_t key) {
  return static_cast<uint8_t>(key % kSampleGroups);
}

}  // namespace ltl
