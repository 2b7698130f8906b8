// UTF-8 validation (simdjson's SIMD validator) and the maximal-subpart U+FFFD repair.
#include "tokenize/utf8.h"

#include <simdjson.h>

#include <cstdint>

#include "common/utf8_decode.h"

namespace ltl {

bool IsValidUtf8(std::string_view text) {
  return simdjson::validate_utf8(text.data(), text.size());
}

void ReplaceInvalidUtf8(std::string_view text, std::string* out) {
  // Each maximal subpart of an ill-formed sequence becomes one U+FFFD: the shared decoder's rule
  // (common/utf8_decode.h), which is the Encoding Standard's and Python's errors="replace".
  static constexpr char kReplacement[] = "\xEF\xBF\xBD";
  out->clear();
  out->reserve(text.size() + 16);
  size_t i = 0;
  while (i < text.size()) {
    const size_t start = i;
    if (NextUtf8(text, &i) < 0) {
      out->append(kReplacement, 3);
    } else {
      out->append(text.data() + start, i - start);
    }
  }
}

std::string_view ValidUtf8View(std::string_view text, std::string* storage) {
  if (IsValidUtf8(text)) return text;
  ReplaceInvalidUtf8(text, storage);
  return *storage;
}

}  // namespace ltl
