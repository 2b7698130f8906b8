// AddedTokenMatcher: finds a tokenizer.json's added tokens (`added_tokens`) in text the way Hugging
// Face tokenizers does before any model runs: leftmost match, longest token on ties, with the
// token's lstrip / rstrip (swallow the adjacent whitespace) and single_word options.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ltl {

struct AddedToken {
  std::string content;
  uint32_t id = 0;
  bool lstrip = false;
  bool rstrip = false;
  bool single_word = false;
};

class AddedTokenMatcher {
 public:
  void Add(AddedToken token);
  bool empty() const { return tokens_.empty(); }
  // False when a token could match differently in parts of a text cut after '\n' than in the
  // whole: it contains '\n', strips whitespace on its left, or must stand as a single word.
  bool NewlineCutIsExact() const;

  struct Match {
    size_t begin;  // span removed from the text, including stripped whitespace
    size_t end;
    uint32_t id;
  };
  // Finds the first added token at or after `from`; false when there is none.
  bool Find(std::string_view text, size_t from, Match* match) const;

 private:
  std::vector<AddedToken> tokens_;                     // longest first within a first byte
  std::array<std::vector<uint32_t>, 256> by_first_{};  // indexes into tokens_
};

}  // namespace ltl
