// Added-token search: a byte trie walked from every position whose byte starts a token, longest
// terminal kept. (Hand-written: no installed C++ library offers leftmost-longest multi-string
// search; Gemma 3 has 6,415 added tokens, so trying each candidate in turn would be slow.)
#include "tokenize/added_tokens.h"

#include <algorithm>

#include "tokenize/unicode_props.h"

namespace ltl {

void AddedTokenMatcher::Add(AddedToken token) {
  if (token.content.empty()) return;
  uint32_t node = 0;
  for (char c : token.content) {
    const uint64_t key = (static_cast<uint64_t>(node) << 8) | static_cast<uint8_t>(c);
    auto it = edges_.find(key);
    if (it == edges_.end()) {
      const auto child = static_cast<uint32_t>(terminal_.size());
      terminal_.push_back(-1);
      edges_.emplace(key, child);
      node = child;
    } else {
      node = it->second;
    }
  }
  first_byte_[static_cast<uint8_t>(token.content[0])] = true;
  if (terminal_[node] >= 0) return;  // the same content twice: the first one is kept
  terminal_[node] = static_cast<int32_t>(tokens_.size());
  tokens_.push_back(std::move(token));
}

int32_t AddedTokenMatcher::LongestAt(std::string_view text, size_t i, size_t* len) const {
  int32_t best = -1;
  uint32_t node = 0;
  for (size_t k = i; k < text.size(); ++k) {
    auto it = edges_.find((static_cast<uint64_t>(node) << 8) | static_cast<uint8_t>(text[k]));
    if (it == edges_.end()) break;
    node = it->second;
    if (terminal_[node] >= 0) {
      best = terminal_[node];
      *len = k + 1 - i;
    }
  }
  return best;
}

void AddedTokenMatcher::SplitText(std::string_view text, std::vector<Split>* out) const {
  out->clear();
  size_t start_offset = 0;
  size_t i = 0;
  size_t len = 0;
  while (i < text.size()) {
    if (!first_byte_[static_cast<uint8_t>(text[i])]) {
      ++i;
      continue;
    }
    const int32_t index = LongestAt(text, i, &len);
    if (index < 0) {
      ++i;
      continue;
    }
    const AddedToken& t = tokens_[index];
    size_t start = i, stop = i + len;
    i = stop;  // the automaton resumes after the match, kept or not
    if (t.single_word) {
      size_t n = 0;
      const bool word_before = start > 0 && IsRegexWordChar(DecodeUtf8Before(text, start, &n));
      const bool word_after = stop < text.size() && IsRegexWordChar(DecodeUtf8At(text, stop, &n));
      if (word_before || word_after) continue;
    }
    if (t.lstrip) {
      size_t b = start, n = 0;
      while (b > 0 && IsUnicodeWhiteSpace(DecodeUtf8Before(text, b, &n))) b -= n;
      start = std::max(b, start_offset);
    }
    if (t.rstrip) {
      size_t n = 0;
      while (stop < text.size() && IsUnicodeWhiteSpace(DecodeUtf8At(text, stop, &n))) stop += n;
    }
    if (start_offset < start) out->push_back({start_offset, start, kNoRank});
    out->push_back({start, stop, t.id});
    start_offset = stop;
  }
  if (start_offset < text.size()) out->push_back({start_offset, text.size(), kNoRank});
}

bool AddedTokenMatcher::NewlineCutIsExact() const {
  auto follower = [](char c) { return c > 0x20 && c < 0x7F && c != '/'; };
  return std::none_of(tokens_.begin(), tokens_.end(), [&](const AddedToken& t) {
    const std::string& s = t.content;
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      if (s[i] == '\n' && follower(s[i + 1])) return true;  // could match across the cut
    }
    // lstrip would take the '\n' before a token starting right after the cut; single_word would
    // see the byte after the cut next to a token ending with the '\n'.
    return (t.lstrip && follower(s.front())) || (t.single_word && s.back() == '\n');
  });
}

}  // namespace ltl
