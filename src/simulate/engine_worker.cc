// EngineWorker (see engine_worker.h): the in-time driver of one engine pool.
#include "simulate/engine_worker.h"

#include <algorithm>

namespace ltl {
namespace {

uint64_t CeilDiv(int64_t a, int64_t b) {
  return a <= 0 ? 0 : static_cast<uint64_t>((a + b - 1) / b);
}

}  // namespace

uint64_t EngineTotalBlocks(const TraceRequest& r) {
  return CeilDiv(r.input_tokens + std::max<int64_t>(r.output_tokens, 0),
                 std::max<uint32_t>(r.block_size, 1));
}

uint64_t EnginePoolBlocks(const Trace& t, uint64_t capacity_blocks,
                          const std::vector<uint32_t>* requests) {
  uint64_t all = 1;
  auto add = [&](const TraceRequest& r) {
    if (!r.replay_only) all += EngineTotalBlocks(r);
  };
  if (requests) {
    for (uint32_t i : *requests) add(t.requests[i]);
  } else {
    for (const TraceRequest& r : t.requests) add(r);
  }
  return std::min(capacity_blocks, all);
}

EngineWorker::EngineWorker(const Trace& t, const KvEngine& engine, const EngineOptions& eo,
                           uint64_t pool_blocks, size_t first_measured, EngineReplayResult* out)
    : t_(t),
      eo_(eo),
      first_measured_(first_measured),
      out_(out),
      pool_(engine.MakePool(t, pool_blocks)),
      cursor_(t) {}

PoolRequest EngineWorker::Describe(const TraceRequest& r, const uint32_t* ids) const {
  const int64_t bs = std::max<uint32_t>(r.block_size, 1);
  PoolRequest pr;
  pr.ids = ids;
  pr.full_blocks = std::min<uint64_t>(r.num_blocks, static_cast<uint64_t>(r.input_tokens / bs));
  pr.max_hit_blocks =
      std::min<uint64_t>(pr.full_blocks, r.input_tokens > 0 ? (r.input_tokens - 1) / bs : 0);
  pr.total_blocks = EngineTotalBlocks(r);
  pr.sequence_full_blocks =
      static_cast<uint64_t>((r.input_tokens + std::max<int64_t>(r.output_tokens, 0)) / bs);
  return pr;
}

uint64_t EngineWorker::Match(const TraceRequest& r, const uint32_t* ids) const {
  return pool_->Match(Describe(r, ids));
}

void EngineWorker::ReleaseUntil(double now) {
  while (!running_.empty() && running_.top().finish_s <= now) {
    pool_->Release(running_.top().handle);
    reserved_blocks_ -= running_.top().blocks;
    running_.pop();
  }
}

// Admits from the head of the queue at `now` while the head fits; completions at `now` (a request
// that took no time) are released first.
void EngineWorker::Admit(double now) {
  while (!waiting_.empty()) {
    ReleaseUntil(now);
    const uint32_t i = waiting_.front();
    const TraceRequest& r = t_.requests[i];
    const int64_t bs = std::max<uint32_t>(r.block_size, 1);
    const PoolRequest pr = Describe(r, cursor_.Blocks(r));
    uint64_t hit_blocks = 0;
    if (running_.size() >= eo_.max_num_seqs || !pool_->TryAdmit(pr, next_handle_, &hit_blocks)) {
      if (!running_.empty() && running_.top().finish_s <= now) continue;
      return;
    }
    waiting_.pop_front();
    const int64_t hit_tokens =
        std::min<int64_t>(static_cast<int64_t>(hit_blocks) * bs, r.input_tokens);
    const double uncached = static_cast<double>(r.input_tokens - hit_tokens);
    const double prefill = eo_.load.prefill_rate > 0 ? uncached / eo_.load.prefill_rate : 0;
    double first_token = 0, finish = 0;
    const double logged = t_.LoggedDuration(i);
    if (logged >= 0) {
      finish = now + logged;
      first_token = std::min(finish, now + prefill);
    } else {
      const double decode =
          eo_.load.decode_rate > 0
              ? static_cast<double>(std::max<int64_t>(r.output_tokens, 0)) / eo_.load.decode_rate
              : 0;
      double start = now;
      if (eo_.load.prefill_queue) {
        start = std::max(now, prefill_free_s_);
        prefill_free_s_ = start + prefill;
      }
      first_token = start + prefill;
      finish = first_token + decode;
    }
    const auto blocks = static_cast<int64_t>(pr.total_blocks);
    running_.push({finish, next_handle_++, blocks});
    out_->max_running = std::max<uint64_t>(out_->max_running, running_.size());
    if (i >= first_measured_) {
      out_->hit.hit += hit_tokens;
      out_->measured_tokens += r.input_tokens;
      ++out_->measured_requests;
      out_->waiting_s.push_back(now - r.time_s);
    }
    if (on_admit_) on_admit_(i, hit_blocks, first_token, finish);
  }
}

void EngineWorker::AdvanceTo(double now) {
  while (!running_.empty() && running_.top().finish_s <= now) {
    const double at = running_.top().finish_s;
    ReleaseUntil(at);
    Admit(at);
  }
}

bool EngineWorker::Arrive(uint32_t i) {
  const TraceRequest& r = t_.requests[i];
  if (EngineTotalBlocks(r) > eo_.capacity_blocks) {
    ++out_->too_large;
    return false;
  }
  waiting_.push_back(i);
  reserved_blocks_ += static_cast<int64_t>(EngineTotalBlocks(r));
  Admit(r.time_s);
  return true;
}

void EngineWorker::Drain() {
  while (!waiting_.empty() && !running_.empty()) {
    const double at = running_.top().finish_s;
    ReleaseUntil(at);
    Admit(at);
  }
}

}  // namespace ltl
