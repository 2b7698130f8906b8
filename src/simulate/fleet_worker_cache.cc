// WorkerCache (see fleet_worker_cache.h): a block -> node index over an index-linked recency
// list; an evicted block's node is reused by the block that displaced it.
#include "simulate/fleet_worker_cache.h"

#include <limits>

namespace ltl {
namespace {
constexpr uint32_t kNil = std::numeric_limits<uint32_t>::max();
}  // namespace

WorkerCache::WorkerCache(uint64_t capacity_blocks, uint32_t dense_blocks)
    : capacity_(capacity_blocks), dense_(dense_blocks, kNil), head_(kNil), tail_(kNil) {}

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
    if (node != head_) {
      Unlink(node);
      PushFront(node);
    }
    return;
  }
  if (size_ >= capacity_) {
    node = tail_;
    Unlink(node);
    SetIndex(block_[node], kNil);
  } else {
    node = static_cast<uint32_t>(block_.size());
    block_.push_back(0);
    prev_.push_back(kNil);
    next_.push_back(kNil);
    ++size_;
  }
  block_[node] = b;
  SetIndex(b, node);
  PushFront(node);
}

void WorkerCache::Unlink(uint32_t node) {
  uint32_t p = prev_[node], n = next_[node];
  if (p != kNil)
    next_[p] = n;
  else
    head_ = n;
  if (n != kNil)
    prev_[n] = p;
  else
    tail_ = p;
  prev_[node] = next_[node] = kNil;
}

void WorkerCache::PushFront(uint32_t node) {
  prev_[node] = kNil;
  next_[node] = head_;
  if (head_ != kNil)
    prev_[head_] = node;
  else
    tail_ = node;
  head_ = node;
}

}  // namespace ltl
