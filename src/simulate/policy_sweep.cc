// RunPolicySweep (see policy_sweep.h): a fixed task list drained by std::threads through an atomic
// cursor; results land in preallocated slots, so no locking is needed.
#include "simulate/policy_sweep.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <functional>
#include <thread>

#include "simulate/fifo_replay.h"
#include "simulate/lru_curve.h"
#include "simulate/next_use.h"
#include "simulate/optimal_replay.h"

namespace ltl {

std::string_view PolicyName(EvictionPolicy p) {
  switch (p) {
    case EvictionPolicy::kFifo:
      return "fifo";
    case EvictionPolicy::kLru:
      return "lru";
    case EvictionPolicy::kOptimal:
      return "optimal";
  }
  return "?";
}

Result<std::vector<EvictionPolicy>> ParsePolicyList(std::string_view text) {
  std::vector<EvictionPolicy> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    std::string name(text.substr(start, end - start));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EvictionPolicy p;
    if (name == "fifo")
      p = EvictionPolicy::kFifo;
    else if (name == "lru")
      p = EvictionPolicy::kLru;
    else if (name == "optimal" || name == "belady")
      p = EvictionPolicy::kOptimal;
    else
      return Status::InvalidArgument("unknown eviction policy '" + name +
                                     "' (expected fifo, lru, optimal)");
    if (std::find(out.begin(), out.end(), p) != out.end())
      return Status::InvalidArgument("eviction policy '" + name + "' given twice");
    out.push_back(p);
    start = end + 1;
  }
  return out;
}

uint64_t DistinctBlocksBeforeMeasured(const Trace& trace, const ReplayOptions& options) {
  // Dense ids are numbered in order of first appearance in replay order, so the blocks seen before
  // request f are exactly the ids below the largest id seen so far, plus one.
  const size_t f = FirstMeasuredIndex(trace, options.warmup);
  uint64_t distinct = 0;
  BlockCursor cursor(trace);
  for (size_t i = 0; i < f; ++i) {
    const TraceRequest& r = trace.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    for (uint32_t j = 0; j < r.num_blocks; ++j)
      distinct = std::max<uint64_t>(distinct, ids[j] + 1ull);
  }
  return distinct;
}

std::vector<PolicyRun> RunPolicySweep(const Trace& trace, const ReplayOptions& options,
                                      const std::vector<EvictionPolicy>& policies,
                                      const std::vector<uint64_t>& capacities, unsigned threads) {
  std::vector<PolicyRun> runs;
  for (EvictionPolicy p : policies)
    for (uint64_t c : capacities) runs.push_back(PolicyRun{p, c, {}});

  const bool want_optimal =
      std::find(policies.begin(), policies.end(), EvictionPolicy::kOptimal) != policies.end();
  std::vector<uint32_t> next_use;
  if (want_optimal) next_use = ComputeNextUse(trace);

  // Tasks: one for the whole LRU curve, one per FIFO / optimal run. Optimal runs first: they are
  // the slowest, so starting them early shortens the tail.
  std::vector<std::function<void()>> tasks;
  std::vector<size_t> lru_runs;
  for (size_t i = 0; i < runs.size(); ++i) {
    PolicyRun* run = &runs[i];
    switch (run->policy) {
      case EvictionPolicy::kOptimal:
        tasks.insert(tasks.begin(), [&trace, &next_use, &options, run] {
          run->result = ReplayOptimalAt(trace, next_use, run->capacity_blocks, options);
        });
        break;
      case EvictionPolicy::kFifo:
        tasks.push_back([&trace, &options, run] {
          run->result = ReplayFifoAt(trace, run->capacity_blocks, options);
        });
        break;
      case EvictionPolicy::kLru:
        lru_runs.push_back(i);
        break;
    }
  }
  if (!lru_runs.empty()) {
    tasks.push_back([&trace, &options, &runs, &lru_runs] {
      const LruCurve curve = LruCurve::Compute(trace, options);
      const uint64_t warm = DistinctBlocksBeforeMeasured(trace, options);
      const bool cold = FirstMeasuredIndex(trace, options.warmup) == 0;
      for (size_t i : lru_runs) {
        PolicyRun& run = runs[i];
        run.result.hit = curve.At(run.capacity_blocks);
        run.result.measured_tokens = curve.measured_tokens();
        run.result.measured_requests = curve.measured_requests();
        // LRU inserts every touched block, so its occupancy is min(distinct seen, capacity).
        run.result.underfilled = (cold ? trace.num_blocks : warm) < run.capacity_blocks;
      }
    });
  }

  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<size_t>(threads, tasks.size()));
  std::atomic<size_t> cursor{0};
  auto drain = [&] {
    for (size_t t = cursor++; t < tasks.size(); t = cursor++) tasks[t]();
  };
  if (threads <= 1) {
    drain();
  } else {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(drain);
  }
  return runs;
}

}  // namespace ltl
