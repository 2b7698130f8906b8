// Fleet simulation cost: for cache-oblivious routing, per-worker one-pass curves (every per-worker
// capacity at once) against one fixed-route fleet replay per capacity (the straightforward method),
// in the same process; and the cost of one cache-aware replay per capacity for every cache-aware
// router (generic and named), as a ratio to prefix-aware's in the same run.
// Single-threaded, so the ratios compare work, not cores; times are the thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID), which other work on a shared machine disturbs less than wall time.
//
//   build/fleet_bench [--workers N] [--accesses N] [--routers A,B,...] [--repeat R]
//                     [TRACE.jsonl ...]
// --routers: only these cache-aware routers (prefix-aware, the baseline, always runs) and no
// cache-oblivious comparison (for profiling one router). --repeat R: each cache-aware replay R
// times, the fastest counted (less noise on a shared machine).
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "analyze/build_profile.h"
#include "ingest/load_input.h"
#include "simulate/eviction_policy.h"
#include "simulate/fleet_cache_aware.h"
#include "simulate/fleet_partition.h"
#include "simulate/fleet_routes.h"
#include "simulate/fleet_worker_cache.h"
#include "simulate/lru_curve.h"
#include "simulate/routing_policy.h"
#include "simulate/trace.h"

namespace {

// CPU seconds this thread has run.
double Now() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Agentic conversations with ids: a popular system prompt, then a history that grows every turn
// and is resent whole; 16-token blocks; conversations interleave in time.
std::vector<ltl::RequestRecord> Generate(uint64_t target_accesses) {
  std::mt19937_64 rng(42);
  std::vector<ltl::RequestRecord> out;
  std::uniform_int_distribution<int> turns(2, 40), grow(2, 60), sys_len(50, 300);
  std::geometric_distribution<int> popular(0.3);
  std::uniform_real_distribution<double> start(0, 3600), think(1, 30);
  uint64_t accesses = 0, next_id = 1, conv = 0;
  std::vector<std::vector<uint64_t>> systems(32);
  for (auto& s : systems) {
    int n = sys_len(rng);
    for (int i = 0; i < n; ++i) s.push_back(next_id++);
  }
  while (accesses < target_accesses) {
    std::vector<uint64_t> ids = systems[std::min<size_t>(popular(rng), systems.size() - 1)];
    int n = turns(rng);
    double t = start(rng);
    ++conv;
    for (int k = 0; k < n && accesses < target_accesses; ++k) {
      int g = grow(rng);
      for (int i = 0; i < g; ++i) ids.push_back(next_id++);
      ltl::RequestRecord r;
      r.time_s = (t += think(rng));
      r.has_time = true;
      r.block_size = 16;
      r.input_tokens = static_cast<int64_t>(ids.size()) * 16;
      r.output_tokens = 200;
      r.block_ids = ids;
      r.conversation = std::to_string(conv);
      accesses += ids.size();
      out.push_back(std::move(r));
    }
  }
  return out;
}

// The baseline: one replay of the whole fleet per capacity, routes fixed in advance.
int64_t FixedRouteReplay(const ltl::Trace& trace, const std::vector<uint32_t>& routes,
                         uint32_t workers, uint64_t capacity, size_t first_measured) {
  std::vector<ltl::WorkerCache> caches(workers, ltl::WorkerCache(capacity, trace.num_blocks));
  int64_t hit = 0;
  ltl::BlockCursor cursor(trace);
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const ltl::TraceRequest& r = trace.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    ltl::WorkerCache& c = caches[routes[i]];
    if (i >= first_measured) hit += ltl::HitTokenCount(r, c.Match(ids, r.num_blocks));
    for (uint32_t j = r.num_blocks; j-- > 0;) c.Touch(ids[j]);
  }
  return hit;
}

