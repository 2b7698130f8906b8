// Prefill FLOPs from a model's config (see model_compute.h). Parameter counting is by hand because
// no library reads a config.json into parameter counts without loading the model's code: per
// layer, attention projections (GQA: q, k, v, o; MLA: q_a/q_b or q, kv_a, kv_b, o) and a gated MLP
// (3 x hidden x intermediate), a MoE layer's routed top-k experts, shared experts and router.
// Norms and biases (< 0.1% of parameters) are left out.
#include "models/model_compute.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "models/kv_models.h"

namespace ltl {
namespace {

using Json = nlohmann::json;

double Num(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return 0;
  const double v = it->get<double>();
  return v > 0 ? v : 0;
}

double FirstNum(const Json& j, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (double v = Num(j, k); v > 0) return v;
  return 0;
}

// sum_{q=1..n} min(q, cap); cap 0 = no cap.
long double KeySum(uint64_t n, uint64_t cap) {
  const long double ln = static_cast<long double>(n);
  if (cap == 0 || n <= cap) return ln * (ln + 1) / 2;
  const long double lc = static_cast<long double>(cap);
  return lc * (lc + 1) / 2 + (ln - lc) * lc;
}

// Config values of catalog models (each model's Hugging Face config.json; keys as there). Each
// entry's comment says where every value was compared against a stored copy of that config
// (repository path @ commit, or the page); docs/SEMANTICS.md ("Where the catalog values come
// from") repeats it. All values matched; none had to be corrected.
struct CatalogConfig {
  const char* id;
  const char* source;
  const char* json;
};

constexpr CatalogConfig kCatalog[] = {
    // Confirmed: citsjtu2020/LLM-Prof sglang/Model_Config.md @ 8434c8d1 (a copy of the
    // Llama-3.1-8B config.json): 4096 / 14336 / 32 / 32 / 8; also oumi configs/recipes/llama3_1.
    {"llama-3.1-8b", "meta-llama/Llama-3.1-8B config.json",
     R"({"hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,
         "num_attention_heads":32,"num_key_value_heads":8})"},
    // Confirmed: vulkomilev/oumi configs/recipes/llama3_1/README.md @ 4d8296fb ("Model Info" of
    // Llama 3.1 70B): 8192 / 28672 / 80 layers / 64 heads / 8 KV heads. Its config.json itself
    // is not stored.
    {"llama-3.1-70b", "meta-llama/Llama-3.1-70B config.json",
     R"({"hidden_size":8192,"intermediate_size":28672,"num_hidden_layers":80,
         "num_attention_heads":64,"num_key_value_heads":8})"},
    // Confirmed: huggingface.co/neuralmagic/Meta-Llama-3.1-405B-Instruct-FP8-dynamic config.json
    // @ 5e2d102c and relaxml/Llama-3.1-405B-Instruct-QTIP copies (_name_or_path
    // meta-llama/Meta-Llama-3.1-405B-Instruct): 16384 / 53248 / 126 / 128 heads / 8 KV heads.
    // Copies made before Meta's config update say num_key_value_heads 16 (the first upload
    // duplicated KV heads; a Hugging Face discussion asks "Why did num_key_value_heads change
    // from 16 to 8?"): 8 is the current value and the model's real GQA width.
    {"llama-3.1-405b", "meta-llama/Llama-3.1-405B config.json",
     R"({"hidden_size":16384,"intermediate_size":53248,"num_hidden_layers":126,
         "num_attention_heads":128,"num_key_value_heads":8})"},
    // Confirmed: citsjtu2020/LLM-Prof sglang/Model_Config.md @ 8434c8d1 (Qwen3-8B config.json):
    // 4096 / 12288 / 36 / 32 / 8 / head_dim 128.
    {"qwen3-8b", "Qwen/Qwen3-8B config.json",
     R"({"hidden_size":4096,"intermediate_size":12288,"num_hidden_layers":36,
         "num_attention_heads":32,"num_key_value_heads":8,"head_dim":128})"},
    // Confirmed: citsjtu2020/LLM-Prof sglang/Model_Config.md @ 8434c8d1 (Qwen3-32B config.json):
    // 5120 / 25600 / 64 / 64 / 8 / head_dim 128.
    {"qwen3-32b", "Qwen/Qwen3-32B config.json",
     R"({"hidden_size":5120,"intermediate_size":25600,"num_hidden_layers":64,
         "num_attention_heads":64,"num_key_value_heads":8,"head_dim":128})"},
    // Confirmed: zyzshishui/slime scripts/models/qwen3-235B-A22B.sh @ a2938638 (Megatron flags
    // converted from the config: 94 layers, 64 heads, 4 query groups, kv-channels 128, hidden 4096,
    // ffn 12288, moe-ffn 1536, 128 experts, top-8, every layer MoE); the same in Ascend's
    // MindSpeed-RL qwen3_235b_a22b.yaml and in a Qwen3-235B-A22B-derived FP8 config.json on
    // huggingface.co (vera6/affine-multi). The original config.json itself is not stored.
    {"qwen3-235b-a22b", "Qwen/Qwen3-235B-A22B config.json",
     R"({"hidden_size":4096,"intermediate_size":12288,"num_hidden_layers":94,
         "num_attention_heads":64,"num_key_value_heads":4,"head_dim":128,"num_experts":128,
         "num_experts_per_tok":8,"moe_intermediate_size":1536,"decoder_sparse_step":1})"},
    // Confirmed: a copy of the DeepSeek-V3 config.json at gitcode.com cann/cann-recipes-train
    // llm_rl/deepseek/verl_patches/config.json (every value here), and vLLM's DeepseekV3Config
    // defaults (docs.vllm.ai v0.11.0, "similar to DeepSeek-V3").
    {"deepseek-v3", "deepseek-ai/DeepSeek-V3 config.json",
     R"({"hidden_size":7168,"intermediate_size":18432,"moe_intermediate_size":2048,
         "num_hidden_layers":61,"num_attention_heads":128,"n_routed_experts":256,
         "n_shared_experts":1,"num_experts_per_tok":8,"first_k_dense_replace":3,
         "q_lora_rank":1536,"kv_lora_rank":512,"qk_nope_head_dim":128,"qk_rope_head_dim":64,
         "v_head_dim":128})"},
    // Confirmed: ai-dynamo/aiconfigurator src/aiconfigurator/model_configs/
    // moonshotai--Kimi-K2-Instruct_config.json @ 821eb9a6: every value here.
    {"kimi-k2", "moonshotai/Kimi-K2-Instruct config.json",
     R"({"hidden_size":7168,"intermediate_size":18432,"moe_intermediate_size":2048,
         "num_hidden_layers":61,"num_attention_heads":64,"n_routed_experts":384,
         "n_shared_experts":1,"num_experts_per_tok":8,"first_k_dense_replace":1,
         "q_lora_rank":1536,"kv_lora_rank":512,"qk_nope_head_dim":128,"qk_rope_head_dim":64,
         "v_head_dim":128})"},
    // Confirmed: zyzshishui/slime scripts/models/glm4.5-355B-A32B.sh (3 dense + 89 MoE layers,
    // 96 heads, 8 query groups, kv-channels 128, hidden 5120, ffn 12288, moe-ffn 1536, shared 1536,
    // 160 experts, top-8) and Megatron-Bridge docs/models/llm/glm45.md (the same figures for
    // zai-org/GLM-4.5). The config.json itself is not stored.
    {"glm-4.5", "zai-org/GLM-4.5 config.json",
     R"({"hidden_size":5120,"intermediate_size":12288,"moe_intermediate_size":1536,
         "num_hidden_layers":92,"num_attention_heads":96,"num_key_value_heads":8,
         "head_dim":128,"n_routed_experts":160,"n_shared_experts":1,"num_experts_per_tok":8,
         "first_k_dense_replace":3})"},
    // Confirmed for GLM-5: ai-dynamo/aiconfigurator src/aiconfigurator/model_configs/
    // zai-org--GLM-5-FP8_config.json @ 691ec908 (all values but the indexer's) and the full GLM-5
    // config.json quoted in vllm-project/llm-compressor issue #2512 (index_n_heads 32,
    // index_head_dim 128, index_topk 2048 too). GLM-5.2 itself: a vLLM model-hook file in the
    // index (its repository is not named by the index) requires exactly these values for GLM-5.2
    // and the indexer schedule "full if layer < 3 or (layer - 2) % 4 == 0" = 21 full layers.
    {"glm-5.2",
     "zai-org/GLM-5 config.json values (GLM-5.2 assumed to share the GLM-5 architecture; counts "
     "to 39.1B active matrix parameters, GLM-5's published 40B active with embeddings); DSA "
     "indexer on the catalog's 21 full-indexer layers",
     R"({"hidden_size":6144,"intermediate_size":12288,"moe_intermediate_size":2048,
         "num_hidden_layers":78,"num_attention_heads":64,"n_routed_experts":256,
         "n_shared_experts":1,"num_experts_per_tok":8,"first_k_dense_replace":3,
         "q_lora_rank":2048,"kv_lora_rank":512,"qk_nope_head_dim":192,"qk_rope_head_dim":64,
         "v_head_dim":256,"index_n_heads":32,"index_head_dim":128,"index_topk":2048})"},
};

}  // namespace

