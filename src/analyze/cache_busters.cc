// FindDivergences and the segment lookups (see cache_busters.h).
#include "analyze/cache_busters.h"

#include <algorithm>

#include "common/facts_store.h"
#include "common/huge_pages.h"

namespace ltl {
namespace {

// Blocks before a request's last one: its whole blocks when the last is partial, as it usually is
// (a record does not say whether its last block is full).
uint64_t LeadingBlocks(const TraceRequest& r) {
  return r.num_blocks > 0 ? r.num_blocks - 1 : 0;
}

}  // namespace

int32_t FirstDifferingSegment(const PromptFacts& a, const PromptFacts& b, bool masked) {
  if (a.segments.empty() || b.segments.empty()) return -1;
  const size_t n = std::min(a.segments.size(), b.segments.size());
  for (size_t i = 0; i < n; ++i) {
    const SegmentFact& x = a.segments[i];
    const SegmentFact& y = b.segments[i];
    if (x.kind != y.kind || x.role != y.role ||
        (masked ? x.masked_digest != y.masked_digest : x.digest != y.digest))
      return static_cast<int32_t>(i);
  }
  if (a.segments.size() != b.segments.size()) return static_cast<int32_t>(n);
  return -1;
}

int32_t SegmentAtToken(const PromptFacts& f, uint64_t token) {
  if (f.segments.empty()) return -1;
  auto it = std::upper_bound(f.segments.begin(), f.segments.end(), token,
                             [](uint64_t t, const SegmentFact& s) { return t < s.token_start; });
  if (it == f.segments.begin()) return 0;
  return static_cast<int32_t>(it - f.segments.begin() - 1);
}

std::vector<Divergence> FindDivergences(const Trace& trace,
                                        const std::vector<RequestRecord>& records) {
  std::vector<Divergence> out(trace.requests.size());
  // Per dense block: the latest request holding it, and the latest holding it and a block after
  // it (so a match that went further than the shared prefix is found when one exists).
  // One entry per distinct block: advised for huge pages before they are filled (huge_pages.h).
  std::vector<uint32_t> last_holder, last_continuer;
  ResizeHuge(&last_holder, trace.num_blocks, kNoRequest);
  ResizeHuge(&last_continuer, trace.num_blocks, kNoRequest);
  std::vector<uint32_t> last_of_conversation(trace.num_conversations, kNoRequest);
  BlockCursor cur_cursor(trace), ref_cursor(trace);
  PromptFacts cur_facts, ref_facts;  // ReadFacts's scratch
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& tr = trace.requests[i];
    Divergence& d = out[i];
    const uint32_t* b = cur_cursor.Blocks(tr);
    uint32_t k = 0;
    while (k < tr.num_blocks && last_holder[b[k]] != kNoRequest) ++k;
    d.best_shared = k;
    if (k > 0) {
      const uint32_t cont = last_continuer[b[k - 1]];
      d.best_match = cont != kNoRequest ? cont : last_holder[b[k - 1]];
    }
    if (tr.conversation >= 0) {
      uint32_t& last = last_of_conversation[static_cast<size_t>(tr.conversation)];
      d.previous_turn = last;
      last = static_cast<uint32_t>(i);
    }
    d.reference = d.previous_turn != kNoRequest ? d.previous_turn : d.best_match;
    if (d.reference != kNoRequest) {
      const TraceRequest& ref = trace.requests[d.reference];
      if (d.reference == d.best_match) {
        d.shared = k;
      } else {
        const uint32_t* rb = ref_cursor.Blocks(ref);
        const uint32_t n = std::min(tr.num_blocks, ref.num_blocks);
        uint32_t s = 0;
        while (s < n && rb[s] == b[s]) ++s;
        d.shared = s;
      }
      d.is_break = d.shared < LeadingBlocks(ref) && d.shared < LeadingBlocks(tr);
      if (d.is_break) {
        const PromptFacts& cf = ReadFacts(records[tr.record].facts, &cur_facts);
        const PromptFacts& rf = ReadFacts(records[ref.record].facts, &ref_facts);
        const uint64_t at = static_cast<uint64_t>(d.shared) * tr.block_size;
        int32_t seg = FirstDifferingSegment(cf, rf);
        if (seg < 0 || static_cast<size_t>(seg) >= cf.segments.size()) seg = SegmentAtToken(cf, at);
        d.segment = seg;
        if (seg >= 0) {
          const uint32_t start = cf.segments[static_cast<size_t>(seg)].token_start;
          d.token_offset = at > start ? static_cast<uint32_t>(at - start) : 0;
          d.reference_segment = static_cast<size_t>(seg) < rf.segments.size()
                                    ? seg
                                    : static_cast<int32_t>(rf.segments.size()) - 1;
        }
      }
    }
    for (uint32_t j = 0; j < tr.num_blocks; ++j) {
      last_holder[b[j]] = static_cast<uint32_t>(i);
      if (j + 1 < tr.num_blocks) last_continuer[b[j]] = static_cast<uint32_t>(i);
    }
  }
  return out;
}

}  // namespace ltl
