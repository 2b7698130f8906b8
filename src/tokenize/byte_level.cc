// ByteLevel alphabet tables, built once.
#include "tokenize/byte_level.h"

#include <vector>

namespace ltl {
namespace {

struct Tables {
  std::array<uint32_t, 256> to_code_point{};
  std::array<int16_t, 512> to_byte{};  // code points < 512 only
  Tables() {
    to_byte.fill(-1);
    uint32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
      to_code_point[b] = printable ? static_cast<uint32_t>(b) : next++;
      to_byte[to_code_point[b]] = static_cast<int16_t>(b);
    }
  }
};

const Tables& GetTables() {
  static const Tables tables;
  return tables;
}

}  // namespace

uint32_t ByteLevelCodePoint(uint8_t b) {
  return GetTables().to_code_point[b];
}

std::optional<std::string> ByteLevelDecode(std::string_view token) {
  const Tables& t = GetTables();
  std::string out;
  size_t i = 0;
  while (i < token.size()) {
    const auto c0 = static_cast<uint8_t>(token[i]);
    uint32_t cp;
    if (c0 < 0x80) {
      cp = c0;
      i += 1;
    } else if ((c0 & 0xE0) == 0xC0 && i + 1 < token.size()) {
      cp = ((c0 & 0x1Fu) << 6) | (static_cast<uint8_t>(token[i + 1]) & 0x3Fu);
      i += 2;
    } else {
      return std::nullopt;  // every ByteLevel code point is below U+0800
    }
    if (cp >= t.to_byte.size() || t.to_byte[cp] < 0) return std::nullopt;
    out.push_back(static_cast<char>(t.to_byte[cp]));
  }
  return out;
}

}  // namespace ltl
