// EvictionPolicy: one way a block cache chooses what to drop, as a plug-in registered by name
// (eviction_registry.cc). A policy answers two questions: the hit tokens of a whole trace at a list
// of capacities (Evaluate: LRU from its one-pass curve, the others with one replay per capacity),
// and, for fleets whose router watches the worker caches, an online cache (MakeCache) that a fleet
// replay drives request by request. `--policies` and `--worker-policy` accept exactly the
// registered names.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "simulate/replay_options.h"
#include "simulate/replay_tally.h"
#include "simulate/trace.h"

namespace ltl {

// A cache replayed online: Match, then Admit, for each request in replay order.
class BlockCache {
 public:
  virtual ~BlockCache() = default;
  // Leading blocks of ids[0..n) cached now (no state change).
  virtual uint32_t Match(const uint32_t* ids, uint32_t n) const = 0;
  // The request whose first `hit` blocks were cached has been served: update the cache with its
  // blocks (touch, insert, evict) as the policy does, visiting them in `order` where it matters.
  virtual void Admit(const uint32_t* ids, uint32_t n, uint32_t hit, EvictOrder order) = 0;
  virtual uint64_t size() const = 0;  // blocks cached
};

// Per-trace state shared by the replays of every capacity (e.g. optimal's next uses).
class PreparedTrace {
 public:
  virtual ~PreparedTrace() = default;
};

class EvictionPolicy {
 public:
  virtual ~EvictionPolicy() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;  // one line for --help and list messages
  virtual std::vector<std::string_view> aliases() const { return {}; }

  // True when Evaluate covers every capacity in one pass (one sweep task), false when it replays
  // each capacity (one task per capacity).
  virtual bool one_pass() const = 0;
  // Replays of this policy are slow: a sweep starts them first so its tail is short.
  virtual bool slow() const { return false; }
  // State every capacity's replay of `trace` shares, computed once before the tasks (may be null).
  virtual std::unique_ptr<PreparedTrace> Prepare(const Trace& trace) const {
    (void)trace;
    return nullptr;
  }
  // The replay result at each capacity (blocks), in the order given. `prepared` is Prepare(trace).
  virtual std::vector<ReplayResult> Evaluate(const Trace& trace, const ReplayOptions& options,
                                             const std::vector<uint64_t>& capacities,
                                             const PreparedTrace* prepared) const = 0;

  // Whether MakeCache works: a policy that needs the future (optimal) cannot run online, because a
  // cache-aware router decides each worker's future as it goes.
  virtual bool online() const = 0;
  // An empty online cache of `capacity_blocks`; block ids are below `dense_blocks` when it is > 0
  // (the cache may then index them with an array), else arbitrary. Only when online().
  virtual std::unique_ptr<BlockCache> MakeCache(uint64_t capacity_blocks,
                                                uint32_t dense_blocks) const = 0;
};

// One replay of `trace` through an online cache (empty at the start) of `capacity_blocks`: each
// request's hit is the cache's Match, then Admit. `hit_blocks`, when given, receives every
// request's hit length in blocks (measured or not).
ReplayResult ReplayOnlineCache(const Trace& trace, uint64_t capacity_blocks,
                               const ReplayOptions& options, BlockCache* cache,
                               std::vector<uint32_t>* hit_blocks = nullptr);

// The shape of an online policy (fifo, sieve): the cache is all there is; its whole-trace
// evaluation is one ReplayOnlineCache per capacity, so the rule is written once.
class OnlinePolicy : public EvictionPolicy {
 public:
  bool one_pass() const override { return false; }
  std::vector<ReplayResult> Evaluate(const Trace& trace, const ReplayOptions& options,
                                     const std::vector<uint64_t>& capacities,
                                     const PreparedTrace* /*prepared*/) const final {
    std::vector<ReplayResult> out;
    out.reserve(capacities.size());
    for (uint64_t c : capacities)
      out.push_back(ReplayOnlineCache(trace, c, options, MakeCache(c, trace.num_blocks).get()));
    return out;
  }
  bool online() const final { return true; }
};

// The shape of an offline policy (optimal, radix-lru): data prepared once from the whole trace and
// shared by every capacity, then one replay per capacity over it. Not online: such a policy needs
// the trace (the future, or its prefix tree) before the first request.
template <typename Data>
class PreparedReplayPolicy : public EvictionPolicy {
 public:
  bool one_pass() const override { return false; }
  bool slow() const override { return true; }
  std::unique_ptr<PreparedTrace> Prepare(const Trace& trace) const override {
    auto p = std::make_unique<Prepared>();
    p->data = PrepareData(trace);
    return p;
  }
  std::vector<ReplayResult> Evaluate(const Trace& trace, const ReplayOptions& options,
                                     const std::vector<uint64_t>& capacities,
                                     const PreparedTrace* prepared) const override {
    std::unique_ptr<PreparedTrace> own;
    if (!prepared) prepared = (own = Prepare(trace)).get();
    const Data& data = static_cast<const Prepared*>(prepared)->data;
    std::vector<ReplayResult> out;
    out.reserve(capacities.size());
    for (uint64_t c : capacities) out.push_back(ReplayAt(trace, data, c, options));
    return out;
  }
  bool online() const override { return false; }
  std::unique_ptr<BlockCache> MakeCache(uint64_t, uint32_t) const override { return nullptr; }

 protected:
  virtual Data PrepareData(const Trace& trace) const = 0;
  virtual ReplayResult ReplayAt(const Trace& trace, const Data& data, uint64_t capacity_blocks,
                                const ReplayOptions& options) const = 0;

 private:
  struct Prepared final : PreparedTrace {
    Data data;
  };
};

// Every registered policy, in report order.
const std::vector<const EvictionPolicy*>& EvictionPolicies();
// By name or alias, case-insensitive; an error listing the registered names when unknown.
Result<const EvictionPolicy*> FindEvictionPolicy(std::string_view name);
// "lru,fifo" (no repeats) -> policies in the given order.
Result<std::vector<const EvictionPolicy*>> ParseEvictionList(std::string_view text);
// "fifo, lru, optimal": the registered names, for help texts.
std::string EvictionPolicyNames();

// The registered policies the rest of the code names directly (defaults).
const EvictionPolicy& LruEviction();
const EvictionPolicy& FifoEviction();
const EvictionPolicy& RadixLruEviction();  // "radix-lru": SGLang's radix-tree LRU
// The policy the headline LRU figures use under `engine` (LruEviction or RadixLruEviction).
const EvictionPolicy& HeadlineLru(LruEngine engine);

}  // namespace ltl
