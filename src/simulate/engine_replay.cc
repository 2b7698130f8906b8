// RunEngineReplay (see engine_pool.h): requests in flight in time over one engine pool.
#include <algorithm>
#include <deque>
#include <queue>

#include "simulate/engine_pool.h"

namespace ltl {
namespace {

struct Running {
  double finish_s;
  uint64_t handle;  // admission sequence: ties at an instant complete in admission order
  bool operator>(const Running& o) const {
    return finish_s != o.finish_s ? finish_s > o.finish_s : handle > o.handle;
  }
};

uint64_t CeilDiv(int64_t a, int64_t b) {
  return a <= 0 ? 0 : static_cast<uint64_t>((a + b - 1) / b);
}

}  // namespace

EngineReplayResult RunEngineReplay(const Trace& t, const ReplayOptions& options,
                                   const KvEngine& engine, const EngineOptions& eo,
                                   const std::vector<uint32_t>* requests) {
  EngineReplayResult out;
  out.capacity_blocks = eo.capacity_blocks;
  const size_t first_measured = FirstMeasuredIndex(t, options);
  const size_t n = requests ? requests->size() : t.requests.size();
  auto position = [&](size_t k) { return requests ? (*requests)[k] : static_cast<uint32_t>(k); };
  // A pool larger than every request's blocks together never reuses a cached block: replay that
  // many (an unbounded size allocates nothing it cannot use).
  uint64_t all_blocks = 1;
  for (size_t k = 0; k < n; ++k) {
    const TraceRequest& r = t.requests[position(k)];
    all_blocks += CeilDiv(r.input_tokens + std::max<int64_t>(r.output_tokens, 0),
                          std::max<uint32_t>(r.block_size, 1));
  }
  std::unique_ptr<PoolModel> pool = engine.MakePool(t, std::min(eo.capacity_blocks, all_blocks));

  BlockCursor cursor(t);
  std::priority_queue<Running, std::vector<Running>, std::greater<Running>> running;
  std::deque<uint32_t> waiting;  // positions in t.requests, arrival order
  uint64_t next_handle = 0;
  double prefill_free_s = -1e300;  // the prefill queue: when the engine is next free to prefill

  auto release_until = [&](double now) {
    while (!running.empty() && running.top().finish_s <= now) {
      pool->Release(running.top().handle);
      running.pop();
    }
  };
  // Admits from the head of the queue at `now` while the head fits; completions at `now` (a
  // request that took no time) are released first.
  auto admit = [&](double now) {
    while (!waiting.empty()) {
      release_until(now);
      const uint32_t i = waiting.front();
      const TraceRequest& r = t.requests[i];
      const int64_t bs = std::max<uint32_t>(r.block_size, 1);
      PoolRequest pr;
      pr.ids = cursor.Blocks(r);
      pr.full_blocks = std::min<uint64_t>(r.num_blocks, static_cast<uint64_t>(r.input_tokens / bs));
      pr.max_hit_blocks =
          std::min<uint64_t>(pr.full_blocks, r.input_tokens > 0 ? (r.input_tokens - 1) / bs : 0);
      pr.total_blocks = CeilDiv(r.input_tokens + std::max<int64_t>(r.output_tokens, 0), bs);
      uint64_t hit_blocks = 0;
      if (running.size() >= eo.max_num_seqs || !pool->TryAdmit(pr, next_handle, &hit_blocks)) {
        if (!running.empty() && running.top().finish_s <= now) continue;
        return;
      }
      waiting.pop_front();
      const int64_t hit_tokens =
          std::min<int64_t>(static_cast<int64_t>(hit_blocks) * bs, r.input_tokens);
      double finish = 0;
      const double logged = t.LoggedDuration(i);
      if (logged >= 0) {
        finish = now + logged;
      } else {
        const double uncached = static_cast<double>(r.input_tokens - hit_tokens);
        const double prefill = eo.load.prefill_rate > 0 ? uncached / eo.load.prefill_rate : 0;
        const double decode =
            eo.load.decode_rate > 0
                ? static_cast<double>(std::max<int64_t>(r.output_tokens, 0)) / eo.load.decode_rate
                : 0;
        double start = now;
        if (eo.load.prefill_queue) {
          start = std::max(now, prefill_free_s);
          prefill_free_s = start + prefill;
        }
        finish = start + prefill + decode;
      }
      running.push({finish, next_handle++});
      out.max_running = std::max<uint64_t>(out.max_running, running.size());
      if (i >= first_measured) {
        out.hit.hit += hit_tokens;
        out.measured_tokens += r.input_tokens;
        ++out.measured_requests;
        out.waiting_s.push_back(now - r.time_s);
      }
    }
  };

  for (size_t k = 0; k < n; ++k) {
    const uint32_t i = position(k);
    const TraceRequest& r = t.requests[i];
    if (r.replay_only) continue;
    const double now = r.time_s;
    // Every instant before this arrival at which requests complete: release, then admit.
    while (!running.empty() && running.top().finish_s <= now) {
      const double at = running.top().finish_s;
      release_until(at);
      admit(at);
    }
    const int64_t bs = std::max<uint32_t>(r.block_size, 1);
    if (CeilDiv(r.input_tokens + std::max<int64_t>(r.output_tokens, 0), bs) > eo.capacity_blocks) {
      ++out.too_large;
      continue;
    }
    waiting.push_back(i);
    admit(now);
  }
  while (!waiting.empty() && !running.empty()) {
    const double at = running.top().finish_s;
    release_until(at);
    admit(at);
  }
  out.evictions = pool->evictions();
  return out;
}

}  // namespace ltl
