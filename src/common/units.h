// Human units: parsing sizes like "16K" or "1M" (binary multiples) and printing counts with
// thousands separators and sizes as "16K tokens", as the terminal summary shows them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ltl {

// "16K" -> 16384, "1M" -> 1048576, "1G", "300" -> 300. Binary multiples, case-insensitive.
Result<uint64_t> ParseSize(std::string_view text);
// Comma-separated list of sizes.
Result<std::vector<uint64_t>> ParseSizeList(std::string_view text);
// Comma-separated list of non-negative decimals ("1,2,0.5").
Result<std::vector<double>> ParseDecimalList(std::string_view text);

// "300", "90s", "10m", "1h" -> seconds (a finite, non-negative number with an optional unit).
Result<double> ParseDurationSeconds(std::string_view text);
std::string WithCommas(int64_t v);       // 12031 -> "12,031"
std::string TokenSize(uint64_t tokens);  // 16384 -> "16K", 1048576 -> "1M", 1000 -> "1,000"
std::string Percent(double ratio, int decimals = 1);  // 0.398 -> "39.8%"

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
