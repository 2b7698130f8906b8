// Eviction-policy sweep cost: FIFO, LRU and optimal at the 13 default GiB budgets of a model
// (default glm-5.2 at bf16), on a trace file or a generated trace, with wall time, the sum of task
// times, and peak RSS. The baseline, run in the same process, is one per-capacity LRU replay
// (ReplayLruAt, what peer simulators do per budget), so costs are stated as multiples of it.
//
//   build/policies_bench [--threads T] [--model ID] [--accesses N | TRACE.jsonl]
#include <sys/resource.h>

#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ingest/load_input.h"
#include "models/kv_models.h"
#include "simulate/eviction_policy.h"
#include "simulate/fifo_replay.h"
#include "simulate/lru_curve.h"
#include "simulate/lru_replay.h"
#include "simulate/next_use.h"
#include "simulate/optimal_replay.h"
#include "simulate/policy_sweep.h"
#include "simulate/routing_policy.h"
#include "simulate/trace.h"

namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point a) {
  return std::chrono::duration<double>(Clock::now() - a).count();
}

// CPU time of the calling thread: on a shared machine it moves far less with other load than
// wall time does, so single-threaded steps are timed with it.
double ThreadCpu() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// CPU time of the whole process (all threads), user + system.
double ProcessCpu() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

double PeakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// Chat-like conversations over 16-token blocks: one of 64 shared prefixes (Zipf-ish popularity),
// then a history that grows each turn and is resent whole; conversations interleave.
std::vector<ltl::RequestRecord> Generate(uint64_t target) {
  std::mt19937_64 rng(7);
  std::vector<std::vector<uint64_t>> prefixes(64);
  uint64_t next_id = 1;
  for (auto& p : prefixes)
    p.resize(20 + rng() % 200), std::generate(p.begin(), p.end(), [&] { return next_id++; });
  struct Conv {
    std::vector<uint64_t> ids;
    int turns_left;
    std::string key;
  };
  std::vector<Conv> live;
  std::vector<ltl::RequestRecord> out;
  uint64_t accesses = 0, conv_no = 0;
  double t = 0;
  while (accesses < target) {
    if (live.size() < 200) {
      size_t pick =
          std::min<size_t>(static_cast<size_t>(std::geometric_distribution<int>(0.15)(rng)), 63);
      live.push_back({prefixes[pick], 2 + static_cast<int>(rng() % 30), std::to_string(conv_no++)});
      continue;
    }
    size_t c = rng() % live.size();
    Conv& cv = live[c];
    for (int i = 0, g = 4 + static_cast<int>(rng() % 80); i < g; ++i) cv.ids.push_back(next_id++);
    ltl::RequestRecord r;
    r.time_s = (t += 0.01);
    r.has_time = true;
    r.block_size = 16;
    r.block_ids = cv.ids;
    r.input_tokens = static_cast<int64_t>(cv.ids.size()) * 16 - static_cast<int64_t>(rng() % 16);
    r.conversation = cv.key;
    accesses += cv.ids.size();
    out.push_back(std::move(r));
    if (--cv.turns_left == 0) live.erase(live.begin() + static_cast<std::ptrdiff_t>(c));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned threads = 2;
  uint64_t target = 20'000'000;
  std::string model = "glm-5.2", file;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = std::stoul(argv[++i]);
    else if (!std::strcmp(argv[i], "--accesses") && i + 1 < argc)
      target = std::stoull(argv[++i]);
    else if (!std::strcmp(argv[i], "--model") && i + 1 < argc)
      model = argv[++i];
    else
      file = argv[i];
  }
  auto m = ltl::FindKvModel(model);
  if (!m.ok()) return std::fprintf(stderr, "%s\n", m.status().message().c_str()), 2;
  const uint64_t bits = ltl::KvBitsPerToken(m->arch, ltl::KvPrecision::kBf16);

  auto t0 = Clock::now();
  ltl::Trace trace;
  std::string name = "generated chat (bs 16)";
  if (!file.empty()) {
    ltl::SkipCounter skips;
    ltl::IngestContext ctx;
    ctx.name = file;
    ctx.skips = &skips;
    auto loaded = ltl::LoadInput(file, ltl::InputFormat::kAuto, &ctx);
    if (!loaded.ok()) return std::fprintf(stderr, "%s\n", loaded.status().message().c_str()), 2;
    trace = ltl::BuildTrace(loaded->records);
    name = file.substr(file.rfind('/') + 1);
  } else {
    trace = ltl::BuildTrace(Generate(target));
  }
  const double load_s = Since(t0);
  const double rss_loaded = PeakRssMiB();

  std::vector<uint64_t> caps;
  for (double g : ltl::DefaultCacheGib())
    caps.push_back(ltl::KvCapacityBlocks(g, bits, trace.block_size));
  ltl::ReplayOptions opts;

  // Baseline: one LRU replay at one budget (16 GiB).
  double c0 = ThreadCpu();
  const ltl::HitTokens base_hit = ltl::ReplayLruAt(trace, caps[4], opts);
  const double baseline = ThreadCpu() - c0;

  // Per-policy task times, one thread, one replay at a time.
  c0 = ThreadCpu();
  const std::vector<uint32_t> next = ltl::ComputeNextUse(trace);
  const double next_use_s = ThreadCpu() - c0;
  double fifo_s = 0, opt_s = 0;
  for (uint64_t c : caps) {
    double a = ThreadCpu();
    ltl::ReplayFifoAt(trace, c, opts);
    fifo_s += ThreadCpu() - a;
    a = ThreadCpu();
    ltl::ReplayOptimalAt(trace, next, c, opts);
    opt_s += ThreadCpu() - a;
  }
  c0 = ThreadCpu();
  const ltl::LruCurve curve = ltl::LruCurve::Compute(trace, opts);
  const double lru_s = ThreadCpu() - c0;

  // The product path: the whole sweep on the thread pool.
  const double cpu0 = ProcessCpu();
  auto s0 = Clock::now();
  auto runs =
      ltl::RunPolicySweep(trace, opts,
                          {*ltl::FindEvictionPolicy("fifo"), *ltl::FindEvictionPolicy("lru"),
                           *ltl::FindEvictionPolicy("optimal")},
                          caps, threads);
  const double sweep_cpu = ProcessCpu() - cpu0;
  const double sweep_s = Since(s0);
  const bool agree =
      runs[13 + 4].result.hit.hit == base_hit.hit && curve.At(caps[4]).hit == base_hit.hit;

  std::printf(
      "%s: %zu requests, %.2fM block accesses, %.2fM distinct blocks, block %u tokens, "
      "%s %lu-%lu blocks; load %.2f s\n",
      name.c_str(), trace.requests.size(), trace.total_block_accesses() / 1e6,
      trace.num_blocks / 1e6, trace.block_size, model.c_str(),
      static_cast<unsigned long>(caps.front()), static_cast<unsigned long>(caps.back()), load_s);
  std::printf("  baseline: 1 LRU replay at 16 GiB          %8.3f s cpu  (= 1.0)\n", baseline);
  std::printf("  next-use precompute                       %8.3f s cpu  (%.2f)\n", next_use_s,
              next_use_s / baseline);
  std::printf("  lru  all 13 budgets (one-pass curve)      %8.3f s cpu  (%.2f)\n", lru_s,
              lru_s / baseline);
  std::printf("  fifo 13 replays, 1 thread                 %8.3f s cpu  (%.2f)\n", fifo_s,
              fifo_s / baseline);
  std::printf("  optimal 13 replays, 1 thread              %8.3f s cpu  (%.2f)\n", opt_s,
              opt_s / baseline);
  std::printf("  sweep fifo+lru+optimal x 13, %u threads    %8.3f s wall (%.2f)  %s\n", threads,
              sweep_s, sweep_s / baseline,
              agree ? "lru agrees with baseline" : "LRU DIFFERS FROM BASELINE");
  std::printf("  the sweep's process CPU time (all threads)  %8.3f s cpu  (%.2f)\n", sweep_cpu,
              sweep_cpu / baseline);
  std::printf("  peak RSS: %.0f MiB after load, %.0f MiB after the sweep\n", rss_loaded,
              PeakRssMiB());
  return agree ? 0 : 1;
}
