// ICU-backed character properties and small UTF-8 helpers (see unicode_props.h).
#include "tokenize/unicode_props.h"

#include <unicode/uchar.h>

#include <string>

namespace ltl {

uint32_t DecodeUtf8At(std::string_view text, size_t i, size_t* len) {
  const auto c0 = static_cast<uint8_t>(text[i]);
  if (c0 < 0x80) {
    *len = 1;
    return c0;
  }
  auto cont = [&](size_t k) { return static_cast<uint8_t>(text[i + k]) & 0x3Fu; };
  if (c0 < 0xE0) {
    *len = 2;
    return ((c0 & 0x1Fu) << 6) | cont(1);
  }
  if (c0 < 0xF0) {
    *len = 3;
    return ((c0 & 0x0Fu) << 12) | (cont(1) << 6) | cont(2);
  }
  *len = 4;
  return ((c0 & 0x07u) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3);
}

uint32_t DecodeUtf8Before(std::string_view text, size_t end, size_t* len) {
  size_t begin = end - 1;
  while (begin > 0 && (static_cast<uint8_t>(text[begin]) & 0xC0) == 0x80) --begin;
  return DecodeUtf8At(text, begin, len);
}

bool IsUnicodeWhiteSpace(uint32_t cp) {
  return u_isUWhiteSpace(static_cast<UChar32>(cp));
}

bool IsRegexWordChar(uint32_t cp) {
  const auto c = static_cast<UChar32>(cp);
  if (cp < 0x80) return (cp >= '0' && cp <= '9') || (cp | 0x20) - 'a' < 26 || cp == '_';
  return u_hasBinaryProperty(c, UCHAR_ALPHABETIC) ||
         (U_GET_GC_MASK(c) & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) != 0 ||
         u_hasBinaryProperty(c, UCHAR_JOIN_CONTROL);
}

bool IsCombiningMark(uint32_t cp) {
  return (U_GET_GC_MASK(static_cast<UChar32>(cp)) & U_GC_M_MASK) != 0;
}

}  // namespace ltl
