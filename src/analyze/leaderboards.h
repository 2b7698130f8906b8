// Prefix leaderboards: the listed prefixes of the PrefixTree ranked two ways — by how many
// requests contain them and by their reusable volume (prefix tokens x (requests - 1)) — with the
// details a capacity review asks for (when seen, which models, how many carried a session id).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/request_record.h"
#include "simulate/trace.h"

namespace ltl {

struct PrefixRow {
  uint32_t node = 0;            // dense block id of the prefix's last block (not reported)
  int64_t tokens = 0;           // prefix length in tokens
  uint32_t blocks = 0;          // prefix length in blocks
  uint64_t requests = 0;        // requests containing the prefix
  int64_t reusable_tokens = 0;  // tokens x (requests - 1)
  double share = 0;             // reusable_tokens / Leaderboards::reusable_tokens
  int64_t own_tokens = 0;       // tokens beyond the nearest listed shorter prefix
  double own_share = 0;         // own_tokens x (requests - 1) / Leaderboards::reusable_tokens
  double first_seen_s = 0;      // time of the first / last request containing it (input clock)
  double last_seen_s = 0;
  std::map<std::string, uint64_t> models;  // model -> requests containing the prefix ("" unknown)
  uint64_t with_session_id = 0;  // of those requests, how many carried a session identifier
  uint64_t first_line = 0;       // input line/record of the first request containing it (not
                                 // reported; --show-prefix-text renders that row again)
  std::string text;              // first N characters, only with --show-prefix-text N
};

struct Leaderboards {
  // All reusable volume: the hit tokens of an unbounded replay of every request from a cold cache.
  int64_t reusable_tokens = 0;
  uint64_t listed_prefixes = 0;  // prefixes worth listing (branch points and ends in >= 2 requests)
  std::vector<PrefixRow> by_count;   // top N by requests, ties by longer prefix
  std::vector<PrefixRow> by_volume;  // top N by reusable_tokens, ties by more requests
};

// `reusable_tokens` is the denominator of every share (the cold unbounded replay's hit tokens).
Leaderboards BuildLeaderboards(const std::vector<RequestRecord>& records, const Trace& trace,
                               int64_t reusable_tokens, size_t top_n = 20);

}  // namespace ltl
