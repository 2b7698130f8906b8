// FactsStore (see facts_store.h).
#include "common/facts_store.h"

#include <algorithm>
#include <cstring>

#include "common/mix64.h"

namespace ltl {
namespace {

// Segments per chunk (64 KiB): a few per thousand requests.
constexpr size_t kChunkSegments = 4096;

static_assert(sizeof(SegmentFact) == 16, "SegmentFact has no padding: compared with memcmp");

}  // namespace

size_t FactsStore::Pieces(uint32_t entry, uint32_t limit, PieceList* out) const {
  // From the entry up to the first ancestor it needs: each gives its own segments below the limit
  // its descendants on the path set (a child takes only the parent's first `shared`).
  std::array<std::pair<uint32_t, uint32_t>, kMaxDepth + 1> up;  // (entry, limit)
  size_t n = 0;
  for (uint32_t e = entry; e != kNoEntry && limit > 0;) {
    const Entry& x = entries_[e];
    if (limit > x.shared) up[n++] = {e, limit};
    limit = std::min(limit, x.shared);
    e = x.parent;
  }
  for (size_t i = 0; i < n; ++i) {
    const auto [e, lim] = up[n - 1 - i];
    (*out)[i] = Piece{entries_[e].tail, lim - entries_[e].shared};
  }
  return n;
}

uint32_t FactsStore::CommonPrefix(uint32_t entry, const std::vector<SegmentFact>& segments) const {
  PieceList pieces;
  const size_t n = Pieces(entry, entries_[entry].size, &pieces);
  uint32_t k = 0;
  for (size_t p = 0; p < n; ++p) {
    const uint32_t m = static_cast<uint32_t>(
        std::min<size_t>(pieces[p].count, segments.size() - static_cast<size_t>(k)));
    const SegmentFact* a = pieces[p].begin;
    const SegmentFact* b = segments.data() + k;
    // m == 0: nothing to compare (and a or b may be null: memcmp must not see it).
    if (m != 0 && std::memcmp(a, b, m * sizeof(SegmentFact)) != 0) {
      uint32_t j = 0;
      while (std::memcmp(a + j, b + j, sizeof(SegmentFact)) == 0) ++j;
      return k + j;
    }
    k += m;
    if (m < pieces[p].count) break;
  }
  return k;
}

SegmentFact* FactsStore::Allocate(size_t n) {
  if (n == 0) return nullptr;
  if (chunk_used_ + n > chunk_size_) {
    chunk_size_ = std::max(kChunkSegments, n);
    chunks_.push_back(std::make_unique<SegmentFact[]>(chunk_size_));
    chunk_bytes_ += chunk_size_ * sizeof(SegmentFact);
    chunk_used_ = 0;
  }
  SegmentFact* p = chunks_.back().get() + chunk_used_;
  chunk_used_ += n;
  return p;
}

uint32_t FactsStore::KeepTools(const std::vector<ToolFact>& tools, uint32_t parent) {
  if (tools.empty()) return 0;
  auto same = [&](uint32_t list) {
    const std::vector<ToolFact>& t = tool_lists_[list];
    return t.size() == tools.size() &&
           std::memcmp(t.data(), tools.data(), tools.size() * sizeof(ToolFact)) == 0;
  };
  if (parent != kNoEntry && same(entries_[parent].tools)) return entries_[parent].tools;
  uint64_t h = tools.size();
  for (const ToolFact& t : tools)
    h = SplitMix64Finalizer(h ^ (uint64_t{t.name_digest} << 32 | t.definition_digest));
  auto [it, added] = tool_index_.try_emplace(h, static_cast<uint32_t>(tool_lists_.size()));
  if (!added && same(it->second)) return it->second;
  tool_lists_.push_back(tools);
  return static_cast<uint32_t>(tool_lists_.size() - 1);
}

uint32_t FactsStore::Add(const PromptFacts& f, uint32_t parent, uint32_t list_bytes) {
  const uint32_t size = static_cast<uint32_t>(f.segments.size());
  uint32_t shared = parent != kNoEntry ? CommonPrefix(parent, f.segments) : 0;
  // The first `shared` segments of an entry that shares at least as many with its own parent
  // are that parent's: point past it (a shorter path to read).
  uint32_t p = shared > 0 ? parent : kNoEntry;
  while (p != kNoEntry && shared <= entries_[p].shared) p = entries_[p].parent;
  if (p != kNoEntry && entries_[p].depth >= kMaxDepth) p = kNoEntry;
  if (p == kNoEntry) shared = 0;
  Entry e;
  e.parent = p;
  e.shared = shared;
  e.size = size;
  e.depth = p != kNoEntry ? entries_[p].depth + 1 : 0;
  e.list_bytes = list_bytes;
  SegmentFact* tail = Allocate(size - shared);
  if (tail) std::copy(f.segments.begin() + shared, f.segments.end(), tail);
  e.tail = tail;
  kept_segments_ += size - shared;
  e.tools = KeepTools(f.tools, parent);
  entries_.push_back(e);
  return static_cast<uint32_t>(entries_.size() - 1);
}

void FactsStore::Read(uint32_t entry, PromptFacts* out) const {
  PieceList pieces;
  const size_t n = Pieces(entry, entries_[entry].size, &pieces);
  out->segments.resize(entries_[entry].size);
  SegmentFact* to = out->segments.data();
  for (size_t p = 0; p < n; ++p) to = std::copy_n(pieces[p].begin, pieces[p].count, to);
  out->tools = tool_lists_[entries_[entry].tools];
}

size_t FactsStore::bytes() const {
  size_t b = chunk_bytes_ + entries_.capacity() * sizeof(Entry);
  for (const std::vector<ToolFact>& t : tool_lists_) b += t.capacity() * sizeof(ToolFact);
  return b;
}

const PromptFacts& ReadFacts(const PromptFacts& f, PromptFacts* scratch) {
  if (!f.shared.store) return f;
  f.shared.store->Read(f.shared.entry, scratch);
  scratch->cache_control = f.cache_control;
  return *scratch;
}

size_t SegmentCount(const PromptFacts& f) {
  return f.shared.store ? f.shared.store->segment_count(f.shared.entry) : f.segments.size();
}

size_t PlainFactsBytes(const PromptFacts& f) {
  return kPlainFactsHeaderBytes +
         (f.shared.store ? f.shared.store->list_bytes(f.shared.entry) : f.bytes());
}

}  // namespace ltl
