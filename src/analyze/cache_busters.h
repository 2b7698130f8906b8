// Cache busters: where and why each request's prompt stops matching the earlier request it should
// have reused (docs/SEMANTICS.md, "Cache busters"). For every request: its best earlier match (the
// longest shared block prefix with any earlier request, from the block trie: dense ids numbered
// by first appearance) and, in a conversation, the previous turn, whose prompt it would ideally
// extend. Where the shared prefix ends before the last block of both prompts, that is a break,
// placed in the rendered segment where the two prompts' segment digests first differ and the token
// offset inside it. Positions, categories and counts only: no text reaches this stage.
#pragma once

#include <cstdint>
#include <vector>

#include "common/request_record.h"
#include "simulate/trace.h"

namespace ltl {

inline constexpr uint32_t kNoRequest = 0xffffffffu;

struct Divergence {
  uint32_t best_match = kNoRequest;     // trace index of the earlier request sharing the most
  uint32_t best_shared = 0;             // blocks shared with it: an unbounded cache's hits
  uint32_t previous_turn = kNoRequest;  // the conversation's previous request (trace index)
  uint32_t reference = kNoRequest;      // compared with: previous_turn, else best_match
  uint32_t shared = 0;                  // leading blocks shared with the reference
  bool is_break = false;  // shared ends before both prompts' last block (neither simply ended)
  int32_t segment = -1;   // the request's segment (facts index) where the prompts diverge
  int32_t reference_segment = -1;  // the reference's segment at the same place
  uint32_t token_offset = 0;       // tokens from that segment's start to the end of `shared`
};

// One Divergence per trace request (replay order). `records` are the trace's records.
std::vector<Divergence> FindDivergences(const Trace& trace,
                                        const std::vector<RequestRecord>& records);

// Index of the first segment where two requests' facts differ (kind, role or digest; one list
// ending first counts as a difference), or -1 when either has no segments or they are equal.
int32_t FirstDifferingSegment(const PromptFacts& a, const PromptFacts& b, bool masked = false);
// The segment holding token `token` (the last whose start is <= token; -1 when there are none).
int32_t SegmentAtToken(const PromptFacts& f, uint64_t token);

}  // namespace ltl
