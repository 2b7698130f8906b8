// RunPolicySweep (see policy_sweep.h): a fixed task list on RunParallel; results land in
// preallocated slots, so no locking is needed.
#include "simulate/policy_sweep.h"

#include <functional>
#include <memory>

#include "common/parallel_jobs.h"

namespace ltl {

uint64_t DistinctBlocksBeforeMeasured(const Trace& trace, const ReplayOptions& options) {
  return DistinctBlocksBefore(trace, FirstMeasuredIndex(trace, options));
}

std::vector<PolicyRun> RunPolicySweep(const Trace& trace, const ReplayOptions& options,
                                      const std::vector<const EvictionPolicy*>& policies,
                                      const std::vector<uint64_t>& capacities, unsigned threads) {
  std::vector<PolicyRun> runs;
  for (const EvictionPolicy* p : policies)
    for (uint64_t c : capacities) runs.push_back(PolicyRun{p, c, {}});

  std::vector<std::unique_ptr<PreparedTrace>> prepared;
  for (const EvictionPolicy* p : policies) prepared.push_back(p->Prepare(trace));

  std::vector<std::function<void()>> slow_tasks, tasks;
  const size_t n = capacities.size();
  for (size_t k = 0; k < policies.size(); ++k) {
    const EvictionPolicy* p = policies[k];
    PolicyRun* first = runs.data() + k * n;
    const PreparedTrace* prep = prepared[k].get();
    if (p->one_pass()) {
      tasks.push_back([&trace, &options, &capacities, p, first, prep] {
        std::vector<ReplayResult> r = p->Evaluate(trace, options, capacities, prep);
        for (size_t c = 0; c < r.size(); ++c) first[c].result = r[c];
      });
      continue;
    }
    for (size_t c = 0; c < n; ++c) {
      PolicyRun* run = first + c;
      (p->slow() ? slow_tasks : tasks).push_back([&trace, &options, p, run, prep] {
        run->result = p->Evaluate(trace, options, {run->capacity_blocks}, prep).front();
      });
    }
  }
  tasks.insert(tasks.begin(), slow_tasks.begin(), slow_tasks.end());
  RunParallel(tasks.size(), threads, [&tasks](size_t t) { tasks[t](); });
  return runs;
}

}  // namespace ltl
