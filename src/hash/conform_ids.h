// Export block ids: turns one record's chained block ids into the id list replay tools accept at
// the export block size B — exactly ceil(input_tokens / B) ids in [0, 2^63-1], where a partial tail
// block's id is derived from its chained id and its length, so it is never also a full block's id.
// The rules and why they hold are in docs/EXPORT.md ("Hash ids").
#pragma once

#include <cstdint>
#include <vector>

#include "common/request_record.h"

namespace ltl {

constexpr uint64_t kMaxBlockId = (uint64_t{1} << 63) - 1;

// What ConformBlockIds had to change to make a record's id list consistent with its input length.
struct IdAdjustment {
  bool reblocked = false;  // ids were coarsened from the record's block size to B
  int64_t extended = 0;    // ids derived past the end of the record's list (usage > estimate)
  int64_t truncated = 0;   // ids dropped from the end of the record's list (usage < estimate)
  bool tail = false;       // the last block is partial, so its id is a derived tail id
};

// Derived ids. Both are fixed public functions of an id that is itself a salted, chained hash, so
// they reveal nothing the id does not and stay the same across runs and shards. Tail ids depend on
// the tail's token count, so prompts that end differently inside one block get different ids.
uint64_t ExtendedBlockId(uint64_t previous_id);
uint64_t TailBlockId(uint64_t chained_id, uint32_t tail_tokens);

// True when B is a whole multiple of the record's block size (ids can then be coarsened exactly:
// a coarse block's chained id is the chained id of the last fine block inside it).
inline bool CanReblock(uint32_t record_block_size, uint32_t export_block_size) {
  return record_block_size > 0 && export_block_size >= record_block_size &&
         export_block_size % record_block_size == 0;
}

// Fills *out with the export ids of `r` at block size `block_size` (which CanReblock must accept).
// Requires r.input_tokens > 0 and at least one id in r.block_ids.
void ConformBlockIds(const RequestRecord& r, uint32_t block_size, std::vector<uint64_t>* out,
                     IdAdjustment* adj);

// Conforms r->block_ids in place at the record's own block size (no-op for records without ids or
// with input_tokens <= 0). Returns what changed.
IdAdjustment ConformRecordBlockIds(RequestRecord* r);

}  // namespace ltl
