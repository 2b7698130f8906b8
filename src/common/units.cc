// Human unit parsing and formatting (see units.h).
#include "common/units.h"

#include <charconv>
#include <cmath>
#include <fmt/format.h>

namespace ltl {

Result<uint64_t> ParseSize(std::string_view text) {
  std::string_view t = text;
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  if (t.empty()) return Status::InvalidArgument("empty size");
  uint64_t mult = 1;
  char last = t.back();
  switch (last) {
    case 'k': case 'K': mult = 1ull << 10; break;
    case 'm': case 'M': mult = 1ull << 20; break;
    case 'g': case 'G': mult = 1ull << 30; break;
    case 't': case 'T': mult = 1ull << 40; break;
    default: break;
  }
  if (mult != 1) t.remove_suffix(1);
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || !(v >= 0) || !std::isfinite(v))
    return Status::InvalidArgument(fmt::format("'{}' is not a size (examples: 300, 16K, 1M)", text));
  double r = v * static_cast<double>(mult);
  if (r > 9.2e18) return Status::InvalidArgument(fmt::format("size '{}' is too large", text));
  return static_cast<uint64_t>(std::floor(r));
}

Result<std::vector<uint64_t>> ParseSizeList(std::string_view text) {
  std::vector<uint64_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    auto r = ParseSize(text.substr(start, comma - start));
    if (!r.ok()) return r.status();
    out.push_back(*r);
    start = comma + 1;
  }
  return out;
}

Result<std::vector<double>> ParseDecimalList(std::string_view text) {
  std::vector<double> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = text.substr(start, comma - start);
    double v = 0;
    auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || p != item.data() + item.size() || !(v > 0))
      return Status::InvalidArgument(fmt::format("'{}' is not a positive number", item));
    out.push_back(v);
    start = comma + 1;
  }
  return out;
}

std::string WithCommas(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  int n = static_cast<int>(digits.size());
  for (int i = 0; i < n; ++i) {
    out.push_back(digits[i]);
    int rest = n - 1 - i;
    if (rest > 0 && rest % 3 == 0) out.push_back(',');
  }
  return v < 0 ? "-" + out : out;
}

std::string TokenSize(uint64_t tokens) {
  static const char* kSuffix[] = {"", "K", "M", "G", "T"};
  int i = 0;
  uint64_t v = tokens;
  while (i < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    ++i;
  }
  if (i == 0) return WithCommas(static_cast<int64_t>(tokens));
  return WithCommas(static_cast<int64_t>(v)) + kSuffix[i];
}

std::string Percent(double ratio, int decimals) {
  return fmt::format("{:.{}f}%", ratio * 100.0, decimals);
}

}  // namespace ltl
