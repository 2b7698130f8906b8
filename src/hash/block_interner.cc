// BlockInterner (see block_interner.h): the id table, the chain check, materialization.
#include "hash/block_interner.h"

#include <algorithm>
#include <cstdlib>

#include "common/huge_pages.h"
#include "common/mix64.h"

namespace ltl {

// The table's slots hold provisional ids; behind them, in the same array, one tag byte per slot:
// 0 for an empty slot, else 1..255 from the top bits of the id's hash. A probe reads the tags (64
// slots per cache line) and reads a slot's id only when its tag matches, so a lookup costs about
// one cache miss however long its probe sequence is; before, every occupied slot on the way cost
// a random read of id_of_ (~3 at the table's usual load: BlockInterner::Intern was the reading
// thread's largest cost, issue 30). The tags change how fast a slot is found, not where anything
// is stored or which provisional id a block gets.
namespace {
constexpr size_t kTagSlotsPerWord = 4;  // a uint32_t behind the slots holds the tags of 4 slots

uint8_t Tag(uint64_t hash) {
  const auto t = static_cast<uint8_t>(hash >> 56);
  return t == 0 ? 1 : t;
}

uint8_t* TagsOf(std::vector<uint32_t>* vals, size_t slots) {
  return reinterpret_cast<uint8_t*>(vals->data() + slots);
}
}  // namespace

void BlockInterner::Grow() {
  const size_t cap = vals_.empty() ? 1024 : (mask_ + 1) * 2;
  std::vector<uint32_t> vals;
  // The arrays per block grow to millions: common/huge_pages.h.
  ResizeHuge(&vals, cap + cap / kTagSlotsPerWord, kNone);
  const size_t mask = cap - 1;
  uint8_t* tags = TagsOf(&vals, cap);
  std::fill(tags, tags + cap, uint8_t{0});
  // Reinserted in provisional id order, so id_of_ is read sequentially (where an id lands in the
  // table does not change which id a lookup finds).
  for (uint32_t v = 0; v < id_of_.size(); ++v) {
    const uint64_t hash = SplitMix64Finalizer(id_of_[v]);
    size_t h = hash & mask;
    while (tags[h] != 0) h = (h + 1) & mask;
    vals[h] = v;
    tags[h] = Tag(hash);
  }
  vals_.swap(vals);
  mask_ = mask;
}

uint32_t BlockInterner::Intern(uint64_t id, uint32_t prev, bool* inserted) {
  if (prev != kNone && prev + 1 < id_of_.size() && id_of_[prev + 1] == id) {
    *inserted = false;
    return prev + 1;
  }
  if (vals_.empty() || (parent_.size() + 1) * 4 > (mask_ + 1) * 3) Grow();
  const uint64_t hash = SplitMix64Finalizer(id);
  const uint8_t tag = Tag(hash);
  uint8_t* tags = TagsOf(&vals_, mask_ + 1);
  size_t h = hash & mask_;
  for (;;) {
    const uint8_t t = tags[h];
    if (t == 0) break;
    if (t == tag) {
      const uint32_t v = vals_[h];
      if (id_of_[v] == id) {
        *inserted = false;
        return v;
      }
    }
    h = (h + 1) & mask_;
  }
  const uint32_t d = static_cast<uint32_t>(parent_.size());
  vals_[h] = d;
  tags[h] = tag;
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
  scratch_.clear();
  Continue(ids.data(), ids.size(), 0, kNone, true);
}

void BlockInterner::AddSharing(size_t ref, uint32_t shared, const std::vector<uint64_t>& rest) {
  Materialize(ref, &ref_ids_);
  if (sampling_ || shared > ref_ids_.size()) std::abort();  // callers' contract: never
  scratch_.clear();
  bool chain = true;
  uint32_t prev = kNone;
  // As Add would find them: each is in the table, after the one before it (or not: a chain break).
  for (uint32_t k = 0; k < shared; ++k) {
    const uint32_t d = ref_ids_[k];
    if (k > 0 && parent_[d] != prev) chain = false;
    scratch_.push_back(d);
    prev = d;
  }
  accesses_ += shared;
  Continue(rest.data(), rest.size(), shared, prev, chain);
}

void BlockInterner::Continue(const uint64_t* ids, size_t n, size_t first, uint32_t prev,
                             bool chain) {
  Entry e;
  accesses_ += n;
  for (size_t i = 0; i < n; ++i) {
    const size_t j = first + i;
    const uint64_t id = ids[i];
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
