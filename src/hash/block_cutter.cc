// The approximate and token-id block cutters (see block_cutter.h). The approximate cutter's hot
// loop takes 64-byte strides when they are all ASCII (one OR of eight words) and walks bytes only
// around multi-byte characters.
#include "hash/block_cutter.h"

#include <cstring>

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

class ApproxCutter : public BlockCutter {
 public:
  explicit ApproxCutter(uint32_t bs) : BlockCutter(bs) {}
  bool approximate() const override { return true; }

  int64_t Cut(std::string_view text, BlockChain* chain, std::vector<uint64_t>* ids) override {
    chain->Reset();
    const size_t cps_per_block = static_cast<size_t>(block_size_) * kCodePointsPerToken;
    const char* p = text.data();
    const size_t n = text.size();
    size_t pos = 0;
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
      if (cps == cps_per_block)
        ids->push_back(chain->Full(chunk));
      else
        ids->push_back(chain->Partial(chunk, static_cast<uint32_t>(cps)));
      pos = end;
    }
    return static_cast<int64_t>((total_cp + kCodePointsPerToken - 1) / kCodePointsPerToken);
  }

  int64_t Count(std::string_view text) override {
    return static_cast<int64_t>((CountCodePoints(text) + kCodePointsPerToken - 1) /
                                kCodePointsPerToken);
  }
};

class TokenCutter : public BlockCutter {
 public:
  TokenCutter(const Tokenizer* t, uint32_t bs) : BlockCutter(bs), tokenizer_(t) {}

  int64_t Cut(std::string_view text, BlockChain* chain, std::vector<uint64_t>* ids) override {
    chain->Reset();
    tokens_.clear();
    tokenizer_->Encode(text, &tokens_);
    bytes_.resize(tokens_.size() * 4);
    for (size_t i = 0; i < tokens_.size(); ++i)
      for (int b = 0; b < 4; ++b)
        bytes_[4 * i + b] = static_cast<char>((tokens_[i] >> (8 * b)) & 0xff);
    for (size_t i = 0; i < tokens_.size(); i += block_size_) {
      size_t k = std::min<size_t>(block_size_, tokens_.size() - i);
      std::string_view chunk(bytes_.data() + 4 * i, 4 * k);
      ids->push_back(k == block_size_ ? chain->Full(chunk)
                                      : chain->Partial(chunk, static_cast<uint32_t>(k)));
    }
    return static_cast<int64_t>(tokens_.size());
  }

  int64_t Count(std::string_view text) override {
    tokens_.clear();
    tokenizer_->Encode(text, &tokens_);
    return static_cast<int64_t>(tokens_.size());
  }

 private:
  const Tokenizer* tokenizer_;
  std::vector<uint32_t> tokens_;
  std::string bytes_;
};

}  // namespace

size_t CountCodePoints(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += IsLead(c);
  return n;
}

std::unique_ptr<BlockCutter> MakeApproxCutter(uint32_t block_size) {
  return std::make_unique<ApproxCutter>(block_size);
}

std::unique_ptr<BlockCutter> MakeTokenCutter(const Tokenizer* tokenizer, uint32_t block_size) {
  return std::make_unique<TokenCutter>(tokenizer, block_size);
}

}  // namespace ltl
