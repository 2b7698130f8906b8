// WorkerCache (see fleet_worker_cache.h): a block -> node index over an index-linked recency
// list; an evicted block's node is reused by the block that displaced it.
#include "simulate/fleet_worker_cache.h"

namespace ltl {
namespace {
constexpr uint32_t kNil = RecencyList::kNil;
}  // namespace

WorkerCache::WorkerCache(uint64_t capacity_blocks, uint32_t dense_blocks)
    : capacity_(capacity_blocks), dense_(dense_blocks, kNil) {}

uint32_t WorkerCache::Find(uint32_t b) const {
  if (!dense_.empty()) return dense_[b];
  auto it = index_.find(b);
  return it == index_.end() ? kNil : it->second;
}

void WorkerCache::SetIndex(uint32_t b, uint32_t node) {
  if (!dense_.empty()) {
    dense_[b] = node;
  } else if (node == kNil) {
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
    node = order_.tail();
    order_.Unlink(node);
    SetIndex(block_[node], kNil);
  } else {
    node = order_.AddNode();
    block_.push_back(0);
    ++size_;
  }
  block_[node] = b;
  SetIndex(b, node);
  order_.PushFront(node);
}

}  // namespace ltl
