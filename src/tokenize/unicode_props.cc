// ICU-backed character properties, and the tokenizers' one-code-point steps over the shared
// decoder (common/utf8_decode.h) (see unicode_props.h).
#include "tokenize/unicode_props.h"

#include <unicode/uchar.h>

#include <string>

#include "common/utf8_decode.h"

namespace ltl {

uint32_t DecodeUtf8At(std::string_view text, size_t i, size_t* len) {
  size_t next = i;
  const int32_t c = NextUtf8(text, &next);
  *len = next - i;
  return c < 0 ? 0xFFFD : static_cast<uint32_t>(c);
}

uint32_t DecodeUtf8Before(std::string_view text, size_t end, size_t* len) {
  size_t begin = end - 1;
  const int32_t c = PrevUtf8(text, end, &begin);
  *len = end - begin;
  return c < 0 ? 0xFFFD : static_cast<uint32_t>(c);
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
