// Hugging Face config.json -> KvArchitecture (see hf_config.h). Rules, in docs/SEMANTICS.md:
// MLA when kv_lora_rank is set (layers x (kv_lora_rank + qk_rope_head_dim)), else GQA/MHA
// (layers x 2 x num_key_value_heads x head_dim, head_dim defaulting to hidden_size /
// num_attention_heads); index_head_dim adds an indexer key on every attention layer; layer_types
// entries naming linear attention, mamba or convolution layers keep no KV and are not counted.
#include "models/hf_config.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "models/hf_config_json.h"

namespace ltl {
namespace {

using Json = nlohmann::json;

// A positive integer field, or 0 when absent or null. Sets *bad when present but not an integer.
uint64_t UintField(const Json& j, const char* key, bool* bad) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return 0;
  if (it->is_number_integer() && it->get<int64_t>() >= 0) return it->get<uint64_t>();
  if (it->is_number_float() && it->get<double>() >= 0 &&
      it->get<double>() == static_cast<double>(static_cast<uint64_t>(it->get<double>())))
    return static_cast<uint64_t>(it->get<double>());
  *bad = true;
  return 0;
}

bool KeepsNoKv(const std::string& layer_type) {
  return layer_type.find("linear") != std::string::npos ||
         layer_type.find("mamba") != std::string::npos ||
         layer_type.find("conv") != std::string::npos ||
         layer_type.find("ssm") != std::string::npos;
}

}  // namespace

Result<HfKvConfig> KvArchitectureFromHfConfigText(const std::string& text,
                                                  const std::string& path) {
  auto parsed = ParseHfConfigJson(text, path);
  if (!parsed.ok()) return parsed.status();
  const Json& root = parsed.value().root;
  const Json* cfg = &parsed.value().model();
  bool bad = false;
  // A size beyond any model's (2^24: layers, heads, dimensions) is an error naming the field;
  // before, 4294967328 layers were read as 32 (issue 35, item 12).
  constexpr uint64_t kMaxSize = uint64_t{1} << 24;
  std::string too_big;
  auto field = [&](const char* key) {
    const uint64_t v = UintField(*cfg, key, &bad);
    if (v > kMaxSize && too_big.empty())
      too_big = path + ": " + key + " is " + std::to_string(v) + ", out of range (at most " +
                std::to_string(kMaxSize) + ")";
    return v;
  };

  HfKvConfig out;
  for (const Json* j : std::initializer_list<const Json*>{&root, cfg}) {
    for (const char* key : {"_name_or_path", "model_type"}) {
      auto it = j->find(key);
      if (out.name.empty() && it != j->end() && it->is_string() && !it->get<std::string>().empty())
        out.name = it->get<std::string>();
    }
  }
  if (out.name.empty()) out.name = std::filesystem::path(path).filename().string();

  uint64_t layers = field("num_hidden_layers");
  if (layers == 0) layers = field("num_layers");
  if (layers == 0) layers = field("n_layers");
  if (!too_big.empty()) return Status::InvalidArgument(too_big);
  if (layers == 0)
    return Status::InvalidArgument(path + ": no num_hidden_layers (is this a model config.json?)");

  auto types = cfg->find("layer_types");
  if (types != cfg->end() && types->is_array() && types->size() == layers) {
    uint64_t skipped = 0;
    for (const Json& t : *types)
      if (t.is_string() && KeepsNoKv(t.get<std::string>())) ++skipped;
    if (skipped > 0) {
      out.note = std::to_string(skipped) + " of " + std::to_string(layers) +
                 " layers keep no KV cache (layer_types) and are not counted";
      layers -= skipped;
    }
  }

  KvArchitecture& a = out.arch;
  a.layers = static_cast<uint32_t>(layers);
  const uint64_t rank = field("kv_lora_rank");
  if (rank > 0) {
    a.kind = KvArchitecture::Kind::kMla;
    a.kv_lora_rank = static_cast<uint32_t>(rank);
    a.rope_dim = static_cast<uint32_t>(field("qk_rope_head_dim"));
    if (a.rope_dim == 0)
      return Status::InvalidArgument(path + ": kv_lora_rank is set but qk_rope_head_dim is not");
  } else {
    a.kind = KvArchitecture::Kind::kGqa;
    const uint64_t heads =
        field("num_attention_heads") ? field("num_attention_heads") : field("n_head");
    uint64_t kv = field("num_key_value_heads");
    if (kv == 0) kv = field("multi_query_group_num");
    if (kv == 0) kv = heads;
    uint64_t head_dim = field("head_dim");
    if (head_dim == 0) head_dim = field("kv_channels");
    if (head_dim == 0 && heads > 0) head_dim = field("hidden_size") / heads;
    if (kv == 0 || head_dim == 0)
      return Status::InvalidArgument(
          path +
          ": cannot tell the KV width (need num_key_value_heads or num_attention_heads, "
          "and head_dim or hidden_size)");
    a.kv_heads = static_cast<uint32_t>(kv);
    a.head_dim = static_cast<uint32_t>(head_dim);
  }
  const uint64_t index_dim = field("index_head_dim");
  if (index_dim > 0) {
    a.indexer_dim = static_cast<uint32_t>(index_dim);
    a.indexer_layers = a.layers;
  }
  if (!too_big.empty()) return Status::InvalidArgument(too_big);
  if (bad) return Status::InvalidArgument(path + ": a size field is not a non-negative integer");
  return out;
}

Result<HfKvConfig> KvArchitectureFromHfConfig(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().size() > (64u << 20)) return Status::Limit(path + ": larger than 64 MiB");
  return KvArchitectureFromHfConfigText(text.str(), path);
}

}  // namespace ltl
