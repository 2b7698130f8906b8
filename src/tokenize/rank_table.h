// RankTable: byte string -> token rank, the lookup at the heart of byte-pair encoding. Keys live in
// one arena; lookups take a string_view and never allocate.
// Internal to src/tokenize/ (tests/build/internal_headers.cmake).
#pragma once

#include <absl/container/flat_hash_map.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ltl {

inline constexpr uint32_t kNoRank = 0xFFFFFFFFu;

class RankTable {
 public:
  RankTable() = default;
  RankTable(const RankTable&) = delete;
  RankTable& operator=(const RankTable&) = delete;
  RankTable(RankTable&&) = default;
  RankTable& operator=(RankTable&&) = default;

  // Adds `bytes` with `rank`; false when the byte string is already present.
  bool Insert(std::string_view bytes, uint32_t rank);
  // Reserves room for `count` keys of `total_bytes` bytes altogether (keys must not move after
  // insertion, so Insert beyond the reserved bytes starts a new arena block).
  void Reserve(size_t count, size_t total_bytes);

  uint32_t Find(std::string_view bytes) const {
    auto it = map_.find(bytes);
    return it == map_.end() ? kNoRank : it->second;
  }
  uint32_t ByteRank(uint8_t b) const { return byte_rank_[b]; }
  // True when every single byte has a rank (required for byte-level BPE).
  bool HasAllBytes() const;
  size_t size() const { return map_.size(); }
  uint32_t max_rank() const { return max_rank_; }

 private:
  std::vector<std::string> arena_;  // blocks; each reserved up front so views stay valid
  absl::flat_hash_map<std::string_view, uint32_t> map_;
  std::array<uint32_t, 256> byte_rank_ = MakeNoRanks();
  uint32_t max_rank_ = 0;

  static std::array<uint32_t, 256> MakeNoRanks() {
    std::array<uint32_t, 256> a;
    a.fill(kNoRank);
    return a;
  }
};

}  // namespace ltl
