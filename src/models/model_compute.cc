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

#include "models/hf_config_json.h"
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
  auto parsed = ParseHfConfigJson(text, path);
  if (!parsed.ok()) return parsed.status();
  const Json& root = parsed.value().root;
  const Json* cfg = &parsed.value().model();
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
  if (kv->compute_config.empty())
    return Status::NotFound(
        fmt::format("model '{}' has no prefill compute values in the catalog: give --model-config "
                    "config.json",
                    id));
  auto s = ComputeShapeFromHfConfigText(kv->compute_config, kv->id);
  if (!s.ok()) return s.status();
  s->name = kv->name;
  s->source = kv->compute_source;
  // The catalog's DSA indexer runs on its full-indexer layers only (model_catalog.cc).
  if (kv->arch.indexer_layers > 0 && s->indexer_layers > 0)
    s->indexer_layers = kv->arch.indexer_layers;
  return s;
}

}  // namespace ltl
