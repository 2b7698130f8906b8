// The "optimal" eviction policy: Belady's replacement with bypass on the prefix tree
// (optimal_replay.h), given the whole future of the trace. One replay per capacity over next uses
// computed once; not online, since a cache-aware router decides each worker's future as it goes.
#include <cassert>

#include "simulate/eviction_policy.h"
#include "simulate/next_use.h"
#include "simulate/optimal_replay.h"

namespace ltl {
namespace {

struct NextUses final : PreparedTrace {
  std::vector<uint32_t> next_use;
};

class OptimalPolicy final : public EvictionPolicy {
 public:
  std::string_view name() const override { return "optimal"; }
  std::string_view summary() const override {
    return "Belady's optimal replacement, knowing the future (the bound for any eviction policy)";
  }
  std::vector<std::string_view> aliases() const override { return {"belady"}; }
  bool one_pass() const override { return false; }
  bool slow() const override { return true; }
  std::unique_ptr<PreparedTrace> Prepare(const Trace& trace) const override {
    auto p = std::make_unique<NextUses>();
    p->next_use = ComputeNextUse(trace);
    return p;
  }
  std::vector<ReplayResult> Evaluate(const Trace& trace, const ReplayOptions& options,
                                     const std::vector<uint64_t>& capacities,
                                     const PreparedTrace* prepared) const override {
    std::unique_ptr<PreparedTrace> own;
    if (!prepared) prepared = (own = Prepare(trace)).get();
    const auto& next = static_cast<const NextUses*>(prepared)->next_use;
    std::vector<ReplayResult> out;
    for (uint64_t c : capacities) out.push_back(ReplayOptimalAt(trace, next, c, options));
    return out;
  }
  bool online() const override { return false; }
  std::unique_ptr<BlockCache> MakeCache(uint64_t, uint32_t) const override {
    assert(false && "optimal is not an online policy");
    return nullptr;
  }
};

}  // namespace

const EvictionPolicy& OptimalEviction() {
  static const OptimalPolicy policy;
  return policy;
}

}  // namespace ltl
