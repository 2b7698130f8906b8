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
  // Builds the search automaton once every token is added (the loader calls it; SplitText on a
  // matcher that was not finished works on a finished copy).
  void Finish();
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
  // where an rstrip took whitespace that holds the next token, exactly as there). Time linear in
  // the text plus the matches (issue 35, item 11), whatever the tokens' lengths.
  void SplitText(std::string_view text, std::vector<Split>* out) const;

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  // A token starting at `begin`: the longest one there.
  struct Match {
    size_t begin;
    uint32_t node;  // its terminal node
  };
  uint32_t Child(uint32_t node, uint8_t byte) const;  // kNone when there is no such edge

  std::vector<AddedToken> tokens_;
  // A byte trie over the REVERSED contents, with Aho-Corasick failure links: scanned from the
  // text's end, the state after reading text[s] knows every token that starts at s.
  // (node << 8 | byte) -> child; node 0 is the root, whose edges are also in root_.
  absl::flat_hash_map<uint64_t, uint32_t> edges_;
  std::array<uint32_t, 256> root_{};   // 0 = no edge
  std::vector<int32_t> terminal_{-1};  // node -> token index (when a content ends there)
  std::vector<uint32_t> depth_{0};     // node -> bytes from the root
  std::vector<uint32_t> fail_;         // node -> longest proper suffix that is a node
  std::vector<uint32_t> longest_;      // node -> nearest terminal on its failure chain, or kNone
  bool finished_ = false;
};

}  // namespace ltl
