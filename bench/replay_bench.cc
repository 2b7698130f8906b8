// Replay throughput: the one-pass LRU curve against one per-capacity LRU replay per default
// capacity (the peers' method), in the same process, on the public traces (when present) and on a
// generated agentic trace of at least 50M block accesses.
//
//   build/replay_bench [--accesses N] [TRACE.jsonl ...]
//
// Prints block accesses per second for each method and the ratio (per-capacity total / one-pass),
// in this thread's CPU time, best of 3 runs per method.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "analyze/build_profile.h"
#include "ingest/load_input.h"
#include "simulate/lru_curve.h"
#include "simulate/lru_replay.h"
#include "simulate/trace.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// This thread's CPU time: other engineers' builds share the 2 cores, and wall time would charge
// their work to ours.
double CpuNow() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Agentic conversations: a system prompt shared by many (skewed popularity), then a history that
// grows every turn and is resent whole; 16-token blocks.
std::vector<ltl::RequestRecord> Generate(uint64_t target_accesses) {
  std::mt19937_64 rng(42);
  std::vector<ltl::RequestRecord> out;
  std::uniform_int_distribution<int> turns(2, 40), grow(2, 60), sys_len(50, 300);
  std::geometric_distribution<int> popular(0.3);
  uint64_t accesses = 0, next_id = 1;
  double t = 0;
  std::vector<std::vector<uint64_t>> systems(32);
  for (auto& s : systems) {
    int n = sys_len(rng);
    for (int i = 0; i < n; ++i) s.push_back(next_id++);
  }
  while (accesses < target_accesses) {
    std::vector<uint64_t> ids = systems[std::min<size_t>(popular(rng), systems.size() - 1)];
    int n = turns(rng);
    for (int k = 0; k < n && accesses < target_accesses; ++k) {
      int g = grow(rng);
      for (int i = 0; i < g; ++i) ids.push_back(next_id++);
      ltl::RequestRecord r;
      r.time_s = (t += 0.01);
      r.has_time = true;
      r.block_size = 16;
      r.input_tokens = static_cast<int64_t>(ids.size()) * 16;
      r.output_tokens = 100;
      r.block_ids = ids;
      accesses += ids.size();
      out.push_back(std::move(r));
    }
  }
  return out;
}

void Measure(const std::string& name, const ltl::Trace& trace) {
  ltl::ReplayOptions opts;
  const double accesses = static_cast<double>(trace.total_block_accesses());
  // Best of 3 for each method (thread CPU time).
  double one_pass = 1e30;
  ltl::LruCurve curve;
  for (int rep = 0; rep < 3; ++rep) {
    double t0 = CpuNow();
    curve = ltl::LruCurve::Compute(trace, opts);
    one_pass = std::min(one_pass, CpuNow() - t0);
  }

  std::vector<uint64_t> caps;
  for (uint64_t tok : ltl::DefaultCapacityTokens()) caps.push_back(tok / trace.block_size);
  caps.push_back(trace.num_blocks);  // unbounded
  double per_capacity = 0;
  bool agree = true;
  for (uint64_t c : caps) {
    double best = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      double a = CpuNow();
      ltl::HitTokens h = ltl::ReplayLruAt(trace, c, opts);
      best = std::min(best, CpuNow() - a);
      agree = agree && h.hit == curve.At(c).hit;
    }
    per_capacity += best;
  }
  std::printf(
      "%-28s %6.1fM accesses %6zu K blocks | one-pass %7.3f s %7.1f M acc/s | "
      "%zu per-capacity replays %7.3f s (%.1f M acc/s each) | ratio %.2fx = one-pass "
      "costs %.2f per-capacity replays | %s\n",
      name.c_str(), accesses / 1e6, static_cast<size_t>(trace.num_blocks / 1000), one_pass,
      accesses / one_pass / 1e6, caps.size(), per_capacity,
      accesses * caps.size() / per_capacity / 1e6, per_capacity / one_pass,
      one_pass / (per_capacity / static_cast<double>(caps.size())),
      agree ? "results agree" : "RESULTS DIFFER");
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t target = 50'000'000;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--accesses") == 0 && i + 1 < argc)
      target = std::stoull(argv[++i]);
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
    ltl::Trace trace = ltl::BuildTrace(loaded->records);
    auto slash = f.rfind('/');
    Measure(slash == std::string::npos ? f : f.substr(slash + 1), trace);
  }
  auto g0 = Clock::now();
  ltl::Trace generated = ltl::BuildTrace(Generate(target));
  std::printf("(generated %zu requests in %.1f s)\n", generated.requests.size(),
              Seconds(g0, Clock::now()));
  Measure("generated agentic", generated);
  return 0;
}
