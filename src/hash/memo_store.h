// MemoStore: what a worker keeps of the last request of each conversation, by key, within a byte
// budget, for the work a continued request can take over (BlockCutter::CutReusing's texts and ids,
// the cache-buster facts' segment digests). Memo has `uint64_t stamp`, Clear() and bytes(). Take
// hands over the memo of the first key found (the conversation moved on: the caller cuts it back
// and extends it in place, so only new data is written); Remember keeps it under its new key with a
// new stamp and forgets the memos written longest ago when over budget (conversations that ended:
// an active one writes its memo again every turn). Thread-safe: the workers of one read share a
// store (each call takes its mutex; a memo taken is the taker's alone until it is remembered), so a
// conversation whose turns land on different workers still finds its last turn (issue 30: with a
// store per worker, half of the turns missed at --threads 2 and were cut and digested again).
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

namespace ltl {

template <class Memo>
class MemoStore {
 public:
  explicit MemoStore(size_t budget_bytes) : budget_bytes_(budget_bytes) {}

  std::unique_ptr<Memo> Take(std::span<const uint64_t> keys) {
    std::lock_guard<std::mutex> lock(mu_);
    for (uint64_t k : keys) {
      auto it = memos_.find(k);
      if (it == memos_.end()) continue;
      std::unique_ptr<Memo> m = std::move(it->second);
      bytes_ -= m->bytes();
      memos_.erase(it);
      return m;
    }
    return nullptr;
  }
  // An empty memo, reusing a forgotten one's buffers (no fresh pages to fault in).
  std::unique_ptr<Memo> Fresh() {
    std::unique_ptr<Memo> m;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (spare_.empty()) return std::make_unique<Memo>();
      m = std::move(spare_.back());
      spare_.pop_back();
    }
    m->Clear();
    return m;
  }
  // Returns the stamp `m` is remembered under (unique within this store, never 0).
  uint64_t Remember(uint64_t key, std::unique_ptr<Memo> m) {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto old = memos_.find(key); old != memos_.end()) {
      bytes_ -= old->second->bytes();
      Spare(std::move(old->second));
      memos_.erase(old);
    }
    const uint64_t m_stamp = ++stamp_;
    m->stamp = m_stamp;
    bytes_ += m->bytes();
    order_.emplace_back(key, m->stamp);
    memos_.emplace(key, std::move(m));
    while (bytes_ > budget_bytes_ && !order_.empty()) {
      auto [k, stamp] = order_.front();
      order_.pop_front();
      if (Live(k, stamp)) {
        auto it = memos_.find(k);
        bytes_ -= it->second->bytes();
        Spare(std::move(it->second));
        memos_.erase(it);
      }
    }
    // Entries of memos taken over or replaced stay in order_ until here: under budget they would
    // pile up by one per request, so they are dropped once they outnumber the live ones.
    if (order_.size() > 2 * memos_.size() + 64)
      std::erase_if(order_, [&](const auto& e) { return !Live(e.first, e.second); });
    return m_stamp;
  }
  // Raises the budget (a store shared by one more worker that brings its own).
  void AddBudget(size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    budget_bytes_ += bytes;
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return memos_.size();
  }
  size_t order_entries() const {
    std::lock_guard<std::mutex> lock(mu_);
    return order_.size();
  }

 private:
  static constexpr size_t kSpareMemos = 8;
  bool Live(uint64_t key, uint64_t stamp) const {
    auto it = memos_.find(key);
    return it != memos_.end() && it->second->stamp == stamp;
  }
  void Spare(std::unique_ptr<Memo> m) {
    if (spare_.size() < kSpareMemos) spare_.push_back(std::move(m));
  }
  mutable std::mutex mu_;
  size_t budget_bytes_;
  absl::flat_hash_map<uint64_t, std::unique_ptr<Memo>> memos_;
  std::deque<std::pair<uint64_t, uint64_t>> order_;  // (key, stamp) in writing order
  std::vector<std::unique_ptr<Memo>> spare_;
  uint64_t stamp_ = 0;
  size_t bytes_ = 0;
};

}  // namespace ltl
