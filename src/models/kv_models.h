// KV-cache memory accounting: bytes of KV cache one token occupies, computed from a model's
// architecture (GQA/MHA, MLA, plus indexer keys where a model has them), a built-in catalog of
// common models with the config values each uses, and the conversion of GiB budgets to blocks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ltl {

enum class KvPrecision { kBf16, kFp8, kFp4 };

// "bf16" (also "fp16", "float16", "bfloat16"), "fp8", "fp4".
Result<KvPrecision> ParseKvPrecision(std::string_view text);
std::string_view KvPrecisionName(KvPrecision p);
uint32_t KvPrecisionBits(KvPrecision p);  // 16, 8, 4

// Architecture parameters that decide KV bytes per token. Counts are per token, per layer.
struct KvArchitecture {
  enum class Kind { kGqa, kMla };
  Kind kind = Kind::kGqa;
  uint32_t layers = 0;          // layers that keep a KV cache (num_hidden_layers)
  uint32_t kv_heads = 0;        // GQA/MHA: num_key_value_heads
  uint32_t head_dim = 0;        // GQA/MHA: head_dim (or hidden_size / num_attention_heads)
  uint32_t kv_lora_rank = 0;    // MLA: compressed latent width
  uint32_t rope_dim = 0;        // MLA: decoupled rotary key width (qk_rope_head_dim)
  uint32_t indexer_layers = 0;  // layers that keep a sparse-attention indexer key
  uint32_t indexer_dim = 0;     // width of that key (index_head_dim)

  // Cached elements per token: GQA layers x 2 x kv_heads x head_dim; MLA layers x (rank + rope);
  // plus indexer_layers x indexer_dim.
  uint64_t ElementsPerToken() const;
  // Human derivation at a precision, e.g. "78 x (512 + 64) x 2 B + 21 x 128 x 2 B".
  std::string Derivation(KvPrecision precision) const;
};

struct KvModel {
  std::string id;      // lookup key, lower case, e.g. "glm-5.2"
  std::string name;    // display name
  std::string source;  // where the parameters come from (config file and values)
  KvArchitecture arch;
  std::string note;  // caveats ("" = none)
  // Prefill compute (model_compute.h): where the values come from, and the config.json values
  // themselves as JSON text; "" when the catalog has none for this model.
  std::string compute_source;
  std::string compute_config;
};

// The built-in catalog, in display order (model_catalog.cc).
const std::vector<KvModel>& KvModelCatalog();
// Case-insensitive lookup by id; NotFound lists the known ids.
Result<KvModel> FindKvModel(std::string_view id);

// KV bits per token (bits so that fp4 stays exact).
inline uint64_t KvBitsPerToken(const KvArchitecture& a, KvPrecision p) {
  return a.ElementsPerToken() * KvPrecisionBits(p);
}

// What the profile uses: a resolved per-token size and where it came from.
struct KvMemory {
  std::string model;       // catalog id, config name, or "custom"
  std::string precision;   // "bf16", "fp8", "fp4", or "" when given directly in bytes
  std::string source;      // "catalog", "config FILE", "--kv-bytes-per-token"
  std::string derivation;  // "" when given directly
  uint64_t bits_per_token = 0;
  double bytes_per_token() const { return static_cast<double>(bits_per_token) / 8.0; }
};

// Capacity in blocks of a budget: floor(gib x 2^30 / (bytes per token x block size)).
// Exact for integral GiB (integer arithmetic); fractional GiB use long double.
uint64_t KvCapacityBlocks(double gib, uint64_t bits_per_token, uint32_t block_size);

// Default budgets: powers of two from 1 to 4,096 GiB (13 sizes).
std::vector<double> DefaultCacheGib();

// "93 KiB" / "68.6 KiB" / "1.5 MiB": a byte size in binary units with at most one decimal.
std::string BinaryBytes(double bytes);

}  // namespace ltl
