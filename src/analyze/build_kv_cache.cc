// BuildKvCacheSection (see build_kv_cache.h).
#include "analyze/build_kv_cache.h"

#include <algorithm>
#include <thread>

#include "simulate/lru_curve.h"

namespace ltl {

bool WantsKvCacheSection(const KvCacheRequest& request) {
  return request.memory.has_value() ||
         request.policies != std::vector<const EvictionPolicy*>{&LruEviction()};
}

void BuildKvCacheSection(const Trace& trace, const ReplayOptions& options,
                         const KvCacheRequest& request, const CapacitySpec& fallback, Profile* p) {
  KvCacheSection& s = p->kv_cache;
  s = KvCacheSection{};
  s.present = true;
  const uint32_t bs = std::max<uint32_t>(trace.block_size, 1);

  // The capacity list, ascending by blocks, each with how it was asked for.
  struct Capacity {
    uint64_t blocks = 0, tokens = 0;
    double gib = 0;
  };
  std::vector<Capacity> caps;
  if (request.memory) {
    s.has_memory = true;
    s.memory = *request.memory;
    for (double g : request.gib) {
      uint64_t blocks = KvCapacityBlocks(g, request.memory->bits_per_token, bs);
      caps.push_back({blocks, blocks * bs, g});
    }
  } else {
    for (uint64_t t : fallback.tokens) caps.push_back({t / bs, t, 0});
    for (uint64_t b : fallback.blocks) caps.push_back({b, b * bs, 0});
  }
  std::stable_sort(caps.begin(), caps.end(),
                   [](const Capacity& a, const Capacity& b) { return a.blocks < b.blocks; });

  std::vector<uint64_t> blocks;
  blocks.reserve(caps.size());
  for (const Capacity& c : caps) blocks.push_back(c.blocks);
  s.threads = request.threads ? request.threads : std::max(1u, std::thread::hardware_concurrency());
  // --eviction sglang: the "lru" asked for is the radix-tree LRU (once, if both were asked).
  std::vector<const EvictionPolicy*> policies;
  for (const EvictionPolicy* pol : request.policies) {
    const EvictionPolicy* use = pol == &LruEviction() ? &HeadlineLru(options.lru) : pol;
    if (std::find(policies.begin(), policies.end(), use) == policies.end()) policies.push_back(use);
  }
  for (const EvictionPolicy* pol : policies) s.policies.emplace_back(pol->name());
  if (trace.sampled()) {
    // Sampled (the pipeline allows only the flat LRU then): the rows are the one-pass curve's,
    // read at the scaled capacities, each with its error estimate.
    const LruCurve curve = LruCurve::Compute(trace, options);
    for (const Capacity& c : caps) {
      CurveRow row;
      row.capacity_blocks = c.blocks;
      row.capacity_tokens = c.tokens;
      row.capacity_gib = c.gib;
      row.hit = curve.At(c.blocks);
      row.measured_tokens = curve.measured_tokens();
      row.error_points = curve.ErrorPoints(c.blocks);
      s.rows.push_back(row);
    }
    return;
  }
  std::vector<PolicyRun> runs = RunPolicySweep(trace, options, policies, blocks, s.threads);

  for (size_t i = 0; i < runs.size(); ++i) {
    const PolicyRun& run = runs[i];
    const Capacity& c = caps[i % caps.size()];
    CurveRow row;
    row.policy = std::string(run.policy->name());
    row.headline = run.policy == &HeadlineLru(options.lru);
    row.capacity_blocks = c.blocks;
    row.capacity_tokens = c.tokens;
    row.capacity_gib = c.gib;
    row.hit = run.result.hit;
    row.measured_tokens = run.result.measured_tokens;
    row.underfilled = run.result.underfilled;
    s.rows.push_back(row);
  }
}

}  // namespace ltl
