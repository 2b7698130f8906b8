// Text helpers for report.html: HTML escaping (every string that came from the input goes through
// HtmlEscape) and compact human formats for numbers and trace times.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ltl {

// Escapes & < > " ' so the text is inert in element content and in quoted attribute values.
std::string HtmlEscape(std::string_view text);

// 1536 -> "1.5K", 16777216 -> "16M", 900 -> "900" (binary multiples, at most one decimal).
std::string CompactBinary(double value);
// 12500 -> "12.5k", 3400000 -> "3.4M" (decimal multiples, for counts and rates).
std::string CompactDecimal(double value);
// A trace time: epoch seconds (>= 10^9) as "2026-07-24 06:13:20 UTC", else seconds from the trace
// start as "+1h 02m 03s" / "+12.3 s".
std::string FormatTraceTime(double seconds);
// A duration in seconds as "3.2 s", "4m 10s", "2h 05m", "3d 4h".
std::string FormatDuration(double seconds);

}  // namespace ltl
