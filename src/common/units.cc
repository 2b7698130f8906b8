// Human unit parsing and formatting (see units.h).
#include "common/units.h"

#include <fmt/format.h>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <string>

#include "common/ascii.h"
#include "common/safe_label.h"

namespace ltl {

Result<uint64_t> ParseSize(std::string_view text) {
  std::string_view t = text;
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  if (t.empty()) return Status::InvalidArgument("empty size");
  // K, M, G, T (either case): powers of 1024.
  constexpr std::string_view kSuffixes = "kmgt";
  const size_t power = kSuffixes.find(static_cast<char>(t.back() | 0x20));
  const uint64_t mult = power == std::string_view::npos ? 1 : 1ull << (10 * (power + 1));
  if (mult != 1) t.remove_suffix(1);
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || !(v >= 0) || !std::isfinite(v))
    return Status::InvalidArgument(
        fmt::format("'{}' is not a size (examples: 300, 16K, 1M)", text));
  double r = v * static_cast<double>(mult);
  if (r > 9.2e18) return Status::InvalidArgument(fmt::format("size '{}' is too large", text));
  return static_cast<uint64_t>(std::floor(r));
}

Result<std::vector<uint64_t>> ParseSizeList(std::string_view text) {
  std::vector<uint64_t> out;
  for (std::string_view item : SplitList(text)) {
    auto r = ParseSize(item);
    if (!r.ok()) return r.status();
    out.push_back(*r);
  }
  return out;
}

Result<std::vector<double>> ParseDecimalList(std::string_view text) {
  std::vector<double> out;
  for (std::string_view item : SplitList(text)) {
    double v = 0;
    auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || p != item.data() + item.size() || !(v > 0))
      return Status::InvalidArgument(fmt::format("'{}' is not a positive number", item));
    out.push_back(v);
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

namespace {

std::string Scaled(double value, double base, const char* const* suffixes, int n) {
  const double a = std::fabs(value);
  int i = 0;
  double v = a;
  while (i + 1 < n && v >= base) {
    v /= base;
    ++i;
  }
  std::string sign = value < 0 ? "-" : "";
  if (i == 0) return sign + fmt::format("{:.0f}", std::round(a));
  if (v < 10 && std::fabs(v - std::round(v)) > 0.05)
    return sign + fmt::format("{:.1f}{}", v, suffixes[i]);
  return sign + fmt::format("{:.0f}{}", std::round(v), suffixes[i]);
}

}  // namespace

std::string CompactBinary(double value) {
  static const char* const kSuffix[] = {"", "K", "M", "G", "T", "P"};
  return Scaled(value, 1024.0, kSuffix, 6);
}

std::string CompactDecimal(double value) {
  static const char* const kSuffix[] = {"", "k", "M", "G", "T", "P"};
  if (std::fabs(value) < 1000 && std::fabs(value - std::round(value)) > 1e-9)
    return fmt::format("{:.3g}", value);
  return Scaled(value, 1000.0, kSuffix, 6);
}

std::string FormatDuration(double s) {
  if (!(s >= 0) || !std::isfinite(s)) return "–";
  if (s < 60) return fmt::format("{:.1f} s", s);
  const auto t = static_cast<int64_t>(std::llround(s));
  if (t < 3600) return fmt::format("{}m {:02}s", t / 60, t % 60);
  if (t < 86400) return fmt::format("{}h {:02}m", t / 3600, (t % 3600) / 60);
  return fmt::format("{}d {}h", t / 86400, (t % 86400) / 3600);
}

std::string FormatTraceTime(double s) {
  if (!std::isfinite(s)) return "–";
  if (s >= 1e9 && s < 1e11) {
    std::time_t t = static_cast<std::time_t>(std::floor(s));
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm);
    return buf;
  }
  const auto t = static_cast<int64_t>(std::llround(s));
  if (s < 60) return fmt::format("+{:.1f} s", s);
  if (t < 3600) return fmt::format("+{}m {:02}s", t / 60, t % 60);
  return fmt::format("+{}h {:02}m {:02}s", t / 3600, (t % 3600) / 60, t % 60);
}

Result<double> ParseDurationSeconds(std::string_view text) {
  std::string number(text);
  double scale = 1;
  if (!number.empty()) {
    switch (number.back()) {
      case 's':
        number.pop_back();
        break;
      case 'm':
        scale = 60;
        number.pop_back();
        break;
      case 'h':
        scale = 3600;
        number.pop_back();
        break;
      default:
        break;
    }
  }
  char* end = nullptr;
  const double v = number.empty() ? 0 : std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(v) || v < 0)
    return Status::InvalidArgument(
        fmt::format("'{}' is not a duration (seconds, or 90s, 10m, 1h)", EscapeForTerminal(text)));
  return v * scale;
}

}  // namespace ltl
