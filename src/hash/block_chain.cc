// BlockChain (see block_chain.h). The PRF input is laid out as
//   prev id (8 bytes, little-endian) | tag (1 byte: 0 full, 1 partial) | [units, 4 bytes LE] |
//   chunk
// in a reused scratch buffer, so hashing a block allocates nothing once the buffer has grown.
#include "hash/block_chain.h"

#include <cstring>

namespace ltl {

uint64_t BlockChain::Next(std::string_view chunk, bool partial, uint32_t units) {
  const size_t header = partial ? 13 : 9;
  if (scratch_.size() < header + chunk.size()) scratch_.resize(header + chunk.size());
  char* p = scratch_.data();
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>((prev_ >> (8 * i)) & 0xff);
  p[8] = partial ? 1 : 0;
  if (partial)
    for (int i = 0; i < 4; ++i) p[9 + i] = static_cast<char>((units >> (8 * i)) & 0xff);
  if (!chunk.empty()) std::memcpy(p + header, chunk.data(), chunk.size());
  prev_ = SipHash24(key_, p, header + chunk.size()) & kBlockIdMask;
  return prev_;
}

}  // namespace ltl
