// Added-token search: a first-byte filter, then the candidates sharing that byte, longest first.
// (Hand-written: vocabularies have a few hundred added tokens at most, so a byte table beats
// building an automaton; no installed library offers leftmost-longest multi-string search.)
#include "tokenize/added_tokens.h"

#include <algorithm>
#include <cctype>

namespace ltl {
namespace {

bool IsWhiteSpaceAt(std::string_view text, size_t i, size_t* len) {
  const auto c = static_cast<uint8_t>(text[i]);
  if (c == ' ' || (c >= '\t' && c <= '\r')) {
    *len = 1;
    return true;
  }
  return false;
}

bool IsWordByte(uint8_t c) {
  return c >= 0x80 || std::isalnum(c) || c == '_';
}

}  // namespace

void AddedTokenMatcher::Add(AddedToken token) {
  if (token.content.empty()) return;
  const auto first = static_cast<uint8_t>(token.content[0]);
  tokens_.push_back(std::move(token));
  auto& list = by_first_[first];
  list.push_back(static_cast<uint32_t>(tokens_.size() - 1));
  std::stable_sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
    return tokens_[a].content.size() > tokens_[b].content.size();
  });
}

bool AddedTokenMatcher::NewlineCutIsExact() const {
  return std::none_of(tokens_.begin(), tokens_.end(), [](const AddedToken& t) {
    return t.lstrip || t.single_word || t.content.find('\n') != std::string::npos;
  });
}

bool AddedTokenMatcher::Find(std::string_view text, size_t from, Match* match) const {
  for (size_t i = from; i < text.size(); ++i) {
    const auto& list = by_first_[static_cast<uint8_t>(text[i])];
    for (uint32_t index : list) {
      const AddedToken& t = tokens_[index];
      if (text.compare(i, t.content.size(), t.content) != 0) continue;
      size_t begin = i, end = i + t.content.size();
      if (t.single_word) {
        const bool word_before = begin > 0 && IsWordByte(static_cast<uint8_t>(text[begin - 1]));
        const bool word_after = end < text.size() && IsWordByte(static_cast<uint8_t>(text[end]));
        if (word_before || word_after) continue;
      }
      size_t len;
      if (t.lstrip) {
        while (begin > from && IsWhiteSpaceAt(text, begin - 1, &len)) begin -= len;
      }
      if (t.rstrip) {
        while (end < text.size() && IsWhiteSpaceAt(text, end, &len)) end += len;
      }
      *match = {begin, end, t.id};
      return true;
    }
  }
  return false;
}

}  // namespace ltl
