// Character properties the Hugging Face tokenizers pipeline tests with Rust's definitions, taken
// from ICU: White_Space (Rust `char::is_whitespace`, regex `\s`), regex `\w` (Alphabetic, marks,
// decimal digits, connector punctuation, Join_Control), and one-code-point UTF-8 decoding on
// valid text.
// Internal to src/tokenize/ (tests/build/internal_headers.cmake).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/utf8_append.h"  // AppendUtf8

namespace ltl {

// Decodes the code point starting at text[i] (text is valid UTF-8; an ill-formed sequence would
// give U+FFFD over its maximal subpart: common/utf8_decode.h); sets *len to its bytes.
uint32_t DecodeUtf8At(std::string_view text, size_t i, size_t* len);
// The code point ending right before text[end] (end > 0); sets *len to its bytes.
uint32_t DecodeUtf8Before(std::string_view text, size_t end, size_t* len);

bool IsUnicodeWhiteSpace(uint32_t cp);
bool IsRegexWordChar(uint32_t cp);
bool IsCombiningMark(uint32_t cp);  // general category M (Mn, Mc, Me)

}  // namespace ltl
