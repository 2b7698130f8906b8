// BlockInterner (see block_interner.h): the id table, the chain check, materialization.
#include "hash/block_interner.h"

#include <algorithm>
#include <cstdlib>
#include <new>

#include "common/huge_pages.h"
#include "common/mix64.h"

namespace ltl {

// The table's slots hold provisional ids; behind them, in the same array, one tag byte per slot:
// 0 for an empty slot, else 1..255 from the low bits of the id's hash. A probe reads the tags (64
// slots per cache line) and reads a slot's id only when its tag matches, so a lookup costs about
// one cache miss however long its probe sequence is; before, every occupied slot on the way cost
// a random read of id_of_ (~3 at the table's usual load: BlockInterner::Intern was the reading
// thread's largest cost, issue 30). A hash's first slot is its high bits times the slot count
// (Lemire's multiply-shift range reduction), so the table may have any number of slots and grow
// by less than 2x; the tag takes the low bits, which say nothing about the slot. Neither changes
// which provisional id a block gets, only where it is stored and how fast it is found.
namespace {
constexpr size_t kTagSlotsPerWord = 4;  // a uint32_t behind the slots holds the tags of 4 slots
constexpr size_t kFirstSlots = 1024;

uint8_t Tag(uint64_t hash) {
  const auto t = static_cast<uint8_t>(hash);
  return t == 0 ? 1 : t;
}

size_t FirstSlot(uint64_t hash, size_t slots) {
  return static_cast<size_t>((static_cast<unsigned __int128>(hash) * slots) >> 64);
}

// Slots for `blocks` at most 3/4 full.
size_t SlotsFor(uint64_t blocks) {
  return static_cast<size_t>(blocks + blocks / 3 + 1);
}
}  // namespace

void BlockInterner::Grow() {
  // Twice the blocks held, or, with a reader's estimate, 1.25x to 2x towards it: near the end of
  // the input the estimate is close, and the table stops near the size the blocks need.
  const uint64_t n = parent_.size() + 1;
  uint64_t blocks = 2 * n;
  if (expected_blocks_ > 0) blocks = std::clamp<uint64_t>(expected_blocks_, n + n / 4, 2 * n);
  const size_t slots = std::max(kFirstSlots, SlotsFor(blocks));
  // Zero tags (empty slots); fresh pages, advised for huge pages (common/mapped_array.h).
  MappedArray<uint32_t> vals =
      MappedArray<uint32_t>::Zeroed(slots + (slots + kTagSlotsPerWord - 1) / kTagSlotsPerWord);
  auto* tags = reinterpret_cast<uint8_t*>(vals.data() + slots);
  // Reinserted in provisional id order, so id_of_ is read sequentially (where an id lands in the
  // table does not change which id a lookup finds).
  for (uint32_t v = 0; v < id_of_.size(); ++v) {
    const uint64_t hash = SplitMix64Finalizer(id_of_[v]);
    size_t h = FirstSlot(hash, slots);
    while (tags[h] != 0)
      if (++h == slots) h = 0;
    vals[h] = v;
    tags[h] = Tag(hash);
  }
  vals_ = std::move(vals);  // the old table's pages go back to the system
  slots_ = slots;
}

uint32_t BlockInterner::Intern(uint64_t id, uint32_t prev, bool* inserted) {
  if (prev != kNone && prev + 1 < id_of_.size() && id_of_[prev + 1] == id) {
    *inserted = false;
    return prev + 1;
  }
  if (slots_ == 0 || (parent_.size() + 1) * 4 > slots_ * 3) Grow();
  const uint64_t hash = SplitMix64Finalizer(id);
  const uint8_t tag = Tag(hash);
  const uint8_t* tags = reinterpret_cast<const uint8_t*>(vals_.data() + slots_);
  size_t h = FirstSlot(hash, slots_);
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
    if (++h == slots_) h = 0;
  }
  const uint32_t d = static_cast<uint32_t>(parent_.size());
  vals_[h] = d;
  reinterpret_cast<uint8_t*>(vals_.data() + slots_)[h] = tag;
  id_of_.push_back(id);
  *inserted = true;
  return d;
}

void BlockInterner::ExpectBlocks(uint64_t blocks) {
  expected_blocks_ = blocks;
  if (blocks <= parent_.capacity()) return;
  const size_t room = blocks + blocks / 8;  // not a remap for every small rise of the estimate
  try {
    id_of_.reserve_exact(room);
    parent_.reserve_exact(room);
    run_.reserve_exact(room);
  } catch (const std::bad_alloc&) {
    // A hint only (an estimate from a small sample may be far too high): the arrays grow as needed.
  }
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
  vals_.release();
  id_of_.release();
  std::vector<uint32_t>().swap(scratch_);
  std::priority_queue<uint64_t>().swap(keys_);
  slots_ = 0;
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
