// HTML escaping and compact number formats (see html_text.h).
#include "report/html_text.h"

#include <fmt/format.h>

#include <cmath>
#include <ctime>

namespace ltl {

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
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

}  // namespace ltl
