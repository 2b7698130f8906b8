// HfBpeTokenizer: a Hugging Face tokenizer.json with a byte-level BPE model (model.type "BPE" with
// vocab and merges, a ByteLevel pre_tokenizer optionally preceded by Split regexes, added_tokens,
// ignore_merges, an optional NFC normalizer). Encodes like `tokenizer.encode(text,
// add_special_tokens=False)`: added tokens in the text are recognised (that is how chat-template
// markup reaches the model), post-processor tokens such as a BOS are not added.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <memory>
#include <string>

#include "tokenize/added_tokens.h"
#include "tokenize/hf_pre_tokenizer.h"
#include "tokenize/rank_table.h"
#include "tokenize/tokenizer.h"

namespace ltl {

class HfBpeTokenizer final : public Tokenizer {
 public:
  struct Model {
    RankTable vocab;  // raw bytes -> id, for every vocabulary entry in the ByteLevel alphabet
    std::array<uint32_t, 256> byte_id{};
    absl::flat_hash_map<uint64_t, std::pair<uint32_t, uint32_t>> merges;  // (l,r) -> (rank, id)
    bool ignore_merges = false;
    uint32_t unk_id = kNoRank;
  };

  HfBpeTokenizer(std::string name, Model model, HfPreTokenizer pre, AddedTokenMatcher added,
                 bool nfc)
      : name_(std::move(name)),
        model_(std::move(model)),
        pre_(std::move(pre)),
        added_(std::move(added)),
        nfc_(nfc) {}

  const std::string& name() const override { return name_; }
  void Encode(std::string_view text, std::vector<uint32_t>* out) const override;
  bool NewlineCutIsExact() const override {
    return pre_.NewlineCutIsExact() && added_.NewlineCutIsExact();
  }

 private:
  void EncodeSegment(std::string_view segment, std::vector<uint32_t>* out) const;
  void EncodeWord(std::string_view word, std::vector<uint32_t>* out) const;

  std::string name_;
  Model model_;
  HfPreTokenizer pre_;
  AddedTokenMatcher added_;
  bool nfc_;
};

// Loads a tokenizer.json; unsupported models, normalizers or pre-tokenizers are clear errors.
Result<std::unique_ptr<Tokenizer>> LoadHfTokenizerJson(const std::string& path);

}  // namespace ltl
