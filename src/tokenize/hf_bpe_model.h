// HfBpeModel: the `model` of a tokenizer.json of type BPE, as Hugging Face tokenizers' BPE encodes
// one pre-tokenized word (model.rs merge_word + Word::merge_all): the word's characters are looked
// up (with continuing_subword_prefix / end_of_word_suffix), unknown ones become their byte tokens
// "<0xAB>" (byte_fallback) or unk_token (fused when fuse_unk), then adjacent symbols are merged
// lowest merge rank first; ignore_merges first takes the whole word when it is in the vocabulary.
// Two alphabets: byte-level vocabularies (GPT-2's ByteLevel, the characters are bytes and the
// vocabulary strings are stored as their raw bytes) and character vocabularies (SentencePiece-
// style, "▁" for spaces: the characters are Unicode code points).
// A per-thread word cache (word bytes -> ids, as tokenizers' own BPE cache) skips the merging of
// words seen before: the ids of a word depend on nothing but its bytes and the model.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <array>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "tokenize/bpe_merge.h"
#include "tokenize/rank_table.h"

namespace ltl {

class HfBpeModel {
 public:
  // Reads `model` (type BPE); `byte_level` when a ByteLevel pre-tokenizer maps the text to bytes.
  static Result<HfBpeModel> FromJson(const nlohmann::json& model, bool byte_level);

  // The same from the model's small keys (`model`, whose "vocab" and "merges" are not read) and
  // its vocabulary and merges given apart, as views into a document parsed elsewhere (the
  // tokenizer.json loader reads those two, 99% of the file, with simdjson). Null = missing.
  using Vocabulary = std::vector<std::pair<std::string_view, uint32_t>>;  // in file order
  struct MergeEntry {
    enum Form { kMalformed, kSpaced, kPair } form = kMalformed;
    std::string_view left;   // kSpaced: the whole "a b"
    std::string_view right;  // kPair only
  };
  static Result<HfBpeModel> FromParts(const nlohmann::json& model, const Vocabulary* vocab,
                                      const std::vector<MergeEntry>* merges, bool byte_level);

  // Appends the ids of one word (a pre-tokenized piece, valid UTF-8).
  void EncodeWord(std::string_view word, std::vector<uint32_t>* out) const {
    if (word.empty()) return;
    if (ignore_merges_) {
      const uint32_t id = vocab_.Find(word);
      if (id != kNoRank) {
        out->push_back(id);
        return;
      }
    }
    EncodeCached(word, out);
  }

  bool byte_level() const { return byte_level_; }
  // True when, for a word W = A + B with A ending in '\n' and B starting with an ASCII byte other
  // than whitespace and '/', the ids of W are the ids of A followed by those of B: no vocabulary
  // entry spans such a boundary, no prefix/suffix marks word edges, ignore_merges cannot take A or
  // B whole, and '\n' never becomes a (fusable) unknown.
  bool WordCutIsExact() const { return word_cut_exact_; }
  size_t vocab_size() const { return vocab_.size(); }

 private:
  void EncodeCached(std::string_view word, std::vector<uint32_t>* out) const;
  void EncodeUnits(std::string_view word, std::vector<uint32_t>* out) const;
  void MergeSymbols(std::vector<uint32_t>* out) const;  // merges Scratch().symbols, appends ids
  static MergeScratch& Scratch();
  RankTable vocab_;  // alphabet strings (raw bytes when byte_level_) -> id
  absl::flat_hash_map<uint64_t, std::pair<uint32_t, uint32_t>> merges_;  // (l,r) -> (rank, id)
  std::array<uint32_t, 256> fallback_id_{};  // "<0xAB>" ids, when byte_fallback
  bool byte_level_ = false;
  bool ignore_merges_ = false;
  bool byte_fallback_ = false;
  bool fuse_unk_ = false;
  uint32_t unk_id_ = kNoRank;
  std::string prefix_;  // continuing_subword_prefix (in raw bytes when byte_level_)
  std::string suffix_;  // end_of_word_suffix
  bool word_cut_exact_ = false;
  uint64_t cache_owner_ = 0;      // names this model's vocabulary in the per-thread word caches
  bool all_bytes_plain_ = false;  // byte-level, every byte a token, no prefix/suffix
};

}  // namespace ltl
