// The few Unicode facts Python's str methods depend on: UTF-8 stepping by code point, str.isspace
// (what strip()/split() remove and regex \s matches), str.isprintable (repr), and full case
// mapping (upper/lower/title/capitalize, via ICU as CPython's tables would give).
// Internal to src/jinja/ (tests/build/internal_headers.cmake).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/utf8_append.h"  // AppendUtf8

namespace ltl::ct {

// Decodes the code point at s[i] and advances i (common/utf8_decode.h); an ill-formed byte decodes
// as itself (0x80..0xFF) and advances one byte.
uint32_t NextCodePoint(std::string_view s, size_t* i);
// The start of the code point ending at s[end-1].
size_t PrevCodePointStart(std::string_view s, size_t end);
// Number of code points (Python len()).
size_t CodePointCount(std::string_view s);
bool IsAscii(std::string_view s);
// Byte offset of code point index `cp` (clamped to the end).
size_t ByteOffsetOfCodePoint(std::string_view s, size_t cp);

bool IsPySpace(uint32_t cp);
bool IsPyPrintable(uint32_t cp);
bool IsPyAlpha(uint32_t cp);
bool IsPyDigit(uint32_t cp);
bool IsPyAlnum(uint32_t cp);
bool IsPyUpper(uint32_t cp);
bool IsPyLower(uint32_t cp);

std::string PyUpper(std::string_view s);
std::string PyLower(std::string_view s);
std::string PyTitle(std::string_view s);       // str.title()
std::string PyCapitalize(std::string_view s);  // str.capitalize()

}  // namespace ltl::ct
