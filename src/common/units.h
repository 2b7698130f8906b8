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

std::string WithCommas(int64_t v);       // 12031 -> "12,031"
std::string TokenSize(uint64_t tokens);  // 16384 -> "16K", 1048576 -> "1M", 1000 -> "1,000"
std::string Percent(double ratio, int decimals = 1);  // 0.398 -> "39.8%"

}  // namespace ltl
