// TiktokenTokenizer: OpenAI tiktoken's byte-level BPE (cl100k_base, o200k_base, any .tiktoken ranks
// file) with encode_ordinary semantics: split by the encoding's pattern, then each piece is one
// token when its bytes have a rank, otherwise byte-pair merged by rank.
#pragma once

#include <memory>
#include <string>

#include "tokenize/rank_table.h"
#include "tokenize/split_regex.h"
#include "tokenize/tokenizer.h"

namespace ltl {

// The split patterns as the npm `tiktoken` package (1.0.22) ships them in `pat_str`.
extern const char kCl100kPattern[];
extern const char kO200kPattern[];
extern const char kGpt2Pattern[];   // r50k_base / p50k_base
extern const char kQwen2Pattern[];  // cl100k_base's with single digits (Qwen2/2.5/3 tokenizer.json)

// True when `pattern` is one of the split patterns above, for which cutting after '\n' before an
// ASCII byte other than whitespace and '/' is a piece boundary that no match looks across.
bool IsNewlineCutSafePattern(std::string_view pattern);

class TiktokenTokenizer final : public Tokenizer {
 public:
  TiktokenTokenizer(std::string name, RankTable ranks, std::shared_ptr<const SplitRegex> regex)
      : name_(std::move(name)), ranks_(std::move(ranks)), regex_(std::move(regex)) {}

  const std::string& name() const override { return name_; }
  void Encode(std::string_view text, std::vector<uint32_t>* out) const override;
  // Holds for the cl100k_base, o200k_base and GPT-2 pattern families (docs/SEMANTICS.md).
  bool NewlineCutIsExact() const override;
  Status EncodeStatus() const override;
  const RankTable& ranks() const { return ranks_; }

 private:
  void EncodePiece(std::string_view piece, std::vector<uint32_t>* out) const;
  std::string name_;
  RankTable ranks_;
  std::shared_ptr<const SplitRegex> regex_;
};

// Parses a .tiktoken ranks file ("<base64 bytes> <rank>" per line). Errors name FILE:LINE.
Result<RankTable> ReadTiktokenRanks(const std::string& path);
Result<RankTable> ParseTiktokenRanks(std::string_view data, const std::string& path);

// Loads a .tiktoken file with `pattern`; `name` is what reports show. When `expected_sha256` is
// not empty the file must have that digest (the published vocabularies).
Result<std::unique_ptr<Tokenizer>> LoadTiktokenFile(const std::string& path, std::string name,
                                                    std::string_view pattern,
                                                    std::string_view expected_sha256 = {});

}  // namespace ltl