double ComputeShape::AttentionFlopsAt(uint64_t p) const {
  return PrefillFlops(p, p + 1) - 2.0 * active_params;
}

double ComputeShape::PrefillFlops(uint64_t from, uint64_t to) const {
  if (to <= from) return 0;
  const long double pair = 2.0L * heads * (static_cast<long double>(qk_dim) + v_dim);
  const long double index_pair = 2.0L * indexer_heads * indexer_dim;
  long double f = 2.0L * active_params * static_cast<long double>(to - from);
  f += attn_layers * pair * (KeySum(to, sparse_topk) - KeySum(from, sparse_topk));
  if (window_layers > 0) f += window_layers * pair * (KeySum(to, window) - KeySum(from, window));
  f += indexer_layers * index_pair * (KeySum(to, 0) - KeySum(from, 0));
  return static_cast<double>(f);
}

Result<ComputeShape> ComputeShapeFromHfConfigText(const std::string& text,
                                                  const std::string& path) {
  Json root = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object())
    return Status::InvalidArgument(path + ": not a JSON object (expected a config.json)");
  const Json* cfg = &root;
  for (const char* nested : {"text_config", "llm_config", "language_config"}) {
    auto it = root.find(nested);
    if (!root.contains("num_hidden_layers") && it != root.end() && it->is_object()) cfg = &*it;
  }
  const Json& c = *cfg;
  ComputeShape s;
  s.name = c.value("_name_or_path", root.value("_name_or_path", std::string()));
  s.source = "config " + path;
  const double hidden = Num(c, "hidden_size");
  const auto layers = static_cast<uint64_t>(FirstNum(c, {"num_hidden_layers", "num_layers"}));
  const double heads = FirstNum(c, {"num_attention_heads", "n_head"});
  if (hidden == 0 || layers == 0 || heads == 0)
    return Status::InvalidArgument(
        path + ": needs hidden_size, num_hidden_layers and num_attention_heads for prefill FLOPs");
  double attn = 0;  // attention projection parameters per layer
  if (double rank = Num(c, "kv_lora_rank"); rank > 0) {
    const double nope = Num(c, "qk_nope_head_dim"), rope = Num(c, "qk_rope_head_dim");
    const double v = Num(c, "v_head_dim");
    const double q_rank = Num(c, "q_lora_rank");
    attn = (q_rank > 0 ? hidden * q_rank + q_rank * heads * (nope + rope)
                       : hidden * heads * (nope + rope)) +
           hidden * (rank + rope) + rank * heads * (nope + v) + heads * v * hidden;
    s.qk_dim = static_cast<uint32_t>(nope + rope);
    s.v_dim = static_cast<uint32_t>(v);
  } else {
    double hd = FirstNum(c, {"head_dim", "kv_channels"});
    if (hd == 0) hd = hidden / heads;
    double kv = FirstNum(c, {"num_key_value_heads", "multi_query_group_num"});
    if (kv == 0) kv = heads;
    attn = 2 * hidden * heads * hd + 2 * hidden * kv * hd;
    s.qk_dim = s.v_dim = static_cast<uint32_t>(hd);
  }
  s.heads = static_cast<uint32_t>(heads);
  const double inter = Num(c, "intermediate_size");
  const double experts = FirstNum(c, {"n_routed_experts", "num_experts", "num_local_experts"});
  const double topk = FirstNum(c, {"num_experts_per_tok", "experts_per_token"});
  const double moe_inter =
      Num(c, "moe_intermediate_size") > 0 ? Num(c, "moe_intermediate_size") : inter;
  const double shared =
      Num(c, "n_shared_experts") * moe_inter + Num(c, "shared_expert_intermediate_size");
  const auto first_dense = static_cast<uint64_t>(Num(c, "first_k_dense_replace"));
  const auto step = static_cast<uint64_t>(Num(c, "decoder_sparse_step"));
  std::vector<uint64_t> mlp_only;
  if (auto it = c.find("mlp_only_layers"); it != c.end() && it->is_array())
    for (const Json& v : *it)
      if (v.is_number_unsigned()) mlp_only.push_back(v.get<uint64_t>());
  if (inter == 0 && experts == 0)
    return Status::InvalidArgument(path + ": no intermediate_size or experts for prefill FLOPs");
  if (experts > 0 && topk == 0)
    return Status::InvalidArgument(path + ": experts without num_experts_per_tok");
  std::vector<std::string> types;
  if (auto it = c.find("layer_types"); it != c.end() && it->is_array() && it->size() == layers)
    for (const Json& t : *it) types.push_back(t.is_string() ? t.get<std::string>() : "");
  const auto window = static_cast<uint64_t>(Num(c, "sliding_window"));
  for (uint64_t i = 0; i < layers; ++i) {
    const bool moe = experts > 0 && i >= first_dense && (step <= 1 || (i + 1) % step == 0) &&
                     std::find(mlp_only.begin(), mlp_only.end(), i) == mlp_only.end();
    const double mlp_active =
        moe ? topk * 3 * hidden * moe_inter + 3 * hidden * shared + hidden * experts
            : 3 * hidden * inter;
    const double mlp_total =
        moe ? experts * 3 * hidden * moe_inter + 3 * hidden * shared + hidden * experts
            : 3 * hidden * inter;
    s.active_params += attn + mlp_active;
    s.total_params += attn + mlp_total;
    const std::string& t = i < types.size() ? types[i] : std::string();
    if (t.find("sliding") != std::string::npos && window > 0) {
      ++s.window_layers;
    } else if (t.find("linear") == std::string::npos && t.find("mamba") == std::string::npos) {
      ++s.attn_layers;  // linear-attention / mamba layers: no context term
    }
  }
  s.window = window;
  s.sparse_topk = static_cast<uint64_t>(Num(c, "index_topk"));
  if (Num(c, "index_head_dim") > 0) {
    s.indexer_layers = s.attn_layers;
    s.indexer_heads = static_cast<uint32_t>(Num(c, "index_n_heads"));
    s.indexer_dim = static_cast<uint32_t>(Num(c, "index_head_dim"));
  }
  return s;
}

Result<ComputeShape> ComputeShapeFromHfConfig(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return ComputeShapeFromHfConfigText(text.str(), path);
}

Result<ComputeShape> FindComputeShape(const std::string& id) {
  auto kv = FindKvModel(id);
  if (!kv.ok()) return kv.status();
  for (const CatalogConfig& e : kCatalog) {
    if (kv->id != e.id) continue;
    auto s = ComputeShapeFromHfConfigText(e.json, e.id);
    if (!s.ok()) return s.status();
    s->name = kv->name;
    s->source = e.source;
    // The catalog's DSA indexer runs on its full-indexer layers only (kv_models.cc).
    if (kv->arch.indexer_layers > 0 && s->indexer_layers > 0)
      s->indexer_layers = kv->arch.indexer_layers;
    return s;
  }
  return Status::NotFound(
      fmt::format("model '{}' has no prefill compute values in the catalog: give --model-config "
                  "config.json",
                  id));
}

}  // namespace ltl
