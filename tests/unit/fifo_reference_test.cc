// FIFO replay against a reference written separately here (std::deque of insertion order and a
// std::set of cached ids, hit tokens summed block by block), on random traces that include
// repeated blocks, blocks reached through different prefixes, partial last blocks, conversations
// and a warm-up window.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <random>
#include <set>

#include "common/request_record.h"
#include "simulate/fifo_replay.h"
#include "simulate/trace.h"

namespace ltl {
namespace {

struct Reference {
  int64_t hit = 0, across = 0, measured = 0;
};

Reference ReferenceFifo(const std::vector<RequestRecord>& recs, size_t capacity, double warmup) {
  // Records are already in time order with distinct times, so replay order = vector order.
  Reference out;
  std::deque<uint64_t> order;
  std::set<uint64_t> cached;
  std::map<uint64_t, std::set<std::string>> users;  // conversations that used each block
  const size_t first = static_cast<size_t>(static_cast<double>(recs.size()) * warmup);
  for (size_t i = 0; i < recs.size(); ++i) {
    const RequestRecord& r = recs[i];
    if (i >= first) {
      out.measured += r.input_tokens;
      for (size_t j = 0; j < r.block_ids.size() && cached.count(r.block_ids[j]); ++j) {
        const int64_t lo = std::min<int64_t>(j * r.block_size, r.input_tokens);
        const int64_t hi = std::min<int64_t>((j + 1) * r.block_size, r.input_tokens);
        out.hit += hi - lo;
        const auto& u = users[r.block_ids[j]];
        if (u.size() > 1 || (u.size() == 1 && *u.begin() != r.conversation)) out.across += hi - lo;
      }
    }
    for (uint64_t id : r.block_ids) {
      if (cached.count(id) || capacity == 0) continue;
      if (cached.size() == capacity) {
        cached.erase(order.front());
        order.pop_front();
      }
      order.push_back(id);
      cached.insert(id);
    }
    for (uint64_t id : r.block_ids) users[id].insert(r.conversation);
  }
  return out;
}

TEST(FifoReplay, MatchesAnIndependentReference) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    const int n = 5 + static_cast<int>(rng() % 40);
    const int distinct = 3 + static_cast<int>(rng() % 30);
    std::vector<RequestRecord> recs;
    for (int i = 0; i < n; ++i) {
      RequestRecord r;
      r.time_s = i;
      r.has_time = true;
      r.block_size = 4;
      const int k = 1 + static_cast<int>(rng() % 6);
      for (int j = 0; j < k; ++j) r.block_ids.push_back(rng() % distinct);
      r.input_tokens = 4 * (k - 1) + 1 + static_cast<int64_t>(rng() % 4);  // partial last block
      r.conversation = std::string(1, static_cast<char>('a' + rng() % 3));
      recs.push_back(r);
    }
    const Trace trace = BuildTrace(recs);
    for (uint64_t cap : {0, 1, 2, 3, 5, 8, 13, 40}) {
      for (double warmup : {0.0, 0.5}) {
        ReplayOptions o;
        o.warmup = warmup;
        const ReplayResult got = ReplayFifoAt(trace, cap, o);
        const Reference want = ReferenceFifo(recs, cap, warmup);
        ASSERT_EQ(got.hit.hit, want.hit) << "round " << round << " cap " << cap;
        ASSERT_EQ(got.hit.across, want.across) << "round " << round << " cap " << cap;
        ASSERT_EQ(got.measured_tokens, want.measured);
      }
    }
  }
}

}  // namespace
}  // namespace ltl
