// UTF-8 validation (simdjson's SIMD validator) and the maximal-subpart U+FFFD repair.
#include "tokenize/utf8.h"

#include <simdjson.h>

#include <cstdint>

namespace ltl {

bool IsValidUtf8(std::string_view text) {
  return simdjson::validate_utf8(text.data(), text.size());
}

void ReplaceInvalidUtf8(std::string_view text, std::string* out) {
  // Hand-written: no installed library exposes the WHATWG replacement rule; it follows the
  // decoder algorithm of the Encoding Standard (bounds of the second byte depend on the first).
  static constexpr char kReplacement[] = "\xEF\xBF\xBD";
  out->clear();
  out->reserve(text.size() + 16);
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const uint8_t b = s[i];
    if (b < 0x80) {
      out->push_back(static_cast<char>(b));
      ++i;
      continue;
    }
    size_t need = 0;
    uint8_t lower = 0x80, upper = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
      need = 1;
    } else if (b >= 0xE0 && b <= 0xEF) {
      need = 2;
      if (b == 0xE0) lower = 0xA0;
      if (b == 0xED) upper = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      need = 3;
      if (b == 0xF0) lower = 0x90;
      if (b == 0xF4) upper = 0x8F;
    } else {
      out->append(kReplacement, 3);
      ++i;
      continue;
    }
    size_t k = 1;
    for (; k <= need; ++k) {
      if (i + k >= n || s[i + k] < lower || s[i + k] > upper) break;
      lower = 0x80;
      upper = 0xBF;
    }
    if (k <=
        need) {  // ill-formed: the consumed prefix (lead plus valid continuations) is one U+FFFD
      out->append(kReplacement, 3);
      i += k;
      continue;
    }
    out->append(text.data() + i, need + 1);
    i += need + 1;
  }
}

std::string_view ValidUtf8View(std::string_view text, std::string* storage) {
  if (IsValidUtf8(text)) return text;
  ReplaceInvalidUtf8(text, storage);
  return *storage;
}

}  // namespace ltl
