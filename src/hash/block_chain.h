// BlockChain: salted chained block ids. id_i = SipHash-2-4_key(id_{i-1} || tag || chunk_i) with the
// top bit cleared, so ids fit a signed 64-bit integer (AIPerf, JSON consumers) and two requests
// share their first N ids exactly when they share their first N blocks (up to 2^-63 collisions). A
// full block is tagged 0; a partial last block is tagged 1 and carries its length in units (code
// points or tokens), so a tail never produces the id of a full block with the same parent. The
// first block's parent is 0.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/siphash.h"

namespace ltl {

constexpr uint64_t kBlockIdMask = 0x7fffffffffffffffull;

class BlockChain {
 public:
  explicit BlockChain(SipKey key) : key_(key) {}
  void Reset() { prev_ = 0; }
  // Continues a chain whose last full block had id `prev` (0 = from the start).
  void ResumeAfter(uint64_t prev) { prev_ = prev; }
  // Hashes the next full block (its bytes: UTF-8 text, or token ids as little-endian uint32).
  uint64_t Full(std::string_view chunk) { return Next(chunk, false, 0); }
  // Hashes a partial last block of `units` code points or tokens.
  uint64_t Partial(std::string_view chunk, uint32_t units) { return Next(chunk, true, units); }
  uint64_t last() const { return prev_; }

 private:
  uint64_t Next(std::string_view chunk, bool partial, uint32_t units);
  SipKey key_;
  uint64_t prev_ = 0;
  std::string scratch_;
};

}  // namespace ltl
