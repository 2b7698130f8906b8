// KV bytes per token, precisions, catalog lookup and GiB budgets (see kv_models.h); the catalog's
// entries, each citing the config values it uses, are in model_catalog.cc.
#include "models/kv_models.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "common/ascii.h"

namespace ltl {
namespace {

std::string Lower(std::string_view s) {
  return AsciiLowered(s);
}

std::string ElementBytes(KvPrecision p) {
  switch (p) {
    case KvPrecision::kBf16:
      return "2 B";
    case KvPrecision::kFp8:
      return "1 B";
    case KvPrecision::kFp4:
      return "0.5 B";
  }
  return "?";
}

}  // namespace

Result<KvPrecision> ParseKvPrecision(std::string_view text) {
  std::string t = Lower(text);
  if (t == "bf16" || t == "fp16" || t == "bfloat16" || t == "float16") return KvPrecision::kBf16;
  if (t == "fp8" || t == "float8" || t == "fp8_e4m3" || t == "fp8_e5m2") return KvPrecision::kFp8;
  if (t == "fp4" || t == "nvfp4" || t == "mxfp4") return KvPrecision::kFp4;
  return Status::InvalidArgument("unknown KV precision '" + std::string(text) +
                                 "' (expected bf16, fp8, fp4)");
}

std::string_view KvPrecisionName(KvPrecision p) {
  switch (p) {
    case KvPrecision::kBf16:
      return "bf16";
    case KvPrecision::kFp8:
      return "fp8";
    case KvPrecision::kFp4:
      return "fp4";
  }
  return "?";
}

uint32_t KvPrecisionBits(KvPrecision p) {
  switch (p) {
    case KvPrecision::kBf16:
      return 16;
    case KvPrecision::kFp8:
      return 8;
    case KvPrecision::kFp4:
      return 4;
  }
  return 16;
}

uint64_t KvArchitecture::ElementsPerToken() const {
  uint64_t attention = kind == Kind::kGqa ? uint64_t{layers} * 2 * kv_heads * head_dim
                                          : uint64_t{layers} * (uint64_t{kv_lora_rank} + rope_dim);
  return attention + uint64_t{indexer_layers} * indexer_dim;
}

std::string KvArchitecture::Derivation(KvPrecision p) const {
  const std::string b = ElementBytes(p);
  std::string s =
      kind == Kind::kGqa
          ? fmt::format("{} layers x 2 x {} kv heads x {} x {}", layers, kv_heads, head_dim, b)
          : fmt::format("{} layers x ({} + {}) x {}", layers, kv_lora_rank, rope_dim, b);
  if (indexer_layers > 0)
    s += fmt::format(" + {} indexer layers x {} x {}", indexer_layers, indexer_dim, b);
  return s;
}

Result<KvModel> FindKvModel(std::string_view id) {
  const std::string key = Lower(id);
  std::string known;
  for (const KvModel& m : KvModelCatalog()) {
    if (m.id == key) return m;
    known += (known.empty() ? "" : ", ") + m.id;
  }
  return Status::NotFound("unknown model '" + std::string(id) + "' (known: " + known +
                          "; or use --model-config / --kv-bytes-per-token)");
}

uint64_t KvCapacityBlocks(double gib, uint64_t bits_per_token, uint32_t block_size) {
  if (!(gib > 0) || bits_per_token == 0 || block_size == 0) return 0;
  const unsigned __int128 denom = static_cast<unsigned __int128>(bits_per_token) * block_size;
  const double whole = std::floor(gib);
  if (whole == gib && gib < 1e15) {
    // bits in the budget = gib x 2^30 x 8.
    const unsigned __int128 bits = static_cast<unsigned __int128>(whole) << 33;
    return static_cast<uint64_t>(bits / denom);
  }
  long double bits = static_cast<long double>(gib) * 8589934592.0L;  // 2^33
  return static_cast<uint64_t>(std::floor(bits / static_cast<long double>(denom)));
}

std::vector<double> DefaultCacheGib() {
  std::vector<double> out;
  for (int e = 0; e <= 12; ++e) out.push_back(static_cast<double>(1u << e));
  return out;
}

std::string BinaryBytes(double bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024 && u < 5) bytes /= 1024, ++u;
  double rounded = std::round(bytes * 10) / 10;
  if (rounded == std::floor(rounded)) return fmt::format("{:.0f} {}", rounded, kUnits[u]);
  return fmt::format("{:.1f} {}", rounded, kUnits[u]);
}

}  // namespace ltl
