// The approximate and token-id block cutters (see block_cutter.h). The approximate cutter's hot
// loop takes 64-byte strides when they are all ASCII (one OR of eight words) and walks bytes only
// around multi-byte characters.
#include "hash/block_cutter.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

#include "hash/memo_pool.h"
#include "hash/memo_store.h"
#include "tokenize/caching_tokenizer.h"

namespace ltl {
namespace {

inline bool AllAscii(const char* p, size_t n) {
  uint64_t acc = 0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    acc |= w;
  }
  for (; i < n; ++i) acc |= static_cast<unsigned char>(p[i]);
  return (acc & 0x8080808080808080ull) == 0;
}

inline bool IsLead(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
}

// Length of the common prefix of a and b (memcmp in strides, then bytes).
size_t CommonPrefix(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  constexpr size_t kStride = 256;
  size_t i = 0;
  while (i + kStride <= n && std::memcmp(a.data() + i, b.data() + i, kStride) == 0) i += kStride;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

// CommonPrefix of `a` and a text kept in pool chunks.
size_t CommonPrefix(std::string_view a, const ChunkedArray<char>& b) {
  size_t done = 0;
  bool diverged = false;
  b.ForEachPiece(0, [&](const char* p, size_t n) {
    if (diverged) return;
    const size_t k = CommonPrefix(a.substr(done), std::string_view(p, n));
    done += k;
    diverged = k < n;
  });
  return done;
}

class ApproxCutter : public BlockCutter {
 public:
  // The siblings share this cutter's store and its budget (block_cutter.h), and the pool its
  // memos are kept in.
  ApproxCutter(uint32_t bs, size_t memo_budget_bytes)
      : BlockCutter(bs),
        pool_(std::make_shared<MemoPool>()),
        store_(std::make_shared<MemoStore<Memo>>(memo_budget_bytes)) {}
  bool approximate() const override { return true; }
  std::unique_ptr<BlockCutter> Sibling() const override {
    auto c = std::make_unique<ApproxCutter>(block_size_, 0);
    c->pool_ = pool_;
    c->store_ = store_;
    return c;
  }

  int64_t Cut(std::string_view text, BlockChain* chain, std::vector<uint64_t>* ids) override {
    reuse_ = {};
    chain->Reset();
    return Tokens(CutFrom(text, 0, chain, ids, nullptr));
  }

  // Reuses the full blocks of the remembered text that end strictly inside the common prefix: the
  // byte after a block (where the next code point starts, which decides its end) is common too,
  // so both texts cut it at the same place.
  int64_t CutReusing(std::string_view text, uint64_t key, std::span<const uint64_t> earlier,
                     BlockChain* chain, std::vector<uint64_t>* ids) override {
    reuse_ = {};
    std::unique_ptr<Memo> m = store_->Take(earlier);
    size_t reused = 0;
    if (m) {
      const size_t common = CommonPrefix(text, m->text);
      reuse_.earlier = m->stamp;
      reuse_.common_bytes = common;
      // The first block that does not end before `common` (lower_bound over the ends).
      size_t hi = m->ends.size();
      while (reused < hi) {
        const size_t mid = reused + (hi - reused) / 2;
        if (m->ends[mid] < common)
          reused = mid + 1;
        else
          hi = mid;
      }
      m->ends.Truncate(reused);
      m->block_ids.Truncate(reused);
      m->text.Truncate(reused ? m->ends.back() : 0);
    } else {
      m = store_->Fresh();
      m->Attach(pool_);
    }
    m->block_ids.ForEachPiece(
        0, [&](const uint64_t* p, size_t n) { ids->insert(ids->end(), p, p + n); });
    chain->ResumeAfter(reused ? m->block_ids.back() : 0);
    const size_t from = m->text.size();
    const uint64_t cps = reused * CodePointsPerBlock() + CutFrom(text, from, chain, ids, m.get());
    m->text.Append(text.data() + from, text.size() - from);
    reuse_.stamp = store_->Remember(key, std::move(m));
    return Tokens(cps);
  }

  TextReuse last_reuse() const override { return reuse_; }

  int64_t Count(std::string_view text) override {
    return static_cast<int64_t>((CountCodePoints(text) + kCodePointsPerToken - 1) /
                                kCodePointsPerToken);
  }

 private:
  // Kept in pool chunks (hash/memo_pool.h): a turn appends to the chunks its conversation's memo
  // holds, and a forgotten memo's chunks serve the next, so the memos fault in no new pages once
  // the budget is full. The store makes memos without a pool; the cutter attaches its own.
  struct Memo {
    std::shared_ptr<MemoPool> pool;  // declared first: outlives the arrays, which return to it
    ChunkedArray<char> text;
    ChunkedArray<uint64_t> block_ids;  // of the full blocks
    ChunkedArray<uint64_t> ends;       // byte offset after each full block
    uint64_t stamp = 0;
    void Attach(const std::shared_ptr<MemoPool>& p) {
      if (pool) return;
      pool = p;
      text.set_pool(p.get());
      block_ids.set_pool(p.get());
      ends.set_pool(p.get());
    }
    void Clear() {
      text.Clear();
      block_ids.Clear();
      ends.Clear();
    }
    size_t bytes() const { return text.bytes() + block_ids.bytes() + ends.bytes(); }
  };

  size_t CodePointsPerBlock() const {
    return static_cast<size_t>(block_size_) * kCodePointsPerToken;
  }
  static int64_t Tokens(uint64_t cps) {
    return static_cast<int64_t>((cps + kCodePointsPerToken - 1) / kCodePointsPerToken);
  }

  // Cuts text[from..] into blocks (the chain positioned after the block before `from`), appends
  // their ids and returns their code points; records the full blocks in *memo when given.
  uint64_t CutFrom(std::string_view text, size_t from, BlockChain* chain,
                   std::vector<uint64_t>* ids, Memo* memo) {
    const size_t cps_per_block = CodePointsPerBlock();
    const char* p = text.data();
    const size_t n = text.size();
    size_t pos = from;
    uint64_t total_cp = 0;
    while (pos < n) {
      size_t end;
      size_t cps;
      if (n - pos >= cps_per_block && AllAscii(p + pos, cps_per_block)) {
        end = pos + cps_per_block;
        cps = cps_per_block;
      } else {
        // Walk code points: stop before the lead byte of code point number cps_per_block + 1.
        end = pos;
        cps = 0;
        while (end < n) {
          if (IsLead(p[end])) {
            if (cps == cps_per_block) break;
            ++cps;
          }
          ++end;
        }
      }
      total_cp += cps;
      std::string_view chunk(p + pos, end - pos);
      if (cps == cps_per_block) {
        ids->push_back(chain->Full(chunk));
        if (memo) {
          memo->block_ids.push_back(ids->back());
          memo->ends.push_back(static_cast<uint64_t>(end));
        }
      } else {
        ids->push_back(chain->Partial(chunk, static_cast<uint32_t>(cps)));
      }
      pos = end;
    }
    return total_cp;
  }

  std::shared_ptr<MemoPool> pool_;  // before store_: destroyed after the memos it holds
  std::shared_ptr<MemoStore<Memo>> store_;
  TextReuse reuse_;
};

class TokenCutter : public BlockCutter {
 public:
  TokenCutter(const Tokenizer* t, uint32_t bs) : BlockCutter(bs), tokenizer_(t) {}
  std::unique_ptr<BlockCutter> Sibling() const override {
    auto c = std::make_unique<TokenCutter>(tokenizer_, block_size_);
    c->store_ = store_;
    store_->AddBudget(kTokenMemoBudgetBytes);  // each worker brings its own (block_cutter.h)
    return c;
  }

  int64_t Cut(std::string_view text, BlockChain* chain, std::vector<uint64_t>* ids) override {
    reuse_ = {};
    chain->Reset();
    tokens_.clear();
    tokenizer_->Encode(text, &tokens_);
    HashBlocks(tokens_, 0, chain, ids);
    return static_cast<int64_t>(tokens_.size());
  }

  int64_t CutReusing(std::string_view text, uint64_t key, std::span<const uint64_t> earlier,
                     BlockChain* chain, std::vector<uint64_t>* ids) override {
    if (!tokenizer_->NewlineCutIsExact()) return Cut(text, chain, ids);
    // The memo of the request this one continues becomes this one's (the conversation moved
    // on): it is cut back to the reusable prefix and extended in place, so only new text, ids
    // and blocks are written.
    std::unique_ptr<Memo> m = store_->Take(earlier);
    size_t begin = 0;          // bytes of `text` whose ids come from the memo
    size_t reused_blocks = 0;  // full blocks inside them
    reuse_ = {};
    if (m) {
      // The last cut of the earlier text strictly inside the common prefix: the byte after it
      // (which the cut rule looks at) is common too, so it is an exact cut of both texts.
      const size_t common = CommonPrefix(text, m->text);
      reuse_.earlier = m->stamp;
      reuse_.common_bytes = common;
      auto it = std::lower_bound(m->cuts.begin(), m->cuts.end(), common,
                                 [](const MemoCut& c, size_t at) { return c.offset < at; });
      size_t kept_tokens = 0;
      if (it != m->cuts.begin()) {
        begin = std::prev(it)->offset;
        kept_tokens = std::prev(it)->tokens;
      }
      m->cuts.erase(it, m->cuts.end());
      m->text.resize(begin);
      m->tokens.resize(kept_tokens);
      reused_blocks = kept_tokens / block_size_;
      m->block_ids.resize(reused_blocks);
    } else {
      m = store_->Fresh();
    }
    ids->insert(ids->end(), m->block_ids.begin(), m->block_ids.end());
    // The rest segment by segment at exact newline cuts (the caching tokenizer's own spacing, so
    // it sees the segments it would have cut), each cut remembered with its token count.
    size_t from = begin;
    for (size_t cut : NewlineCuts(text.substr(begin), kMemoCutBytes)) {
      tokenizer_->Encode(text.substr(from, begin + cut - from), &m->tokens);
      from = begin + cut;
      m->cuts.push_back({from, static_cast<uint32_t>(m->tokens.size())});
    }
    tokenizer_->Encode(text.substr(from), &m->tokens);
    m->text.append(text.substr(begin));
    chain->ResumeAfter(reused_blocks > 0 ? m->block_ids.back() : 0);
    const size_t first_new = ids->size();
    HashBlocks(m->tokens, reused_blocks, chain, ids);
    m->block_ids.insert(m->block_ids.end(), ids->begin() + static_cast<ptrdiff_t>(first_new),
                        ids->end());
    const auto count = static_cast<int64_t>(m->tokens.size());
    reuse_.stamp = store_->Remember(key, std::move(m));
    return count;
  }

  TextReuse last_reuse() const override { return reuse_; }

  int64_t Count(std::string_view text) override {
    tokens_.clear();
    tokenizer_->Encode(text, &tokens_);
    return static_cast<int64_t>(tokens_.size());
  }

 private:
  // The caching tokenizer's default segment spacing (tokenize/caching_tokenizer.h): cutting the
  // same places keeps its cache keys.
  static constexpr size_t kMemoCutBytes = 256;
  struct MemoCut {
    size_t offset;    // byte offset of the cut in the text
    uint32_t tokens;  // ids before it
  };
  struct Memo {
    std::string text;
    std::vector<uint32_t> tokens;
    std::vector<uint64_t> block_ids;
    std::vector<MemoCut> cuts;
    uint64_t stamp = 0;  // when it was written (order_)
    void Clear() {
      text.clear();
      tokens.clear();
      block_ids.clear();
      cuts.clear();
    }
    size_t bytes() const {
      return text.capacity() + tokens.capacity() * 4 + block_ids.capacity() * 8 +
             cuts.capacity() * sizeof(MemoCut);
    }
  };

  // Block ids of `tokens` from block `first_block` on (the chain positioned after the block
  // before it), appended to *ids.
  void HashBlocks(const std::vector<uint32_t>& tokens, size_t first_block, BlockChain* chain,
                  std::vector<uint64_t>* ids) {
    const size_t from = first_block * block_size_;
    const size_t n = tokens.size() - from;
    bytes_.resize(n * 4);
    if constexpr (std::endian::native == std::endian::little) {
      if (n) std::memcpy(bytes_.data(), tokens.data() + from, n * 4);
    } else {
      for (size_t i = 0; i < n; ++i)
        for (int b = 0; b < 4; ++b)
          bytes_[4 * i + b] = static_cast<char>((tokens[from + i] >> (8 * b)) & 0xff);
    }
    for (size_t i = 0; i < n; i += block_size_) {
      size_t k = std::min<size_t>(block_size_, n - i);
      std::string_view chunk(bytes_.data() + 4 * i, 4 * k);
      ids->push_back(k == block_size_ ? chain->Full(chunk)
                                      : chain->Partial(chunk, static_cast<uint32_t>(k)));
    }
  }

  const Tokenizer* tokenizer_;
  std::vector<uint32_t> tokens_;
  std::string bytes_;
  std::shared_ptr<MemoStore<Memo>> store_ =
      std::make_shared<MemoStore<Memo>>(kTokenMemoBudgetBytes);
  TextReuse reuse_;
};

}  // namespace

size_t CountCodePoints(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += IsLead(c);
  return n;
}

std::unique_ptr<BlockCutter> MakeApproxCutter(uint32_t block_size, size_t memo_budget_bytes) {
  return std::make_unique<ApproxCutter>(block_size, memo_budget_bytes);
}

std::unique_ptr<BlockCutter> MakeTokenCutter(const Tokenizer* tokenizer, uint32_t block_size) {
  return std::make_unique<TokenCutter>(tokenizer, block_size);
}

}  // namespace ltl
