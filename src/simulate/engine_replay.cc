// RunEngineReplay (see engine_pool.h): requests in flight in time over one engine pool.
#include <algorithm>
#include <cmath>

#include "simulate/engine_pool.h"
#include "simulate/engine_worker.h"

namespace ltl {

WaitingSummary SummarizeWaiting(std::vector<double> waiting) {
  WaitingSummary w;
  if (waiting.empty()) return w;
  std::sort(waiting.begin(), waiting.end());
  auto rank = [&](double q) {
    const auto k = static_cast<size_t>(std::ceil(q * static_cast<double>(waiting.size())));
    return waiting[std::clamp<size_t>(k, 1, waiting.size()) - 1];
  };
  w.p50_s = rank(0.5);
  w.p95_s = rank(0.95);
  w.max_s = waiting.back();
  w.waited = static_cast<uint64_t>(
      std::count_if(waiting.begin(), waiting.end(), [](double x) { return x > 0; }));
  return w;
}

EngineReplayResult RunEngineReplay(const Trace& t, const ReplayOptions& options,
                                   const KvEngine& engine, const EngineOptions& eo,
                                   const std::vector<uint32_t>* requests) {
  EngineReplayResult out;
  out.capacity_blocks = eo.capacity_blocks;
  const size_t n = requests ? requests->size() : t.requests.size();
  auto position = [&](size_t k) { return requests ? (*requests)[k] : static_cast<uint32_t>(k); };
  EngineWorker worker(t, engine, eo, EnginePoolBlocks(t, eo.capacity_blocks, requests),
                      FirstMeasuredIndex(t, options), &out);
  for (size_t k = 0; k < n; ++k) {
    const uint32_t i = position(k);
    const TraceRequest& r = t.requests[i];
    if (r.replay_only) continue;
    worker.AdvanceTo(r.time_s);
    worker.Arrive(i);
  }
  worker.Drain();
  out.evictions = worker.evictions();
  return out;
}

}  // namespace ltl
