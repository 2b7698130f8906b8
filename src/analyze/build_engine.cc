// BuildEngineRows (see build_engine.h).
#include "analyze/build_engine.h"

#include <algorithm>
#include <cmath>

#include "common/parallel_jobs.h"

namespace ltl {

void BuildEngineRows(const Trace& trace, const ReplayOptions& replay, const EngineRun& run,
                     Profile* p) {
  p->engine.engine = std::string(run.engine->name());
  std::vector<EngineReplayResult> results(p->curve.size());
  RunParallel(p->curve.size(), run.threads, [&](size_t i) {
    EngineOptions eo = run.options;
    eo.capacity_blocks = p->curve[i].capacity_blocks;
    results[i] = RunEngineReplay(trace, replay, *run.engine, eo);
  });
  p->engine.rows.clear();
  for (size_t i = 0; i < p->curve.size(); ++i) {
    CurveRow& c = p->curve[i];
    EngineReplayResult& r = results[i];
    c.engine = p->engine.engine;
    c.hit = r.hit;
    c.measured_tokens = r.measured_tokens;
    EnginePoolRow row;
    row.capacity_blocks = c.capacity_blocks;
    row.hit_tokens = r.hit.hit;
    row.measured_tokens = r.measured_tokens;
    row.evictions = r.evictions;
    row.too_large = r.too_large;
    row.max_running = r.max_running;
    const WaitingSummary w = SummarizeWaiting(std::move(r.waiting_s));
    row.waiting_p50_s = w.p50_s;
    row.waiting_p95_s = w.p95_s;
    row.waiting_max_s = w.max_s;
    row.waited = w.waited;
    p->engine.rows.push_back(row);
  }
}

}  // namespace ltl
