// Dynamo's KV router pieces (see fleet_dynamo_kv.h).
#include "simulate/fleet_dynamo_kv.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace ltl {

double DynamoLogit(const DynamoKvConfig& config, const DynamoWorkerLoad& load, int64_t isl_tokens,
                   uint32_t block_size) {
  const int64_t bs = std::max<uint32_t>(block_size, 1);
  const int64_t cached = static_cast<int64_t>(load.overlap_blocks) * bs;
  const int64_t uncached = isl_tokens - std::min(cached, isl_tokens);
  const double raw_prefill_blocks =
      static_cast<double>(load.active_prefill_tokens + uncached + cached) / static_cast<double>(bs);
  const double credit = config.overlap_score_credit * static_cast<double>(load.overlap_blocks);
  const double prefill = config.prefill_load_scale * std::max(0.0, raw_prefill_blocks - credit);
  const double decode = static_cast<double>(load.active_blocks + load.additional_blocks);
  const double requests =
      config.decode_active_request_weight * static_cast<double>(load.active_requests);
  return prefill + decode + requests;
}

uint32_t DynamoPick(const std::vector<double>& logits, double temperature, uint64_t draw) {
  const uint32_t n = static_cast<uint32_t>(logits.size());
  const auto [lo, hi] = std::minmax_element(logits.begin(), logits.end());
  const double min = *lo, max = *hi;
  if (temperature == 0) {
    std::vector<uint32_t> tied;
    for (uint32_t w = 0; w < n; ++w)
      if (logits[w] == min) tied.push_back(w);
    const unsigned __int128 pick = static_cast<unsigned __int128>(draw) * tied.size();
    return tied[static_cast<size_t>(pick >> 64)];
  }
  std::vector<double> p(n, 1.0 / n);
  if (min != max) {
    // Dynamo's arithmetic: logits scaled by -1 / ((max - min) T), shifted so the minimum is 0.
    const double scale = -1.0 / ((max - min) * temperature);
    const double top = min * scale;
    for (uint32_t w = 0; w < n; ++w) p[w] = std::exp(logits[w] * scale - top);
  }
  double sum = 0;
  for (double x : p) sum += x;
  const double u = static_cast<double>(draw >> 11) * 0x1p-53;
  double cumulative = 0;
  for (uint32_t w = 0; w < n; ++w) {
    cumulative += p[w] / sum;
    if (u <= cumulative) return w;
  }
  return n - 1;
}

WorkerBlockCounts::WorkerBlockCounts(uint32_t workers, uint32_t num_ids) : num_ids_(num_ids) {
  const uint64_t cells = static_cast<uint64_t>(workers) * num_ids;
  if (cells <= kDenseCountCells) dense_.assign(cells, 0);
}

uint32_t WorkerBlockCounts::Get(uint32_t worker, uint32_t id) const {
  const uint64_t key = Key(worker, id);
  if (!dense_.empty() && dense_[key] != kOverflow) return dense_[key];
  auto it = sparse_.find(key);
  return (dense_.empty() ? 0 : kOverflow) + (it == sparse_.end() ? 0 : it->second);
}

uint32_t WorkerBlockCounts::AddSparse(uint64_t key, int delta) {
  auto it = sparse_.try_emplace(key, 0).first;
  const uint32_t v = it->second += delta;
  if (v == 0) sparse_.erase(it);
  return v;
}

uint32_t WorkerBlockCounts::Add(uint32_t worker, uint32_t id, int delta) {
  const uint64_t key = Key(worker, id);
  if (dense_.empty()) return AddSparse(key, delta);
  uint8_t& c = dense_[key];
  if (c != kOverflow) {
    c = static_cast<uint8_t>(c + delta);  // 254 + 1 reaches 255 with nothing past it
    return c;
  }
  // 255 and more: 255 here, the rest in the map; leaving the map when it would go below 0.
  auto it = sparse_.find(key);
  if (it == sparse_.end()) {
    if (delta > 0) {
      sparse_.emplace(key, 1);
      return kOverflow + 1;
    }
    c = kOverflow - 1;
    return c;
  }
  return kOverflow + AddSparse(key, delta);
}

int64_t WorkerBlockCounts::AddEach(uint32_t worker, const uint32_t* ids, uint32_t n, int delta) {
  const uint32_t edge = delta > 0 ? 1 : 0;  // the count after a change that moves blocks
  int64_t moved = 0;
  if (dense_.empty()) {
    for (uint32_t j = 0; j < n; ++j) moved += Add(worker, ids[j], delta) == edge;
    return moved;
  }
  // One worker's row: counts below 254 change in place; the rest take Add's overflow path.
  uint8_t* row = dense_.data() + static_cast<uint64_t>(worker) * num_ids_;
  for (uint32_t j = 0; j < n; ++j) {
    uint8_t& c = row[ids[j]];
    if (c < kOverflow - 1 && (delta > 0 || c > 0)) {
      c = static_cast<uint8_t>(c + delta);
      moved += c == edge;
    } else {
      moved += Add(worker, ids[j], delta) == edge;
    }
  }
  return moved;
}

