// The one UTF-8 decoder of the code base (the chat-template engine, the tokenizers, the labels, the
// cache-trace JSON writer and the invalid-UTF-8 repair all decode through it). It is ICU's U8_NEXT
// (unicode/utf8.h: a header-only macro, so common/ still links no ICU), which checks RFC 3629
// (no overlongs, no surrogates, nothing past U+10FFFF) and consumes an ill-formed sequence as one
// maximal subpart — the rule of Unicode's "U+FFFD substitution of maximal subparts", which
// Python's errors="replace" and the WHATWG decoder follow.
#pragma once

#include <unicode/utf8.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ltl {

// The code point at text[*i] (*i < text.size()), advancing *i past it; -1 when the bytes there are
// ill-formed, *i then past their maximal subpart (at least one byte).
inline int32_t NextUtf8(std::string_view text, size_t* i) {
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t length = text.size();
  size_t at = *i;
  UChar32 c;
  U8_NEXT(s, at, length, c);
  *i = at;
  return c;
}

// The length of the well-formed sequence at text[i], or 0 when it is ill-formed.
inline size_t WellFormedUtf8Length(std::string_view text, size_t i) {
  size_t next = i;
  return NextUtf8(text, &next) < 0 ? 0 : next - i;
}

// The code point ending at text[end) (end > 0) and, in *begin, where it starts: the last sequence
// that decodes to exactly end; -1 and end - 1 when none does (a stray byte).
inline int32_t PrevUtf8(std::string_view text, size_t end, size_t* begin) {
  size_t start = end - 1;
  for (int back = 0; start > 0 && back < 3 && (static_cast<uint8_t>(text[start]) & 0xC0) == 0x80;
       ++back)
    --start;
  size_t next = start;
  const int32_t c = NextUtf8(text, &next);
  if (c >= 0 && next == end) {
    *begin = start;
    return c;
  }
  *begin = end - 1;
  return -1;
}

}  // namespace ltl
