// BlockInterner (see block_interner.h): the id table, the chain check, materialization.
#include "hash/block_interner.h"

#include <algorithm>

#include "common/huge_pages.h"
#include "common/mix64.h"

namespace ltl {

void BlockInterner::Grow() {
  const size_t cap = vals_.empty() ? 1024 : vals_.size() * 2;
  std::vector<uint32_t> vals;
  ResizeHuge(&vals, cap, kNone);  // the arrays per block grow to millions: common/huge_pages.h
  const size_t mask = cap - 1;
  for (uint32_t v : vals_) {
    if (v == kNone) continue;
    size_t h = SplitMix64Finalizer(id_of_[v]) & mask;
    while (vals[h] != kNone) h = (h + 1) & mask;
    vals[h] = v;
  }
  vals_.swap(vals);
  mask_ = mask;
}

uint32_t BlockInterner::Intern(uint64_t id, uint32_t prev, bool* inserted) {
  if (prev != kNone && prev + 1 < id_of_.size() && id_of_[prev + 1] == id) {
    *inserted = false;
    return prev + 1;
  }
  if ((parent_.size() + 1) * 4 > vals_.size() * 3) Grow();
  size_t h = SplitMix64Finalizer(id) & mask_;
  for (;;) {
    const uint32_t v = vals_[h];
    if (v == kNone) break;
    if (id_of_[v] == id) {
      *inserted = false;
      return v;
    }
    h = (h + 1) & mask_;
  }
  const uint32_t d = static_cast<uint32_t>(parent_.size());
  vals_[h] = d;
  ReserveHuge(&id_of_, id_of_.size() + 1);
  id_of_.push_back(id);
  *inserted = true;
  return d;
}

void BlockInterner::SetSampling(double rate, uint64_t max_blocks) {
  threshold_ = SampleThreshold(rate);
  max_blocks_ = max_blocks;
  sampling_ = threshold_ != kKeepAll || max_blocks_ > 0;
}

std::vector<uint8_t> BlockInterner::SampleMarks() const {
  std::vector<uint8_t> marks(parent_.size());
  for (size_t p = 0; p < marks.size(); ++p) {
    const uint64_t key = SampleKey(id_of_[p]);
    marks[p] = KeepBlock(key, threshold_) ? SampleGroup(key) : kDropped;
  }
  return marks;
}

void BlockInterner::Add(const std::vector<uint64_t>& ids) {
  Entry e;
  accesses_ += ids.size();
  scratch_.clear();
  bool chain = true;
  uint32_t prev = kNone;
  for (size_t j = 0; j < ids.size(); ++j) {
    const uint64_t id = ids[j];
    uint64_t key = 0;
    if (sampling_) {
      key = SampleKey(id);
      if (!KeepBlock(key, threshold_)) continue;  // dropped before interning: no memory, no replay
    }
    bool inserted;
    const uint32_t d = Intern(id, prev, &inserted);
    if (inserted) {
      ReserveHuge(&parent_, parent_.size() + 1);
      ReserveHuge(&run_, run_.size() + 1);
      parent_.push_back(prev);
      run_.push_back(prev != kNone && prev + 1 == d ? run_[prev] : d);
      if (sampling_) {
        depth_.push_back(static_cast<uint32_t>(j));
        if (max_blocks_ > 0) {
          keys_.push(key);
          if (keys_.size() > max_blocks_) {  // fixed-size: the largest key sets the new threshold
            threshold_ = keys_.top();
            keys_.pop();
          }
        }
      }
    } else if (!scratch_.empty() && parent_[d] != prev) {
      chain = false;  // follows another predecessor than before (or repeats within the record)
    }
    scratch_.push_back(d);
    prev = d;
  }
  e.n = static_cast<uint32_t>(scratch_.size());
  kept_accesses_ += scratch_.size();
  if (chain) {
    e.last = prev;
  } else {
    e.flat = flat_.size();
    ReserveHuge(&flat_, flat_.size() + scratch_.size());
    flat_.insert(flat_.end(), scratch_.begin(), scratch_.end());
  }
  ReserveHuge(&entries_, entries_.size() + 1);
  entries_.push_back(e);
}

void BlockInterner::ReleaseIdTable() {
  std::vector<uint32_t>().swap(vals_);
  std::vector<uint64_t>().swap(id_of_);
  std::vector<uint32_t>().swap(scratch_);
  std::priority_queue<uint64_t>().swap(keys_);
  mask_ = 0;
}

void BlockInterner::Materialize(size_t r, std::vector<uint32_t>* out) const {
  const Entry& e = entries_[r];
  out->resize(e.n);
  if (e.n == 0) return;
  if (e.flat != kNotFlat) {
    std::copy(flat_.begin() + static_cast<std::ptrdiff_t>(e.flat),
              flat_.begin() + static_cast<std::ptrdiff_t>(e.flat + e.n), out->begin());
    return;
  }
  WalkChain(parent_.data(), run_.data(), e.last, e.n, out->data());
}

}  // namespace ltl
