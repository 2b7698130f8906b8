// BlockInterner: takes each record's 64-bit chained block ids as the record is read (input order)
// and keeps them in O(distinct blocks + records) memory, so a reader can drop the ids at once.
//
// Chained ids name their whole prefix: id_i = PRF(id_{i-1}, chunk_i), so a block always follows the
// same predecessor. The interner numbers blocks in order of first appearance (provisional ids) and
// remembers, per block, the predecessor it was first seen after and the start of the run of
// consecutive ids it belongs to (a block whose predecessor is id - 1 continues its predecessor's
// run). A record is then just (last block, count): walking predecessors from the last block gives
// its ids back, one jump per run, and a request that resends a history of t turns has about t runs.
// A record whose ids break the chain (a block seen after two different predecessors, a repeat
// inside one request: non-chained hashed traces) keeps its ids explicitly, 4 bytes each.
//
// With sampling set (SetSampling, hash/block_sampler.h), only the blocks the keep rule keeps are
// interned: a record becomes the subsequence of its kept ids, which is again a chain (a block's
// kept predecessor is fixed by its prefix), and each kept block remembers its position in the
// request (its depth: the tokens it stands for depend on it). A cap on kept blocks (fixed-size
// SHARDS) lowers the threshold to the largest kept key whenever the cap is exceeded; blocks kept
// before that and now above it stay interned until BuildTrace drops them (SampleMarks).
//
// BuildTrace (simulate/trace.h) turns the interned records into a Trace in replay order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <queue>
#include <vector>

#include "common/mapped_array.h"
#include "hash/block_sampler.h"

namespace ltl {

class BlockInterner {
 public:
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  static constexpr uint64_t kNotFlat = std::numeric_limits<uint64_t>::max();

  static constexpr uint8_t kDropped = 0xff;

  // Keep only the blocks under rate's threshold; max_blocks > 0 also caps the kept distinct blocks
  // (lowering the threshold). Call before the first Add. A rate of 1 without a cap keeps all.
  void SetSampling(double rate, uint64_t max_blocks);
  bool sampling() const { return sampling_; }
  // The rate of the current threshold (the final one once reading is done).
  double sample_rate() const { return ThresholdRate(threshold_); }
  uint64_t kept_accesses() const { return kept_accesses_; }
  // Per provisional id: its sample group, or kDropped when its key is not below the final
  // threshold (fixed-size sampling). Needs the id table: call before ReleaseIdTable.
  std::vector<uint8_t> SampleMarks() const;
  // A kept block's position in the requests holding it (sampling only).
  uint32_t depth(uint32_t p) const { return depth_[p]; }

  // The next record's ids (one call per record, in the order of the record vector, ids or not).
  void Add(const std::vector<uint64_t>& ids);
  // The same for a record whose first `shared` ids are those of record `ref` (an earlier one) and
  // whose other ids are `rest`: the shared ids' provisional ids are ref's, so they are neither
  // looked up nor needed as 64-bit ids (a shard's turns sharing their previous turn's prompt,
  // shard/shard_codec.h). Not with sampling (the left-out ids' keys are not known).
  void AddSharing(size_t ref, uint32_t shared, const std::vector<uint64_t>& rest);
  // A reader's estimate of how many distinct blocks there will be once its input is read (from
  // the blocks per input byte so far; 0 = unknown). It only sizes the id table's next growth:
  // instead of doubling, the table grows by 1.25x to 2x towards the estimate, so it ends close to
  // the size the blocks need (a doubled table is written whole: up to twice the bytes it needs).
  // Which provisional id a block gets does not depend on it.
  // The per-block arrays get room for the estimate at once: address space only (MappedArray: a
  // page is resident once written), but they are in huge pages from their first MiBs instead of
  // after doubling past 2 MiB in small pages, each a page fault.
  void ExpectBlocks(uint64_t blocks);

