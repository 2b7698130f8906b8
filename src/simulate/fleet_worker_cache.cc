// WorkerCache (see fleet_worker_cache.h): a block -> node index over an index-linked recency
// list; an evicted block's node is reused by the block that displaced it.
#include "simulate/fleet_worker_cache.h"

namespace ltl {
namespace {
constexpr uint32_t kNil = RecencyList::kNil;
}  // namespace

FleetHolders::FleetHolders(uint32_t workers, uint32_t num_blocks)
    : workers_(workers), narrow_(workers <= 8) {
  if (narrow_)
    bytes_.assign(num_blocks, 0);
  else
    wide_.assign(num_blocks, 0);
}

template <typename Mask>
void FleetHolders::MatchWith(const Mask* masks, const uint32_t* ids, uint32_t k,
                             uint32_t* match) const {
  const Mask all =
      static_cast<Mask>(workers_ >= 8 * sizeof(Mask) ? ~Mask{0} : (Mask{1} << workers_) - 1);
  Mask running = all;
  uint32_t j = 0;
  for (; j < k && running != 0; ++j) {
    Mask dropped = running & static_cast<Mask>(~masks[ids[j]]);
    if (dropped == 0) continue;
    running = static_cast<Mask>(running & ~dropped);
    for (; dropped != 0; dropped = static_cast<Mask>(dropped & (dropped - 1)))
      match[__builtin_ctzll(dropped)] = j;
  }
  for (; running != 0; running = static_cast<Mask>(running & (running - 1)))
    match[__builtin_ctzll(running)] = k;
}

void FleetHolders::MatchAll(const uint32_t* ids, uint32_t k, uint32_t* match) const {
  if (narrow_)
    MatchWith(bytes_.data(), ids, k, match);
  else
    MatchWith(wide_.data(), ids, k, match);
}

WorkerCache::WorkerCache(uint64_t capacity_blocks, uint32_t dense_blocks)
    : capacity_(capacity_blocks), dense_(dense_blocks > 0), order_(dense_blocks) {}

uint32_t WorkerCache::Find(uint32_t b) const {
  if (dense_) return order_.Linked(b) ? b : kNil;
  auto it = index_.find(b);
  return it == index_.end() ? kNil : it->second;
}

void WorkerCache::SetIndex(uint32_t b, uint32_t node) {
  if (node == kNil) {
    index_.erase(b);
  } else {
    index_.emplace(b, node);
  }
}

uint32_t WorkerCache::Match(const uint32_t* ids, uint32_t k) const {
  uint32_t n = 0;
  while (n < k && Find(ids[n]) != kNil) ++n;
  return n;
}

void WorkerCache::Touch(uint32_t b) {
  if (capacity_ == 0) return;
  uint32_t node = Find(b);
  if (node != kNil) {
    if (node != order_.head()) {
      order_.Unlink(node);
      order_.PushFront(node);
    }
    return;
  }
  if (size_ >= capacity_) {
    const uint32_t tail = order_.tail();
    order_.Unlink(tail);
    const uint32_t evicted = dense_ ? tail : block_[tail];
    if (!dense_) SetIndex(evicted, kNil);
    if (holders_) holders_->Remove(evicted, worker_);
    node = dense_ ? b : tail;
  } else {
    ++size_;
    node = dense_ ? b : order_.AddNode();
    if (!dense_) block_.push_back(0);
  }
  if (!dense_) {
    block_[node] = b;
    SetIndex(b, node);
  }
  if (holders_) holders_->Add(b, worker_);
  order_.PushFront(node);
}

void WorkerCache::TouchAll(const uint32_t* ids, uint32_t n, bool tail_first) {
  if (tail_first) {
    for (uint32_t j = n; j-- > 0;) Touch(ids[j]);
  } else {
    for (uint32_t j = 0; j < n; ++j) Touch(ids[j]);
  }
}

}  // namespace ltl