uint32_t WorkerBlockCounts::LeadingHeld(uint32_t worker, const uint32_t* ids, uint32_t n) const {
  uint32_t k = 0;
  if (dense_.empty()) {
    while (k < n && Get(worker, ids[k]) > 0) ++k;
    return k;
  }
  const uint8_t* row = dense_.data() + static_cast<uint64_t>(worker) * num_ids_;
  while (k < n && row[ids[k]] != 0) ++k;  // 255 (overflow) is held too
  return k;
}

DynamoActiveLoad::DynamoActiveLoad(uint32_t workers, uint32_t num_ids)
    : counts_(workers, num_ids),
      prefill_tokens_(workers, 0),
      blocks_(workers, 0),
      requests_(workers, 0) {}

void DynamoActiveLoad::Add(uint32_t worker, const uint32_t* ids, uint32_t n,
                           int64_t prefill_tokens) {
  blocks_[worker] += counts_.AddEach(worker, ids, n, 1);
  prefill_tokens_[worker] += prefill_tokens;
  ++requests_[worker];
}

void DynamoActiveLoad::PrefillDone(uint32_t worker, int64_t prefill_tokens) {
  prefill_tokens_[worker] -= prefill_tokens;
}

void DynamoActiveLoad::Free(uint32_t worker, const uint32_t* ids, uint32_t n) {
  blocks_[worker] -= counts_.AddEach(worker, ids, n, -1);
  --requests_[worker];
}

uint32_t DynamoActiveLoad::ActivePrefix(uint32_t worker, const uint32_t* ids, uint32_t n) const {
  if (blocks_[worker] == 0) return 0;  // nothing in flight there: no walk
  return counts_.LeadingHeld(worker, ids, n);
}

namespace {
// std heap order: a < b when b goes first (earlier expiry; then deeper, larger id, larger worker).
template <typename T>
bool GoesLater(const T& a, const T& b) {
  if (a.expiry != b.expiry) return a.expiry > b.expiry;
  return std::tie(a.position, a.id, a.worker) < std::tie(b.position, b.id, b.worker);
}
}  // namespace

DynamoApproxIndex::DynamoApproxIndex(double ttl_s, uint64_t max_size, double prune_ratio)
    : ttl_s_(ttl_s), max_size_(max_size), ratio_(prune_ratio) {}

bool DynamoApproxIndex::PopTimer() {
  std::pop_heap(heap_.begin(), heap_.end(), GoesLater<Timer>);
  const Timer t = heap_.back();
  heap_.pop_back();
  auto it = entries_.find(Key(t.worker, t.id));
  if (it == entries_.end() || it->second.expiry != t.expiry) return false;  // renewed or gone
  entries_.erase(it);
  return true;
}

void DynamoApproxIndex::Expire(double now) {
  while (!heap_.empty() && heap_.front().expiry <= now) PopTimer();
}

void DynamoApproxIndex::Insert(uint32_t worker, const uint32_t* ids, uint32_t n, double now) {
  const double expiry = now + ttl_s_;
  for (uint32_t j = 0; j < n; ++j) {
    entries_[Key(worker, ids[j])] = {expiry, j};
    heap_.push_back({expiry, j, ids[j], worker});
    std::push_heap(heap_.begin(), heap_.end(), GoesLater<Timer>);
  }
  if (heap_.size() > 2 * entries_.size() + 1024) {  // drop stale timers (same order after)
    heap_.clear();
    for (const auto& [key, e] : entries_)
      heap_.push_back(
          {e.expiry, e.position, static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)});
    std::make_heap(heap_.begin(), heap_.end(), GoesLater<Timer>);
  }
  if (entries_.size() <= max_size_) return;
  const uint64_t target = static_cast<uint64_t>(static_cast<double>(max_size_) * ratio_);
  while (entries_.size() > target && !heap_.empty()) PopTimer();
}

bool DynamoApproxIndex::Holds(uint32_t worker, uint32_t id) const {
  return entries_.count(Key(worker, id)) != 0;
}

uint32_t DynamoApproxIndex::Match(uint32_t worker, const uint32_t* ids, uint32_t n) const {
  uint32_t k = 0;
  while (k < n && Holds(worker, ids[k])) ++k;
  return k;
}

}  // namespace ltl
