// HfTokenizer: a Hugging Face tokenizer.json with a BPE model, encoded like
// `tokenizer.encode(text, add_special_tokens=False)`: added tokens with `normalized: false` are
// found in the raw text first, each stretch between them is normalized, tokens with
// `normalized: true` are found in the normalized stretch, what remains is pre-tokenized and each
// piece encoded by the BPE model. Post-processor tokens such as a BOS are not added: a chat
// template's rendered text already carries its own.
// Internal to src/tokenize/ (tests/build/internal_headers.cmake).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "tokenize/added_tokens.h"
#include "tokenize/hf_bpe_model.h"
#include "tokenize/hf_normalizer.h"
#include "tokenize/hf_pre_tokenizer.h"
#include "tokenize/tokenizer.h"

namespace ltl {

class HfTokenizer final : public Tokenizer {
 public:
  struct Parts {
    HfNormalizer normalizer;
    HfPreTokenizer pre;
    HfBpeModel model;
    AddedTokenMatcher raw_tokens;         // normalized: false
    AddedTokenMatcher normalized_tokens;  // normalized: true (contents normalized)
  };
  HfTokenizer(std::string name, std::string path, Parts parts);

  const std::string& name() const override { return name_; }
  void Encode(std::string_view text, std::vector<uint32_t>* out) const override;
  bool NewlineCutIsExact() const override { return newline_cut_exact_; }
  Status EncodeStatus() const override;

 private:
  void EncodeStretch(std::string_view raw, bool at_origin, std::vector<uint32_t>* out) const;
  void EncodeNormalized(std::string_view text, bool at_origin, std::vector<uint32_t>* out) const;

  std::string name_;
  std::string path_;
  Parts p_;
  bool newline_cut_exact_ = false;
};

// Loads a tokenizer.json; unsupported models, normalizers or pre-tokenizers are clear errors
// naming the file.
Result<std::unique_ptr<Tokenizer>> LoadHfTokenizerJson(const std::string& path);

}  // namespace ltl