  size_t records() const { return entries_.size(); }
  uint32_t distinct_blocks() const { return static_cast<uint32_t>(parent_.size()); }
  uint64_t block_accesses() const { return accesses_; }
  uint64_t flat_accesses() const { return flat_.size(); }  // accesses of non-chain records
  // Bytes held now, by part (for the memory figures in docs/PERFORMANCE.md).
  size_t table_bytes() const { return vals_.reserved_bytes() + id_of_.reserved_bytes(); }
  size_t chain_bytes() const { return parent_.reserved_bytes() + run_.reserved_bytes(); }
  size_t table_slots() const { return slots_; }
  size_t record_bytes() const { return entries_.capacity() * sizeof(Entry) + flat_.capacity() * 4; }

  // Frees the 64-bit id table; Add may not be called afterwards (BuildTrace does this first).
  void ReleaseIdTable();

  // Record r's provisional ids, head first, into *out.
  void Materialize(size_t r, std::vector<uint32_t>* out) const;
  uint32_t num_blocks(size_t r) const { return entries_[r].n; }
  // The provisional predecessor a block was first seen after (kNone for a head).
  uint32_t parent(uint32_t p) const { return parent_[p]; }
  bool chained(size_t r) const { return entries_[r].flat == kNotFlat; }
  uint32_t last(size_t r) const { return entries_[r].last; }

 private:
  struct Entry {
    uint32_t last = kNone;     // chained: the record's last block
    uint32_t n = 0;            // number of blocks
    uint64_t flat = kNotFlat;  // else: offset of its ids in flat_
  };
  uint32_t Intern(uint64_t id, uint32_t prev, bool* inserted);
  // Add's loop over ids[0..n) at positions from `first`, after the ids in scratch_ (prev the last
  // of them, chain whether they form one); then the entry.
  void Continue(const uint64_t* ids, size_t n, size_t first, uint32_t prev, bool chain);
  void Grow();

  // Open addressing with linear probing over provisional ids: 4 bytes per slot and a tag byte
  // (block_interner.cc: a probe reads an id only where the tag matches), at most 3/4 full; a
  // slot's key is id_of_[value]. With id_of_ that is 8 + 6.7..13.3 bytes per distinct block.
  // Hand-written: std::unordered_map costs ~40 bytes and a cache miss per entry, and
  // absl::flat_hash_map<uint64_t, uint32_t> pads each slot to 16 bytes plus a control byte.
  // The per-block arrays are MappedArrays (common/mapped_array.h): they grow without a copy and
  // give their pages back when freed.
  MappedArray<uint32_t> vals_;  // slots_ slots (a provisional id where the tag is not 0), tags
  size_t slots_ = 0;            // any number: a hash picks its first slot by multiplying
  uint64_t expected_blocks_ = 0;
  // Per provisional id, its 64-bit id (the table's keys). Resent history repeats runs of
  // consecutive provisional ids, so the block after `prev` is first tried as prev + 1 with one
  // sequential read instead of a random probe of the table (which costs a cache miss once the table
  // outgrows the cache).
  MappedArray<uint64_t> id_of_;
  MappedArray<uint32_t> parent_, run_;  // per provisional id
  std::vector<Entry> entries_;
  std::vector<uint32_t> flat_;
  std::vector<uint32_t> scratch_;
  std::vector<uint32_t> ref_ids_;  // AddSharing's: the reference's provisional ids
  uint64_t accesses_ = 0;
  // Sampling.
  bool sampling_ = false;
  uint64_t threshold_ = kKeepAll;
  uint64_t max_blocks_ = 0;
  uint64_t kept_accesses_ = 0;
  std::vector<uint32_t> depth_;         // per provisional id (sampling only)
  std::priority_queue<uint64_t> keys_;  // keys of the blocks under the threshold (cap only)
};

// Walks a chain from `last` back `n` blocks into out[0..n) (head first), given per-block
// predecessor and run-start arrays (see BlockInterner). Shared by the interner and Trace.
inline void WalkChain(const uint32_t* parent, const uint32_t* run, uint32_t last, uint32_t n,
                      uint32_t* out) {
  uint32_t* end = out + n;
  uint32_t x = last;
  while (n > 0) {
    const uint32_t span = x - run[x] + 1;
    const uint32_t len = span < n ? span : n;
    for (uint32_t k = 0; k < len; ++k) *--end = x - k;
    n -= len;
    if (n > 0) x = parent[x - len + 1];
  }
}

}  // namespace ltl
