// RankTable storage: an arena of key bytes and an absl SwissTable keyed by views into it.
#include "tokenize/rank_table.h"

#include <algorithm>

namespace ltl {

void RankTable::Reserve(size_t count, size_t total_bytes) {
  map_.reserve(count);
  arena_.emplace_back();
  arena_.back().reserve(total_bytes);
}

bool RankTable::Insert(std::string_view bytes, uint32_t rank) {
  if (map_.contains(bytes)) return false;
  if (arena_.empty() || arena_.back().capacity() - arena_.back().size() < bytes.size()) {
    arena_.emplace_back();
    arena_.back().reserve(std::max<size_t>(1 << 16, bytes.size()));
  }
  std::string& block = arena_.back();
  const size_t at = block.size();
  block.append(bytes);  // within capacity: no reallocation, earlier views stay valid
  map_.emplace(std::string_view(block.data() + at, bytes.size()), rank);
  if (bytes.size() == 1) byte_rank_[static_cast<uint8_t>(bytes[0])] = rank;
  max_rank_ = std::max(max_rank_, rank);
  return true;
}

bool RankTable::HasAllBytes() const {
  return std::none_of(byte_rank_.begin(), byte_rank_.end(),
                      [](uint32_t r) { return r == kNoRank; });
}

}  // namespace ltl
