// BlockCutter: rendered prompt text -> token count and salted chained block ids. The approximate
// cutter (default) counts 4 Unicode code points per token and cuts blocks of 4 x block_size code
// points; the token cutter encodes with a real Tokenizer (src/tokenize/tokenizer.h) and cuts
// block_size token ids. Both feed the same BlockChain, so the rest of the pipeline cannot tell them
// apart. A cutter holds scratch buffers: one per thread.
//
// CutReusing is Cut for a request that continues an earlier one (agentic logs resend their
// history): the token cutter keeps the text, ids and block ids of the last request of each
// conversation it cut, and for a continuation takes the ids of the longest common text prefix up
// to its last exact newline cut (Tokenizer::NewlineCutIsExact), and the block ids of the full
// blocks inside it, instead of looking up every segment again and re-hashing every block; the
// approximate cutter keeps the text and its full blocks' ids and ends, and takes the blocks that
// end inside the common prefix. The common prefix is compared byte for byte, so keys only choose
// which earlier text to compare with; the result is Cut's, always.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hash/block_chain.h"
#include "tokenize/tokenizer.h"

namespace ltl {

constexpr uint32_t kGatewayDefaultBlockSize = 16;
constexpr uint32_t kCodePointsPerToken = 4;

// What the last CutReusing did with its text: which remembered text it compared it with (the stamp
// that text was remembered under; 0 = none) and how many leading bytes of the two are equal, and
// the stamp the new text is remembered under (0 = not remembered). Stamps are unique within one
// cutter, so a caller that keeps its own facts of each remembered text (ingest/prompt_facts.h) can
// reuse those of the equal leading bytes.
struct TextReuse {
  uint64_t earlier = 0;
  size_t common_bytes = 0;
  uint64_t stamp = 0;
};

class BlockCutter {
 public:
  virtual ~BlockCutter() = default;
  // Appends the chained ids of `text` to *ids (after chain->Reset()) and returns its token count.
  virtual int64_t Cut(std::string_view text, BlockChain* chain, std::vector<uint64_t>* ids) = 0;
  // Cut, remembering the result under `key` and reusing what was remembered under the first of
  // `earlier` found (see above). The base implementation is Cut.
  virtual int64_t CutReusing(std::string_view text, uint64_t key, std::span<const uint64_t> earlier,
                             BlockChain* chain, std::vector<uint64_t>* ids) {
    (void)key;
    (void)earlier;
    return Cut(text, chain, ids);
  }
  // The last CutReusing's TextReuse (none after Cut, or for a cutter that remembers nothing).
  virtual TextReuse last_reuse() const { return {}; }
  // A cutter of the same kind for another thread: its own scratch, this one's remembered texts
  // (CutReusing's store is shared and locked, stamps stay unique across the two), so a
  // conversation continues on whichever worker its next turn lands. nullptr: nothing to share.
  virtual std::unique_ptr<BlockCutter> Sibling() const { return nullptr; }
  // Token count only (for response text, when no usage was logged).
  virtual int64_t Count(std::string_view text) = 0;
  // True for the code-point cutter: token k is code points [4k, 4k + 4), so a byte offset's token
  // position is exact; the token cutter's positions are estimated (docs/SEMANTICS.md).
  virtual bool approximate() const { return false; }
  uint32_t block_size() const { return block_size_; }

 protected:
  explicit BlockCutter(uint32_t block_size) : block_size_(block_size) {}
  uint32_t block_size_;
};

// What a cutter's CutReusing may keep of earlier conversations, in bytes. The code-point cutter's
// memo only saves a SipHash per block of the common prefix (its text is copied either way), so
// the workers of a run share one budget: on the 1 GB benchmark log 12 MiB per worker cost no CPU
// next to 48 MiB and took 73 MiB off the peak RSS with two workers (docs/PERFORMANCE.md, issue
// 30); the workers now share one store (Sibling), which holds the whole budget: 12 MiB, which cost
// no CPU next to 24 MiB on that log or a 200 MB agentic one and took 6-10 MiB off the read's peak
// (the peak of the default mode once the analysis frees its largest arrays). Its memos are now
// kept in pool chunks (hash/memo_pool.h), counted as the chunks they hold rather than as strings
// and vectors grown by doubling, so 10 MiB holds about as many as 12 MiB did: the same memo
// misses on both logs (and from 4 MiB up), and the pool's 2 MiB slabs (the budget plus the memos
// in flight, rounded up) stay within the memory the 12 MiB took. The token cutter's memo saves
// tokenizing, which is dear: each worker's sibling adds the larger budget to the store.
inline constexpr size_t kApproxMemoBudgetBytes = size_t{10} << 20;
inline constexpr size_t kTokenMemoBudgetBytes = size_t{48} << 20;

// Approximate: ceil(code points / 4) tokens; blocks of 4 x block_size code points.
std::unique_ptr<BlockCutter> MakeApproxCutter(uint32_t block_size,
                                              size_t memo_budget_bytes = kApproxMemoBudgetBytes);
// Exact: the tokenizer's ids, blocks of block_size ids (each hashed as little-endian uint32s).
// `tokenizer` must outlive the cutter.
std::unique_ptr<BlockCutter> MakeTokenCutter(const Tokenizer* tokenizer, uint32_t block_size);

// Number of UTF-8 code points in `s` (bytes that are not continuation bytes).
size_t CountCodePoints(std::string_view s);

}  // namespace ltl
