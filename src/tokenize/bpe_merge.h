// MergeByRank: the byte-pair merge loop shared by the tiktoken and tokenizer.json models. Adjacent
// symbols are merged lowest rank first (leftmost on equal ranks, as tiktoken and Hugging Face
// tokenizers both do) until no adjacent pair has a rank. A min-heap with lazy invalidation makes it
// O(n log n) in the piece length; all storage lives in a reusable MergeScratch, so the hot loop
// performs no heap allocation once the scratch has grown to the longest piece seen.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tokenize/rank_table.h"

namespace ltl {

struct MergeSymbol {
  uint32_t begin;  // byte span of the symbol within the piece
  uint32_t end;
  uint32_t id;   // token id of the span
  int32_t prev;  // neighbours in the surviving sequence, -1 at the ends
  int32_t next;
};

struct MergeCandidate {
  uint32_t rank;
  uint32_t begin;  // begin of the left symbol (ties between equal ranks go to the leftmost)
  uint32_t end;    // end of the right symbol: a candidate is stale when either side changed
  int32_t left;
  uint32_t id;  // token id of the merged span
};

struct MergeScratch {
  std::vector<MergeSymbol> symbols;
  std::vector<MergeCandidate> heap;
};

inline constexpr uint32_t kDeadSymbol = 0xFFFFFFFFu;

// `scratch.symbols` holds the initial symbols (linked in order). `pair_rank(left, right, &id)`
// returns the rank of merging two adjacent symbols, or kNoRank, and sets the merged token's id.
// Appends the final symbols' ids to *out.
template <typename PairRank>
void MergeByRank(MergeScratch& scratch, PairRank&& pair_rank, std::vector<uint32_t>* out) {
  auto& sym = scratch.symbols;
  auto& heap = scratch.heap;
  heap.clear();
  auto later = [](const MergeCandidate& a, const MergeCandidate& b) {
    return a.rank != b.rank ? a.rank > b.rank : a.begin > b.begin;
  };
  auto push_pair = [&](int32_t left) {
    const int32_t right = sym[left].next;
    if (right < 0) return;
    uint32_t id = 0;
    const uint32_t rank = pair_rank(sym[left], sym[right], &id);
    if (rank == kNoRank) return;
    heap.push_back({rank, sym[left].begin, sym[right].end, left, id});
    std::push_heap(heap.begin(), heap.end(), later);
  };
  for (int32_t i = 0; i + 1 < static_cast<int32_t>(sym.size()); ++i) push_pair(i);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const MergeCandidate c = heap.back();
    heap.pop_back();
    MergeSymbol& left = sym[c.left];
    if (left.begin != c.begin || left.next < 0 || sym[left.next].end != c.end) continue;  // stale
    MergeSymbol& right = sym[left.next];
    left.end = right.end;
    left.id = c.id;
    left.next = right.next;
    if (right.next >= 0) sym[right.next].prev = c.left;
    right.begin = kDeadSymbol;
    if (left.prev >= 0) push_pair(left.prev);
    push_pair(c.left);
  }
  for (int32_t i = sym.empty() ? -1 : 0; i >= 0; i = sym[i].next) out->push_back(sym[i].id);
}

}  // namespace ltl
