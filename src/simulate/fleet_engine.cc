// Fleets of engine KV pools (see fleet_engine.h).
#include "simulate/fleet_engine.h"

#include <algorithm>
#include <memory>

#include "simulate/engine_pool.h"
#include "simulate/engine_worker.h"

namespace ltl {
namespace {

EngineOptions WorkerEngineOptions(const FleetOptions& options, uint64_t capacity_blocks) {
  EngineOptions eo;
  eo.capacity_blocks = capacity_blocks;
  eo.max_num_seqs = options.max_num_seqs;
  eo.load = options.load;
  return eo;
}

// A point from each worker's pool result.
FleetPoint Collect(uint64_t capacity_blocks, std::vector<EngineReplayResult>* per_worker) {
  FleetPoint p;
  p.capacity_blocks = capacity_blocks;
  std::vector<double> waiting;
  for (EngineReplayResult& r : *per_worker) {
    p.hit_tokens += r.hit.hit;
    p.measured_tokens += r.measured_tokens;
    p.requests.push_back(r.measured_requests);
    p.uncached_tokens.push_back(r.measured_tokens - r.hit.hit);
    p.evictions += r.evictions;
    p.too_large += r.too_large;
    waiting.insert(waiting.end(), r.waiting_s.begin(), r.waiting_s.end());
  }
  const WaitingSummary w = SummarizeWaiting(std::move(waiting));
  p.waiting_p50_s = w.p50_s;
  p.waiting_p95_s = w.p95_s;
  return p;
}

}  // namespace

std::vector<FleetPoint> EvaluateStaticRoutesOnEngines(const Trace& trace,
                                                      const StaticRoutes& routes,
                                                      const ReplayOptions& replay,
                                                      const FleetOptions& options) {
  const uint32_t n = options.workers;
  std::vector<std::vector<uint32_t>> positions(n);
  for (size_t i = 0; i < trace.requests.size(); ++i)
    positions[routes.worker[i]].push_back(static_cast<uint32_t>(i));
  std::vector<FleetPoint> out;
  for (uint64_t c : options.capacity_blocks) {
    std::vector<EngineReplayResult> per_worker;
    for (uint32_t w = 0; w < n; ++w)
      per_worker.push_back(RunEngineReplay(trace, replay, *options.engine,
                                           WorkerEngineOptions(options, c), &positions[w]));
    out.push_back(Collect(c, &per_worker));
  }
  return out;
}

FleetPoint SimulateCacheAwareOnEngines(const Trace& trace, const CacheAwareRouter& router,
                                       uint64_t capacity_blocks, const ReplayOptions& replay,
                                       const FleetOptions& options) {
  const uint32_t n = options.workers;
  const EngineOptions eo = WorkerEngineOptions(options, capacity_blocks);
  const uint64_t pool_blocks = EnginePoolBlocks(trace, capacity_blocks);
  const size_t first_measured = FirstMeasuredIndex(trace, replay);
  std::vector<EngineReplayResult> results(n);
  std::vector<std::unique_ptr<EngineWorker>> workers;
  const std::unique_ptr<RouterRun> run = router.Start(trace, options);
  for (uint32_t w = 0; w < n; ++w) {
    workers.push_back(std::make_unique<EngineWorker>(trace, *options.engine, eo, pool_blocks,
                                                     first_measured, &results[w]));
    workers[w]->set_on_admit([&trace, &run, w](uint32_t i, uint64_t hit_blocks,
                                               double first_token_s, double finish_s) {
      const TraceRequest& r = trace.requests[i];
      const int64_t hit = std::min<int64_t>(
          static_cast<int64_t>(hit_blocks) * std::max<uint32_t>(r.block_size, 1), r.input_tokens);
      run->Admitted(i, w, r.input_tokens - hit, first_token_s, finish_s);
    });
  }
  std::vector<uint32_t> match(n, 0);
  std::vector<int64_t> in_flight(n, 0), reserved(n, 0);
  WorkerView view{&match, &in_flight, &reserved};
  uint64_t guard = 0;
  std::vector<uint32_t> routes;
  BlockCursor cursor(trace);
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& r = trace.requests[i];
    // Cache pre-population entries (cctrace --warm-prefix) are not requests an engine runs: the
    // pools replay requests only, as the single pool does.
    if (r.replay_only) {
      if (options.keep_routes) routes.push_back(0);
      continue;
    }
    const uint32_t* ids = cursor.Blocks(r);
    for (uint32_t w = 0; w < n; ++w) {
      EngineWorker& e = *workers[w];
      e.AdvanceTo(r.time_s);
      match[w] = static_cast<uint32_t>(e.Match(r, ids));
      in_flight[w] = static_cast<int64_t>(e.queued() + e.running());
      reserved[w] = e.reserved_blocks();
    }
    const RouteChoice choice = run->Choose(i, view);
    if (choice.guard) ++guard;
    if (options.keep_routes) routes.push_back(choice.worker);
    workers[choice.worker]->Arrive(static_cast<uint32_t>(i));
  }
  for (uint32_t w = 0; w < n; ++w) {
    workers[w]->Drain();
    results[w].evictions = workers[w]->evictions();
  }
  FleetPoint p = Collect(capacity_blocks, &results);
  p.guard_triggers = guard;
  p.routes = std::move(routes);
  return p;
}

HitTokens PooledEngineBound(const Trace& trace, const ReplayOptions& replay,
                            const FleetOptions& options, uint64_t capacity_blocks) {
  return RunEngineReplay(trace, replay, *options.engine,
                         WorkerEngineOptions(options, capacity_blocks))
      .hit;
}

}  // namespace ltl
