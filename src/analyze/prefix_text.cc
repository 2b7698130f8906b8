// Prefix text cutting and terminal escaping (see prefix_text.h).
#include "analyze/prefix_text.h"

#include <fmt/format.h>

#include <vector>

namespace ltl {
namespace {

// Byte offset just past the first n code points of s (s.size() if it has fewer).
size_t CodePointOffset(std::string_view s, size_t n) {
  size_t i = 0, seen = 0;
  while (i < s.size()) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (seen == n) return i;
      ++seen;
    }
    ++i;
  }
  return s.size();
}

size_t TokensOf(const Tokenizer& t, std::string_view s) {
  std::vector<uint32_t> ids;
  t.Encode(s, &ids);
  return ids.size();
}

}  // namespace

std::string PrefixTextOf(std::string_view prompt, uint32_t blocks, uint32_t block_size,
                         size_t n_chars, const Tokenizer* tokenizer) {
  const uint64_t prefix_tokens = static_cast<uint64_t>(blocks) * block_size;
  size_t chars = n_chars;
  if (!tokenizer) {
    chars = static_cast<size_t>(std::min<uint64_t>(n_chars, prefix_tokens * 4));
  } else if (TokensOf(*tokenizer, prompt.substr(0, CodePointOffset(prompt, n_chars))) >
             prefix_tokens) {
    // The largest code-point count whose encoding fits in the prefix's tokens.
    size_t lo = 0, hi = n_chars;
    while (lo < hi) {
      const size_t mid = (lo + hi + 1) / 2;
      if (TokensOf(*tokenizer, prompt.substr(0, CodePointOffset(prompt, mid))) <= prefix_tokens)
        lo = mid;
      else
        hi = mid - 1;
    }
    chars = lo;
  }
  return std::string(prompt.substr(0, CodePointOffset(prompt, chars)));
}

std::string TerminalSafe(std::string_view text) {
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\\')
      out += "\\\\";
    else if (u < 0x20 || u == 0x7f)
      out += fmt::format("\\x{:02x}", u);
    else
      out += c;
  }
  return out;
}

}  // namespace ltl
