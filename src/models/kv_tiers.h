// Tier sizes of a tiered KV store (`--tiers hbm=80GiB,dram=1TiB,ssd=8TiB`): each tier a free name
// and a capacity either in bytes of KV (KiB/MiB/GiB/TiB binary, KB/MB/GB/TB decimal), which needs
// the model's KV bytes per token, or in tokens (a plain count with binary K/M/G, as --capacity).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ltl {

constexpr double kMaxTierBytes = 1152921504606846976.0;  // 2^60 bytes, 1 EiB

struct TierSize {
  std::string name;
  double bytes = 0;     // > 0: capacity given in bytes
  uint64_t tokens = 0;  // else: capacity given in tokens
  std::string text;     // as written, e.g. "80GiB"
};

// "hbm=80GiB,dram=1TiB,ssd=4M": one to eight tiers, names unique ([A-Za-z0-9_.-]+), sizes above 0.
Result<std::vector<TierSize>> ParseTierList(std::string_view text);

// Capacity of a tier in blocks: bytes / (bytes per token x block size) rounded down, or
// tokens / block size. bits_per_token 0 with a byte size is an error the caller checks first.
uint64_t TierCapacityBlocks(const TierSize& tier, uint64_t bits_per_token, uint32_t block_size);

}  // namespace ltl
