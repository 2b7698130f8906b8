// The "optimal" eviction policy: Belady's replacement with bypass on the prefix tree
// (optimal_replay.h), given the whole future of the trace. One replay per capacity over next uses
// computed once; not online, since a cache-aware router decides each worker's future as it goes.
#include "simulate/eviction_policy.h"
#include "simulate/next_use.h"
#include "simulate/optimal_replay.h"

namespace ltl {
namespace {

class OptimalPolicy final : public PreparedReplayPolicy<std::vector<uint32_t>> {
 public:
  std::string_view name() const override { return "optimal"; }
  std::string_view summary() const override {
    return "Belady's optimal replacement, knowing the future (the bound for any eviction policy)";
  }
  std::vector<std::string_view> aliases() const override { return {"belady"}; }

 private:
  std::vector<uint32_t> PrepareData(const Trace& trace) const override {
    return ComputeNextUse(trace);
  }
  ReplayResult ReplayAt(const Trace& trace, const std::vector<uint32_t>& next_use,
                        uint64_t capacity_blocks, const ReplayOptions& options) const override {
    return ReplayOptimalAt(trace, next_use, capacity_blocks, options);
  }
};

}  // namespace

const EvictionPolicy& OptimalEviction() {
  static const OptimalPolicy policy;
  return policy;
}

}  // namespace ltl
