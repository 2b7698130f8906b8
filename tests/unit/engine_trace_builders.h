// Test helper for the engine KV pool tests (engine_pool_test.cc, engine_radix_sglang_test.cc,
// fleet_engine_test.cc): traces built from compact literals {arrival s, block ids, input tokens,
// output tokens, logged duration s}, block size 4, lines numbered from 1, every arrival timed; the
// cold replay options (warm-up 0, every request measured) and the single pool replayed on them.
#pragma once

#include <cstdint>
#include <vector>

#include "common/request_record.h"
#include "simulate/engine_pool.h"
#include "simulate/replay_options.h"
#include "simulate/trace.h"
#include "trace_builder.h"

namespace ltl::testing {

inline constexpr uint32_t kEngineTestBlockSize = 4;

struct EngineReq {
  double t;
  std::vector<uint64_t> ids;
  int64_t input;
  int64_t output;
  double duration;  // copied to duration_s as is (a negative one is "not logged")
};

inline Trace EngineTrace(const std::vector<EngineReq>& reqs) {
  std::vector<RequestRecord> recs;
  uint64_t line = 1;
  for (const EngineReq& r : reqs) {
    RequestRecord rec = TimedRecord(line++, r.t, r.ids, kEngineTestBlockSize, r.input);
    rec.output_tokens = r.output;
    rec.duration_s = r.duration;
    recs.push_back(rec);
  }
  return BuildTrace(recs);
}

inline ReplayOptions Cold() {
  ReplayOptions o;
  o.warmup = 0;
  return o;
}

// The single pool of `capacity` blocks under `engine`, replayed cold.
inline EngineReplayResult ReplayEnginePool(const KvEngine& engine,
                                           const std::vector<EngineReq>& reqs, uint64_t capacity,
                                           uint32_t max_seqs = EngineOptions{}.max_num_seqs) {
  EngineOptions eo;
  eo.capacity_blocks = capacity;
  eo.max_num_seqs = max_seqs;
  return RunEngineReplay(EngineTrace(reqs), Cold(), engine, eo);
}

// 40 requests half a second apart, no output: blocks 1, 2 shared by all, then 1 to 5 blocks of one
// of 7 suffix families (request k: family k % 7, k % 5 + 1 blocks), the input one token short of
// its full blocks, logged durations of 3 to 6 s.
inline std::vector<EngineReq> SharedPrefixRequests() {
  std::vector<EngineReq> reqs;
  for (int k = 0; k < 40; ++k) {
    std::vector<uint64_t> ids = {1, 2};
    for (int j = 0; j <= k % 5; ++j) ids.push_back(100 + 10 * (k % 7) + j);
    reqs.push_back({k * 0.5, ids, static_cast<int64_t>(ids.size()) * 4 - 1, 0, 3.0 + (k % 4)});
  }
  return reqs;
}

}  // namespace ltl::testing
