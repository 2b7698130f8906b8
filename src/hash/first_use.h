// FirstUse: the unbounded cache figures (the ceiling, its across/same-conversation split, the cold
// ceiling) computed by a shuffle by block id, so that no machine holds every distinct block
// (issue 34 item 3; docs/SCALE.md "The exact ceiling on a cluster"). An unbounded cache never
// evicts, so a request's hit is decided by "was this block used by an earlier request?" alone,
// exactly as the one-pass LRU curve decides its last capacity (simulate/lru_curve.cc):
//   - request i (replay position, its rank) hits its leading run of blocks j = 0, 1, ... that an
//     earlier request (rank < i) used; the run ends at the first block no earlier request used,
//     at the first block holding no tokens (j * block_size >= input_tokens) or at its last block;
//     a repeat of a block inside one request does not count (touches follow the request's scan);
//   - a hit block counts as across-conversation by the curve's owner rule, replayed over the
//     earlier requests that used it in rank order: the first of a known conversation makes that
//     conversation its owner (requests of no conversation before it leave it unowned); after
//     that, any request of another conversation or of none makes it shared. The hit is across
//     when the block is shared, or owned by a conversation other than request i's (for a
//     request of no conversation: owned at all); unowned blocks count as same-conversation.
// The steps (llmtrafficlens.dask runs them as tasks):
//   map (one per input file, on a worker): FirstUseMap cuts the file's block accesses into P
//     partitions by block id (and one end marker per request, by request);
//   reduce (one per partition, on a worker): FirstUseReduce orders each block's accesses by rank
//     and gives, per request, the first position whose block no earlier request used (the
//     partition's part of the cut) and the list of across-conversation accesses;
//   workers: MergeFirstMisses combines the partitions' first misses pairwise (a tree), keeping the
//     smallest position per request;
//   driver: FirstUseCuts takes the merged positions (memory: a few bytes per request,
//     FirstUseKeys);
//   workers: FirstUseAcross sums the across accesses before each request's cut;
//   driver: FirstUseFiguresOf adds min(cut * block_size, input_tokens) over the measured requests
//     and the partitions' across sums: the figures LruCurve::Unbounded gives on the whole trace.
// Blobs are native-endian (every machine of one cluster shares its byte order).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/request_record.h"
#include "common/status.h"

namespace ltl {

constexpr uint32_t kFirstUseNoRank = 0xffffffffu;

// What the reducers and the driver need per request, from the driver's trace (replay order).
struct FirstUseKeys {
  uint64_t first_steady = 0;             // rank of the first request measured in steady state
  uint64_t first_cold = 0;               // the same with no warm-up (the cold ceiling)
  bool has_split = false;                // conversations known: the across/same split is computed
  std::vector<uint32_t> rank_of_record;  // merged record index -> rank (kFirstUseNoRank: none)
  // Per rank:
  std::vector<int32_t> conversation;  // dense conversation index, -1 = none
  std::vector<int64_t> input_tokens;
  std::vector<uint32_t> block_size;
  std::vector<uint8_t> measured;  // 0: a replay-only entry (never measured)
};

std::string EncodeFirstUseKeys(const FirstUseKeys& keys);
Result<FirstUseKeys> DecodeFirstUseKeys(std::string_view bytes);

// Map: the block accesses of one input file's records (merged record order within the file) as
// `partitions` blobs; blob p holds the accesses whose block id falls in partition p and the end
// markers (position = the request's block count) of the requests that fall in p.
std::vector<std::string> FirstUseMap(const std::vector<RequestRecord>& records, uint32_t file_index,
                                     uint32_t partitions);

struct FirstUseAccess {
  uint32_t rank = 0;
  uint32_t pos = 0;
  bool operator==(const FirstUseAccess&) const = default;
};

struct FirstUseReduced {
  // Per request with one in this partition, ordered by rank: the smallest position whose block no
  // earlier request used, or its end marker's position.
  std::vector<FirstUseAccess> first_miss;
  // Accesses to a block an earlier request of another known conversation used (has_split only),
  // ordered by rank, then position.
  std::vector<FirstUseAccess> across;
};

// Reduce: one partition's blobs, one from every input file (file indices 0..F-1, any order).
Result<FirstUseReduced> FirstUseReduce(const std::vector<std::string_view>& blobs,
                                       const FirstUseKeys& keys);

std::string EncodeFirstUseAccesses(const std::vector<FirstUseAccess>& accesses);
Result<std::vector<FirstUseAccess>> DecodeFirstUseAccesses(std::string_view bytes);

// Two partitions' (or merged) first misses as one list, the smaller position per rank: the
// workers combine the partitions' lists pairwise, so the driver receives one list of at most one
// entry per request, whatever the number of partitions.
std::vector<FirstUseAccess> MergeFirstMisses(const std::vector<FirstUseAccess>& a,
                                             const std::vector<FirstUseAccess>& b);

// Driver: per rank, where its hit run ends: the smallest first-miss position of every partition,
// and the first position holding no tokens.
Result<std::vector<uint32_t>> FirstUseCuts(
    const FirstUseKeys& keys, const std::vector<std::vector<FirstUseAccess>>& first_misses);

struct FirstUseFigures {
  int64_t steady_hit = 0, steady_across = 0;  // the ceiling (steady state)
  int64_t cold_hit = 0, cold_across = 0;      // the cold ceiling (no warm-up)
  bool operator==(const FirstUseFigures&) const = default;
};

// Workers: the across-conversation tokens before each request's cut (steady_across, cold_across
// set; the hit fields 0).
FirstUseFigures FirstUseAcross(const std::vector<FirstUseAccess>& across, const FirstUseKeys& keys,
                               const std::vector<uint32_t>& cuts);

// Driver: the hit tokens of the measured requests from their cuts, with the partitions' across
// sums added.
FirstUseFigures FirstUseFiguresOf(const FirstUseKeys& keys, const std::vector<uint32_t>& cuts,
                                  const std::vector<FirstUseFigures>& across_sums);

// The run's hook: given the encoded keys of the driver's trace, the figures computed elsewhere
// (the Dask driver's shuffle), or an error that ends the run.
using FirstUseHook = std::function<Result<FirstUseFigures>(const std::string& keys)>;

}  // namespace ltl