void Measure(const std::string& name, const ltl::Trace& trace, uint32_t workers,
             const std::string& only, int repeat) {
  auto wanted = [&](std::string_view router) {
    if (only.empty() || router == "prefix-aware") return true;
    for (size_t at = 0; at <= only.size();) {
      size_t comma = only.find(',', at);
      if (comma == std::string::npos) comma = only.size();
      if (std::string_view(only).substr(at, comma - at) == router) return true;
      at = comma + 1;
    }
    return false;
  };
  ltl::ReplayOptions replay;
  ltl::FleetOptions o;
  o.workers = workers;
  o.threads = 1;
  const uint64_t bs = std::max<uint32_t>(trace.block_size, 1);
  for (uint64_t tok : ltl::DefaultCapacityTokens()) o.capacity_blocks.push_back(tok / bs);
  o.capacity_blocks.push_back(ltl::kUnboundedCapacity);
  const double accesses = static_cast<double>(trace.total_block_accesses());
  const size_t first = ltl::FirstMeasured(trace.requests.size(), replay.warmup);
  std::printf("%s: %.1fM accesses, %zu requests, %u workers, %zu per-worker capacities\n",
              name.c_str(), accesses / 1e6, trace.requests.size(), workers,
              o.capacity_blocks.size());
  for (const ltl::RoutingPolicy* p :
       {*ltl::FindRoutingPolicy("round-robin"), *ltl::FindRoutingPolicy("session")}) {
    if (!only.empty()) break;
    ltl::StaticRoutes routes = p->AsStatic()->Route(trace, o);
    const double t0 = Now();
    std::vector<ltl::FleetPoint> points = ltl::EvaluateStaticRoutes(trace, routes, replay, o);
    double curves = Now() - t0;
    double replays = 0;
    bool agree = true;
    for (size_t c = 0; c < o.capacity_blocks.size(); ++c) {
      const double a = Now();
      int64_t h = FixedRouteReplay(trace, routes.worker, workers, o.capacity_blocks[c], first);
      replays += Now() - a;
      agree = agree && h == points[c].hit_tokens;
    }
    std::printf(
        "  %-12s per-worker curves %7.3f s | %zu fixed-route replays %7.3f s | ratio "
        "%.2fx | %s\n",
        std::string(p->name()).c_str(), curves, o.capacity_blocks.size(), replays, replays / curves,
        agree ? "results agree" : "RESULTS DIFFER");
  }
  // Every cache-aware router, generic and named (a named router whose view is text routes on
  // block ids here: the trace is hashed), one replay per capacity; the ratio is against
  // prefix-aware's cost measured in the same run.
  const int64_t out = 200;
  double baseline = 0;
  for (const ltl::RoutingPolicy* p : ltl::RoutingPolicies()) {
    const ltl::CacheAwareRouter* router = p->AsCacheAware();
    if (!router || !wanted(p->name())) continue;
    double total = 0;
    for (uint64_t cap : o.capacity_blocks) {
      double best = 0;
      for (int k = 0; k < repeat; ++k) {
        const double a = Now();
        ltl::SimulateCacheAware(trace, *router, cap, replay, o, out);
        const double t = Now() - a;
        best = k == 0 ? t : std::min(best, t);
      }
      total += best;
    }
    double each = total / static_cast<double>(o.capacity_blocks.size());
    if (p->name() == "prefix-aware") baseline = each;
    std::printf(
        "  %-20s one replay per capacity: %7.3f s each (%5.1f M accesses/s), %7.3f s for all | "
        "%.2fx prefix-aware\n",
        std::string(p->name()).c_str(), each, accesses / each / 1e6, total,
        baseline > 0 ? each / baseline : 0.0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t target = 20'000'000;
  uint32_t workers = 8;
  std::vector<std::string> files;
  std::string only;
  int repeat = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--accesses") == 0 && i + 1 < argc)
      target = std::stoull(argv[++i]);
    else if (std::strcmp(argv[i], "--workers") == 0 && i + 1 < argc)
      workers = static_cast<uint32_t>(std::stoul(argv[++i]));
    else if (std::strcmp(argv[i], "--routers") == 0 && i + 1 < argc)
      only = argv[++i];
    else if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
      repeat = std::max(1, std::stoi(argv[++i]));
    else
      files.push_back(argv[i]);
  }
  for (const std::string& f : files) {
    ltl::SkipCounter skips;
    ltl::IngestContext ctx;
    ctx.name = f;
    ctx.skips = &skips;
    auto loaded = ltl::LoadInput(f, ltl::InputFormat::kAuto, &ctx);
    if (!loaded.ok()) {
      std::fprintf(stderr, "%s\n", loaded.status().message().c_str());
      return 2;
    }
    auto slash = f.rfind('/');
    Measure(slash == std::string::npos ? f : f.substr(slash + 1), ltl::BuildTrace(loaded->records),
            workers, only, repeat);
  }
  if (target > 0)
    Measure("generated agentic (bs 16)", ltl::BuildTrace(Generate(target)), workers, only, repeat);
  return 0;
}
