// AddedTokenMatcher: finds a tokenizer.json's added tokens (`added_tokens`) in text the way Hugging
// Face tokenizers' AddedVocabulary does before any model runs (find_matches): leftmost-longest
// non-overlapping matches (its Aho-Corasick LeftmostLongest automaton), a single_word token is
// skipped where a word character (regex `\w`) touches it, lstrip / rstrip take the adjacent
// Unicode whitespace into the token. Two matchers are used per tokenizer: tokens with
// `normalized: false` on the raw text, the others on each normalized stretch.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenize/rank_table.h"

namespace ltl {

struct AddedToken {
  std::string content;  // as matched (normalized tokens: the normalized content)
  uint32_t id = 0;
  bool lstrip = false;
  bool rstrip = false;
  bool single_word = false;
};

class AddedTokenMatcher {
 public:
  void Add(AddedToken token);
  bool empty() const { return tokens_.empty(); }
  size_t size() const { return tokens_.size(); }
  // False when a token could match differently in the parts of a text cut after a '\n' followed
  // by an ASCII byte other than whitespace and '/' than in the whole (docs/SEMANTICS.md).
  bool NewlineCutIsExact() const;

  // One piece of the text: an added token (id != kNoRank) or a stretch between tokens.
  struct Split {
    size_t begin;
    size_t end;
    uint32_t id;
  };
  // Splits `text` (valid UTF-8) into pieces covering it, as find_matches does (pieces can overlap
  // where an rstrip took whitespace that holds the next token, exactly as there).
  void SplitText(std::string_view text, std::vector<Split>* out) const;

 private:
  // The longest token starting at text[i], or -1.
  int32_t LongestAt(std::string_view text, size_t i, size_t* len) const;

  std::vector<AddedToken> tokens_;
  // A byte trie over the contents: (node << 8 | byte) -> child; node 0 is the root.
  absl::flat_hash_map<uint64_t, uint32_t> edges_;
  std::vector<int32_t> terminal_{-1};  // node -> token index (when the content ends there)
  std::array<bool, 256> first_byte_{};
};

}  // namespace ltl
