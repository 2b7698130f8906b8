// The GPT-2 "ByteLevel" alphabet used by Hugging Face byte-level BPE vocabularies: every byte is
// written as one printable code point (printable Latin-1 bytes as themselves, the other 68 bytes
// as U+0100.. in byte order). Vocabulary strings are mapped back to raw bytes with it.
// Internal to src/tokenize/ (tests/build/internal_headers.cmake).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ltl {

// Code point that stands for byte `b`.
uint32_t ByteLevelCodePoint(uint8_t b);

// Decodes a vocabulary string written in the ByteLevel alphabet to its raw bytes; nullopt when it
// contains a code point outside the alphabet (or is not valid UTF-8).
std::optional<std::string> ByteLevelDecode(std::string_view token);

}  // namespace ltl
