// FactsStore: the cache-buster facts (PromptFacts, common/request_record.h) of one read's records,
// each list kept once however many records repeat it. An agentic conversation resends its history
// and its tools with every turn, so a turn's segments are mostly the previous turn's (the 1 GB
// benchmark log: 2.01M segments in 44,588 requests, of which 1.76M are a prefix shared with the
// conversation's previous request; one tool list, sent 44,588 times). An entry keeps how many
// leading segments it shares with an earlier entry (its parent) and only the segments after them;
// tool lists are kept once per distinct list. Reading an entry back gives exactly the lists it was
// added with, so every reader sees the same values as from the record's own lists.
//
// Entries are added on one thread (the read's in-order step, ingest/facts_sharer.h) and read only
// after the read, from any thread; records hold the store through SharedFacts, so it lives as long
// as a record needs it, wherever the records are moved.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "common/request_record.h"

namespace ltl {

class FactsStore {
 public:
  static constexpr uint32_t kNoEntry = UINT32_MAX;
  // A chain of parents longer than this is cut (the entry keeps all its segments): it bounds what
  // reading an entry walks.
  static constexpr uint32_t kMaxDepth = 32;

  // Adds `f`'s lists (segments, tools; not cache_control) as a new entry; `parent` (kNoEntry =
  // none) is an earlier entry whose leading segments `f` may repeat: the shared ones are kept once.
  // `list_bytes` is what f's lists take as vectors (PromptFacts::bytes, for the report). Returns
  // the entry.
  uint32_t Add(const PromptFacts& f, uint32_t parent, uint32_t list_bytes);
  // Segments `entry` has in common with `segments` from the start.
  uint32_t CommonPrefix(uint32_t entry, const std::vector<SegmentFact>& segments) const;
  // Entry `entry`'s lists, as they were added (cache_control untouched).
  void Read(uint32_t entry, PromptFacts* out) const;

  uint32_t segment_count(uint32_t entry) const { return entries_[entry].size; }
  uint32_t list_bytes(uint32_t entry) const { return entries_[entry].list_bytes; }
  const std::vector<ToolFact>& tools(uint32_t entry) const {
    return tool_lists_[entries_[entry].tools];
  }
  size_t entries() const { return entries_.size(); }
  // Segments kept (shared ones once) and distinct tool lists, and the store's bytes.
  size_t kept_segments() const { return kept_segments_; }
  size_t tool_lists() const { return tool_lists_.size(); }
  size_t bytes() const;

 private:
  struct Entry {
    const SegmentFact* tail = nullptr;  // the segments after the shared ones (in a chunk)
    uint32_t parent = kNoEntry;
    uint32_t shared = 0;  // leading segments that are the parent's
    uint32_t size = 0;    // segments in all
    uint32_t tools = 0;   // index into tool_lists_ (0: the empty list)
    uint32_t list_bytes = 0;
    uint32_t depth = 0;  // parents above it
  };
  // One piece of an entry's segments, in order: `count` segments from `begin`.
  struct Piece {
    const SegmentFact* begin;
    uint32_t count;
  };
  using PieceList = std::array<Piece, kMaxDepth + 1>;
  // The pieces of `entry`'s first `limit` segments, first to last, into *out; returns how many.
  size_t Pieces(uint32_t entry, uint32_t limit, PieceList* out) const;
  uint32_t KeepTools(const std::vector<ToolFact>& tools, uint32_t parent);
  SegmentFact* Allocate(size_t n);

  std::vector<Entry> entries_;
  std::vector<std::vector<ToolFact>> tool_lists_ = {{}};
  // Segments in chunks that never move: an entry points into one.
  std::vector<std::unique_ptr<SegmentFact[]>> chunks_;
  size_t chunk_used_ = 0, chunk_size_ = 0, kept_segments_ = 0, chunk_bytes_ = 0;
  // Distinct tool lists by a digest of their bytes (a collision only keeps a list twice).
  std::unordered_map<uint64_t, uint32_t> tool_index_;
};

// The lists of `f`: f itself when it holds them, else its store entry's, copied into *scratch with
// f's cache_control. What every reader of a record's facts takes them through.
const PromptFacts& ReadFacts(const PromptFacts& f, PromptFacts* scratch);
// The number of f's segments (without copying them).
size_t SegmentCount(const PromptFacts& f);
// What f's lists took as the record's own vectors when the request was read, with the vectors and
// position (kPlainFactsHeaderBytes): report.json's cache_busters.facts_bytes_per_request.
size_t PlainFactsBytes(const PromptFacts& f);

}  // namespace ltl
