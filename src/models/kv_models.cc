// KV bytes per token and the model catalog (see kv_models.h). Every catalog entry cites the config
// values it uses; docs/SEMANTICS.md ("KV memory per token") repeats them with the results.
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

KvArchitecture Gqa(uint32_t layers, uint32_t kv_heads, uint32_t head_dim) {
  KvArchitecture a;
  a.kind = KvArchitecture::Kind::kGqa;
  a.layers = layers;
  a.kv_heads = kv_heads;
  a.head_dim = head_dim;
  return a;
}

KvArchitecture Mla(uint32_t layers, uint32_t rank, uint32_t rope, uint32_t indexer_layers = 0,
                   uint32_t indexer_dim = 0) {
  KvArchitecture a;
  a.kind = KvArchitecture::Kind::kMla;
  a.layers = layers;
  a.kv_lora_rank = rank;
  a.rope_dim = rope;
  a.indexer_layers = indexer_layers;
  a.indexer_dim = indexer_dim;
  return a;
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

// Values are from each model's Hugging Face config.json (keys in parentheses); head_dim, when the
// config has no such key, is hidden_size / num_attention_heads. Every value was compared against a
// stored copy (all matched, none corrected); the models with prefill compute values share their
// sources with model_compute.cc's catalog, whose comments name them (docs/SEMANTICS.md, "Where the
// catalog values come from"). The two gpt-oss entries:
// - gpt-oss-120b: huggingface/transformers src/transformers/models/gpt_oss/configuration_gpt_oss.py
//   @ 02b8f42b, GptOssConfig's defaults (the 120b shape: 36 layers, 128 experts): 8 KV heads,
//   head_dim 64, sliding_window 128, layer_types alternating sliding / full. The checkpoint's own
//   config.json is not stored.
// - gpt-oss-20b: ParagEkbote/hf-model-inspector model_inspection_report.md @ 92931b2d (a report of
//   openai/gpt-oss-20b's config: 24 layers, 8 KV heads, sliding window 128) and EchoCog/gpt-oss-20b
//   docs/gpt-oss-20b-architecture.md (head_dim 64, even layers sliding, odd layers full).
// The kvcache-simulator catalog that the glm-5.2 entry cites is not stored; its 95,232 B/token is
// quoted from ../shared/notes/consumers.md, and the values it decomposes into are GLM-5's.
const std::vector<KvModel>& KvModelCatalog() {
  static const std::vector<KvModel> catalog = {
      {"llama-3.1-8b", "Llama 3.1 8B",
       "meta-llama/Llama-3.1-8B config.json: num_hidden_layers 32, num_key_value_heads 8, "
       "hidden_size 4096 / num_attention_heads 32 = head_dim 128",
       Gqa(32, 8, 128), ""},
      {"llama-3.1-70b", "Llama 3.1 70B",
       "meta-llama/Llama-3.1-70B config.json: num_hidden_layers 80, num_key_value_heads 8, "
       "hidden_size 8192 / num_attention_heads 64 = head_dim 128",
       Gqa(80, 8, 128), ""},
      {"llama-3.1-405b", "Llama 3.1 405B",
       "meta-llama/Llama-3.1-405B config.json: num_hidden_layers 126, num_key_value_heads 8, "
       "hidden_size 16384 / num_attention_heads 128 = head_dim 128",
       Gqa(126, 8, 128), ""},
      {"qwen3-8b", "Qwen3 8B",
       "Qwen/Qwen3-8B config.json: num_hidden_layers 36, num_key_value_heads 8, head_dim 128",
       Gqa(36, 8, 128), ""},
      {"qwen3-32b", "Qwen3 32B",
       "Qwen/Qwen3-32B config.json: num_hidden_layers 64, num_key_value_heads 8, head_dim 128",
       Gqa(64, 8, 128), ""},
      {"qwen3-235b-a22b", "Qwen3 235B-A22B",
       "Qwen/Qwen3-235B-A22B config.json: num_hidden_layers 94, num_key_value_heads 4, "
       "head_dim 128",
       Gqa(94, 4, 128), ""},
      {"deepseek-v3", "DeepSeek-V3",
       "deepseek-ai/DeepSeek-V3 config.json: num_hidden_layers 61, kv_lora_rank 512, "
       "qk_rope_head_dim 64 (MLA)",
       Mla(61, 512, 64), ""},
      {"kimi-k2", "Kimi K2",
       "moonshotai/Kimi-K2-Instruct config.json: num_hidden_layers 61, kv_lora_rank 512, "
       "qk_rope_head_dim 64 (MLA, DeepSeek-V3 architecture; Kimi K2.5 has the same values)",
       Mla(61, 512, 64), ""},
      {"glm-4.5", "GLM-4.5",
       "zai-org/GLM-4.5 config.json: num_hidden_layers 92, num_key_value_heads 8, head_dim 128",
       Gqa(92, 8, 128),
       "the multi-token-prediction layer (num_nextn_predict_layers) is not counted"},
      {"glm-5.2", "GLM-5.2",
       "GLM-5.2 (kvcache-simulator catalog, 95,232 B/token at bf16): 78 layers of MLA latent "
       "(kv_lora_rank 512 + qk_rope_head_dim 64) and a DSA indexer key (index_head_dim 128) on "
       "the 21 layers that run a full indexer",
       Mla(78, 512, 64, 21, 128), "the other 57 layers reuse the previous indexer's selection"},
      {"gpt-oss-120b", "gpt-oss-120b",
       "openai/gpt-oss-120b config.json: num_hidden_layers 36, num_key_value_heads 8, head_dim 64",
       Gqa(36, 8, 64),
       "18 of the 36 layers are 128-token sliding-window; counted in full, as a paged cache that "
       "keeps every layer's blocks stores them"},
      {"gpt-oss-20b", "gpt-oss-20b",
       "openai/gpt-oss-20b config.json: num_hidden_layers 24, num_key_value_heads 8, head_dim 64",
       Gqa(24, 8, 64),
       "12 of the 24 layers are 128-token sliding-window; counted in full, as a paged cache that "
       "keeps every layer's blocks stores them"},
      {"gqa-32l", "32-layer fp16 GQA (generic)",
       "generic: 32 layers, 8 KV heads, head_dim 128 (the Llama-3-8B shape) = 128 KiB/token at "
       "16 bits",
       Gqa(32, 8, 128), ""},
  };
  return catalog;
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
