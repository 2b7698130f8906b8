// ASCII text helpers: case folding (never locale-dependent, never touching non-ASCII bytes) and
// splitting option lists. Written here because Debian's abseil is built with its own string_view
// type, so its absl/strings helpers do not take std::string_view.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ltl {

constexpr char AsciiLower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
}

inline std::string AsciiLowered(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

inline bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  return true;
}

// "a,b,,c" -> {"a", "b", "", "c"}; "" -> {""} (empty items are the caller's to reject).
inline std::vector<std::string_view> SplitList(std::string_view text, char sep = ',') {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

// "a, b, c": the names joined for help texts and messages.
inline std::string JoinNames(const std::vector<std::string_view>& names) {
  std::string out;
  for (std::string_view n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

}  // namespace ltl
