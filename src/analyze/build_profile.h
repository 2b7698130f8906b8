// BuildProfile: runs the replays a profile needs over a Trace (the one-pass LRU curve in steady
// state and cold, the AIPerf figure) and gathers the distributions into a Profile.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "analyze/profile.h"
#include "common/request_record.h"
#include "hash/first_use.h"
#include "simulate/fleet_options.h"
#include "simulate/replay_options.h"
#include "simulate/trace.h"

namespace ltl {

struct CapacitySpec {
  std::vector<uint64_t> tokens;  // capacities asked for in tokens (converted with the block size)
  std::vector<uint64_t> blocks;  // capacities asked for in blocks
};

// The default capacities: 16K, 64K, 256K, 1M, 4M, 16M tokens.
std::vector<uint64_t> DefaultCapacityTokens();

// Fills the replay and distribution parts of *p (input description fields are the caller's).
// With `fleet`, also simulates the fleet (p->fleet). `threads` (0 = every core, 1 = this thread
// only) bounds the analyses run side by side; the figures do not depend on it. With
// `exact_unbounded` (the Dask driver's shuffle, hash/first_use.h), the ceiling and the cold
// ceiling are the figures it returns for the trace's keys: exact even on a sampled trace (their
// error estimates 0). Its error leaves the replay's figures; the hook's owner ends the run.
// The caller's own analyses of the same immutable trace share the threads (issue 30: the
// single-threaded tail after reading): `side_jobs` run from the start, beside the two LRU curves,
// the distributions and the AIPerf figure; `after_curves` once *p holds the curve's final figures
// (ceiling, measured tokens, saturation, after `exact_unbounded`), beside the prefix
// leaderboards; `lead_jobs` like side jobs but taken before the curves (at one thread they end
// before the curves start: jobs that free memory, issue 30's peak RSS). Each job writes only its
// own outputs.
void BuildProfile(const std::vector<RequestRecord>& records, const Trace& trace,
                  const ReplayOptions& options, const CapacitySpec& capacities, Profile* p,
                  const FleetOptions* fleet = nullptr, unsigned threads = 1,
                  const FirstUseHook* exact_unbounded = nullptr,
                  const std::vector<std::function<void()>>& side_jobs = {},
                  const std::vector<std::function<void()>>& after_curves = {},
                  const std::vector<std::function<void()>>& lead_jobs = {});

}  // namespace ltl
