// Conformed block ids (see conform_ids.h): coarsen, conform the count to the input length, derive
// the tail id, keep every id within 63 bits.
#include "hash/conform_ids.h"

#include <algorithm>

#include "common/mix64.h"

namespace ltl {
namespace {

// Domain tags keep extended and tail ids apart from each other (arbitrary odd constants).
constexpr uint64_t kExtendTag = 0x6c746c2d65787465ull;  // "ltl-exte"
constexpr uint64_t kTailTag = 0x6c746c2d7461696cull;    // "ltl-tail"

}  // namespace

uint64_t ExtendedBlockId(uint64_t previous_id) {
  return SplitMix64Finalizer(previous_id ^ kExtendTag) & kMaxBlockId;
}

uint64_t TailBlockId(uint64_t chained_id, uint32_t tail_tokens) {
  return SplitMix64Finalizer(SplitMix64Finalizer(chained_id ^ kTailTag) + tail_tokens) &
         kMaxBlockId;
}

void ConformBlockIds(const RequestRecord& r, uint32_t block_size, std::vector<uint64_t>* out,
                     IdAdjustment* adj) {
  *adj = IdAdjustment{};
  out->clear();
  const uint64_t bs = block_size;
  const uint64_t want = (static_cast<uint64_t>(r.input_tokens) + bs - 1) / bs;
  const uint64_t ratio = block_size / r.block_size;  // >= 1 (CanReblock)
  const uint64_t have_fine = r.block_ids.size();
  const uint64_t have = (have_fine + ratio - 1) / ratio;
  adj->reblocked = ratio > 1;
  out->reserve(want);
  // Coarse block k covers fine blocks [k*ratio, (k+1)*ratio); its chained id is that of the last
  // fine block it holds, which identifies the whole prefix up to the end of the coarse block.
  for (uint64_t k = 0; k < have && k < want; ++k) {
    uint64_t last_fine = std::min((k + 1) * ratio, have_fine) - 1;
    out->push_back(r.block_ids[last_fine] & kMaxBlockId);
  }
  if (have > want) adj->truncated = static_cast<int64_t>(have - want);
  while (out->size() < want) {
    out->push_back(ExtendedBlockId(out->back()));
    ++adj->extended;
  }
  const uint64_t tail_tokens = static_cast<uint64_t>(r.input_tokens) % bs;
  if (tail_tokens != 0) {
    out->back() = TailBlockId(out->back(), static_cast<uint32_t>(tail_tokens));
    adj->tail = true;
  }
}

IdAdjustment ConformRecordBlockIds(RequestRecord* r) {
  IdAdjustment adj;
  if (r->input_tokens <= 0 || r->block_ids.empty() || r->block_size == 0) return adj;
  std::vector<uint64_t> ids;
  ConformBlockIds(*r, r->block_size, &ids, &adj);
  r->block_ids = std::move(ids);
  return adj;
}

}  // namespace ltl
