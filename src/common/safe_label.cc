// SafeLabel (see safe_label.h): what is not a well-formed (common/utf8_decode.h), printable scalar
// value is replaced.
#include "common/safe_label.h"

#include <algorithm>
#include <cstdio>

#include "common/utf8_decode.h"

namespace ltl {

std::string SafeLabel(std::string_view s, size_t max_bytes) {
  std::string out;
  out.reserve(std::min(s.size(), max_bytes + 3));
  for (size_t i = 0; i < s.size();) {
    size_t n = WellFormedUtf8Length(s, i);
    if (out.size() + std::max<size_t>(n, 1) > max_bytes) {
      out += "...";
      break;
    }
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const bool c1_control = n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0;
    if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7F)) || c1_control) {
      out.push_back('?');
      i += n == 0 ? 1 : n;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string EscapeForTerminal(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = WellFormedUtf8Length(s, i);
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const bool c1_control = n == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0;
    if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7F))) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
      ++i;
    } else if (c1_control) {
      for (size_t k = 0; k < 2; ++k) {
        char hex[5];
        std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(s[i + k]));
        out += hex;
      }
      i += 2;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

}  // namespace ltl
