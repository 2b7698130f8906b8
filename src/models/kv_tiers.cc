// Tier size parsing (see kv_tiers.h).
#include "models/kv_tiers.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <set>

#include "common/ascii.h"
#include "common/units.h"

namespace ltl {
namespace {

struct ByteUnit {
  const char* suffix;  // lower case
  double bytes;
};

// Longest suffixes first so "gib" is not read as "b".
constexpr ByteUnit kByteUnits[] = {
    {"kib", 1024.0},
    {"mib", 1048576.0},
    {"gib", 1073741824.0},
    {"tib", 1099511627776.0},
    {"pib", 1125899906842624.0},
    {"kb", 1e3},
    {"mb", 1e6},
    {"gb", 1e9},
    {"tb", 1e12},
    {"pb", 1e15},
};

bool ValidName(std::string_view n) {
  if (n.empty()) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
      return false;
  return true;
}

std::string_view Trim(std::string_view t) {
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  return t;
}

}  // namespace

Result<std::vector<TierSize>> ParseTierList(std::string_view text) {
  std::vector<TierSize> out;
  std::set<std::string> names;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = Trim(text.substr(start, comma - start));
    start = comma + 1;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      return Status::InvalidArgument(
          fmt::format("'{}': expected NAME=SIZE (e.g. hbm=80GiB or hbm=4M tokens)", item));
    TierSize t;
    t.name = std::string(Trim(item.substr(0, eq)));
    t.text = std::string(Trim(item.substr(eq + 1)));
    if (!ValidName(t.name))
      return Status::InvalidArgument(
          fmt::format("'{}': a tier name is letters, digits, '_', '-' or '.'", item));
    if (!names.insert(AsciiLowered(t.name)).second)
      return Status::InvalidArgument(fmt::format("tier '{}' is given twice", t.name));
    const std::string lower = AsciiLowered(t.text);
    bool in_bytes = false;
    for (const ByteUnit& u : kByteUnits) {
      const std::string_view suffix = u.suffix;
      if (lower.size() > suffix.size() && lower.ends_with(suffix)) {
        const std::string_view number =
            Trim(std::string_view(t.text).substr(0, lower.size() - suffix.size()));
        double v = 0;
        auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
        if (ec != std::errc() || p != number.data() + number.size() || !std::isfinite(v) ||
            !(v > 0))
          return Status::InvalidArgument(fmt::format("tier '{}': bad size '{}'", t.name, t.text));
        t.bytes = v * u.bytes;
        // Beyond 1 EiB the block count no longer fits (1e30GiB became a 0-block tier: issue 35,
        // item 12).
        if (!(t.bytes <= kMaxTierBytes))
          return Status::InvalidArgument(
              fmt::format("tier '{}': size '{}' is out of range (at most 1 EiB)", t.name, t.text));
        in_bytes = true;
        break;
      }
    }
    if (!in_bytes) {
      auto tokens = ParseSize(t.text);
      if (!tokens.ok() || *tokens == 0)
        return Status::InvalidArgument(
            fmt::format("tier '{}': bad size '{}' (bytes as 80GiB / 1TiB / 500GB, or tokens as 4M)",
                        t.name, t.text));
      t.tokens = *tokens;
    }
    out.push_back(std::move(t));
  }
  if (out.size() > 8) return Status::InvalidArgument("at most 8 tiers");
  return out;
}

uint64_t TierCapacityBlocks(const TierSize& tier, uint64_t bits_per_token, uint32_t block_size) {
  if (block_size == 0) return 0;
  if (tier.bytes > 0) {
    if (bits_per_token == 0) return 0;
    const long double bits = static_cast<long double>(tier.bytes) * 8.0L;
    return static_cast<uint64_t>(
        std::floor(bits / (static_cast<long double>(bits_per_token) * block_size)));
  }
  return tier.tokens / block_size;
}

}  // namespace ltl
