// The model catalog (see kv_models.h): one entry per model, holding its KV-cache architecture and,
// where the model has them, the config.json values that model_compute.cc reads for prefill
// compute. Every entry cites the config values it uses; docs/SEMANTICS.md ("KV memory per token",
// "Where the catalog values come from") repeats them with the results.
#include "models/kv_models.h"

namespace ltl {
namespace {

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

}  // namespace

// Values are from each model's Hugging Face config.json (keys in parentheses); head_dim, when the
// config has no such key, is hidden_size / num_attention_heads. Every value was compared against a
// stored copy (all matched, none corrected). A model with prefill compute values carries its
// config.json values (keys as there) after its KV fields, with a comment saying where every value
// was compared (repository path @ commit, or the page); its KV values share those sources
// (docs/SEMANTICS.md, "Where the catalog values come from"). The two gpt-oss entries:
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
       Gqa(32, 8, 128), "",
       // Confirmed: citsjtu2020/LLM-Prof sglang/Model_Config.md @ 8434c8d1 (a copy of the
       // Llama-3.1-8B config.json): 4096 / 14336 / 32 / 32 / 8; also oumi configs/recipes/llama3_1.
       "meta-llama/Llama-3.1-8B config.json",
       R"({"hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,
         "num_attention_heads":32,"num_key_value_heads":8})"},
      {"llama-3.1-70b", "Llama 3.1 70B",
       "meta-llama/Llama-3.1-70B config.json: num_hidden_layers 80, num_key_value_heads 8, "
       "hidden_size 8192 / num_attention_heads 64 = head_dim 128",
       Gqa(80, 8, 128), "",
       // Confirmed: vulkomilev/oumi configs/recipes/llama3_1/README.md @ 4d8296fb ("Model Info" of
       // Llama 3.1 70B): 8192 / 28672 / 80 layers / 64 heads / 8 KV heads. Its config.json itself
       // is not stored.
       "meta-llama/Llama-3.1-70B config.json",
       R"({"hidden_size":8192,"intermediate_size":28672,"num_hidden_layers":80,
         "num_attention_heads":64,"num_key_value_heads":8})"},
      {"llama-3.1-405b", "Llama 3.1 405B",
       "meta-llama/Llama-3.1-405B config.json: num_hidden_layers 126, num_key_value_heads 8, "
       "hidden_size 16384 / num_attention_heads 128 = head_dim 128",
       Gqa(126, 8, 128), "",
       // Confirmed: huggingface.co/neuralmagic/Meta-Llama-3.1-405B-Instruct-FP8-dynamic config.json
       // @ 5e2d102c and relaxml/Llama-3.1-405B-Instruct-QTIP copies (_name_or_path
       // meta-llama/Meta-Llama-3.1-405B-Instruct): 16384 / 53248 / 126 / 128 heads / 8 KV heads.
       // Copies made before Meta's config update say num_key_value_heads 16 (the first upload
       // duplicated KV heads; a Hugging Face discussion asks "Why did num_key_value_heads change
       // from 16 to 8?"): 8 is the current value and the model's real GQA width.
       "meta-llama/Llama-3.1-405B config.json",
       R"({"hidden_size":16384,"intermediate_size":53248,"num_hidden_layers":126,
         "num_attention_heads":128,"num_key_value_heads":8})"},
      {"qwen3-8b", "Qwen3 8B",
       "Qwen/Qwen3-8B config.json: num_hidden_layers 36, num_key_value_heads 8, head_dim 128",
       Gqa(36, 8, 128), "",
       // Confirmed: citsjtu2020/LLM-Prof sglang/Model_Config.md @ 8434c8d1 (Qwen3-8B config.json):
       // 4096 / 12288 / 36 / 32 / 8 / head_dim 128.
       "Qwen/Qwen3-8B config.json",
       R"({"hidden_size":4096,"intermediate_size":12288,"num_hidden_layers":36,
         "num_attention_heads":32,"num_key_value_heads":8,"head_dim":128})"},
      {"qwen3-32b", "Qwen3 32B",
       "Qwen/Qwen3-32B config.json: num_hidden_layers 64, num_key_value_heads 8, head_dim 128",
       Gqa(64, 8, 128), "",
       // Confirmed: citsjtu2020/LLM-Prof sglang/Model_Config.md @ 8434c8d1 (Qwen3-32B config.json):
       // 5120 / 25600 / 64 / 64 / 8 / head_dim 128.
       "Qwen/Qwen3-32B config.json",
       R"({"hidden_size":5120,"intermediate_size":25600,"num_hidden_layers":64,
         "num_attention_heads":64,"num_key_value_heads":8,"head_dim":128})"},
      {"qwen3-235b-a22b", "Qwen3 235B-A22B",
       "Qwen/Qwen3-235B-A22B config.json: num_hidden_layers 94, num_key_value_heads 4, "
       "head_dim 128",
       Gqa(94, 4, 128), "",
       // Confirmed: zyzshishui/slime scripts/models/qwen3-235B-A22B.sh @ a2938638 (Megatron flags
       // converted from the config: 94 layers, 64 heads, 4 query groups, kv-channels 128, hidden
       // 4096, ffn 12288, moe-ffn 1536, 128 experts, top-8, every layer MoE); the same in Ascend's
       // MindSpeed-RL qwen3_235b_a22b.yaml and in a Qwen3-235B-A22B-derived FP8 config.json on
       // huggingface.co (vera6/affine-multi). The original config.json itself is not stored.
       "Qwen/Qwen3-235B-A22B config.json",
       R"({"hidden_size":4096,"intermediate_size":12288,"num_hidden_layers":94,
         "num_attention_heads":64,"num_key_value_heads":4,"head_dim":128,"num_experts":128,
         "num_experts_per_tok":8,"moe_intermediate_size":1536,"decoder_sparse_step":1})"},
      {"deepseek-v3", "DeepSeek-V3",
       "deepseek-ai/DeepSeek-V3 config.json: num_hidden_layers 61, kv_lora_rank 512, "
       "qk_rope_head_dim 64 (MLA)",
       Mla(61, 512, 64), "",
       // Confirmed: a copy of the DeepSeek-V3 config.json at gitcode.com cann/cann-recipes-train
       // llm_rl/deepseek/verl_patches/config.json (every value here), and vLLM's DeepseekV3Config
       // defaults (docs.vllm.ai v0.11.0, "similar to DeepSeek-V3").
       "deepseek-ai/DeepSeek-V3 config.json",
       R"({"hidden_size":7168,"intermediate_size":18432,"moe_intermediate_size":2048,
         "num_hidden_layers":61,"num_attention_heads":128,"n_routed_experts":256,
         "n_shared_experts":1,"num_experts_per_tok":8,"first_k_dense_replace":3,
         "q_lora_rank":1536,"kv_lora_rank":512,"qk_nope_head_dim":128,"qk_rope_head_dim":64,
         "v_head_dim":128})"},
      {"kimi-k2", "Kimi K2",
       "moonshotai/Kimi-K2-Instruct config.json: num_hidden_layers 61, kv_lora_rank 512, "
       "qk_rope_head_dim 64 (MLA, DeepSeek-V3 architecture; Kimi K2.5 has the same values)",
       Mla(61, 512, 64), "",
       // Confirmed: ai-dynamo/aiconfigurator src/aiconfigurator/model_configs/
       // moonshotai--Kimi-K2-Instruct_config.json @ 821eb9a6: every value here.
       "moonshotai/Kimi-K2-Instruct config.json",
       R"({"hidden_size":7168,"intermediate_size":18432,"moe_intermediate_size":2048,
         "num_hidden_layers":61,"num_attention_heads":64,"n_routed_experts":384,
         "n_shared_experts":1,"num_experts_per_tok":8,"first_k_dense_replace":1,
         "q_lora_rank":1536,"kv_lora_rank":512,"qk_nope_head_dim":128,"qk_rope_head_dim":64,
         "v_head_dim":128})"},
      {"glm-4.5", "GLM-4.5",
       "zai-org/GLM-4.5 config.json: num_hidden_layers 92, num_key_value_heads 8, head_dim 128",
       Gqa(92, 8, 128),
       "the multi-token-prediction layer (num_nextn_predict_layers) is not counted",
       // Confirmed: zyzshishui/slime scripts/models/glm4.5-355B-A32B.sh (3 dense + 89 MoE layers,
       // 96 heads, 8 query groups, kv-channels 128, hidden 5120, ffn 12288, moe-ffn 1536, shared
       // 1536, 160 experts, top-8) and Megatron-Bridge docs/models/llm/glm45.md (the same figures
       // for zai-org/GLM-4.5). The config.json itself is not stored.
       "zai-org/GLM-4.5 config.json",
       R"({"hidden_size":5120,"intermediate_size":12288,"moe_intermediate_size":1536,
         "num_hidden_layers":92,"num_attention_heads":96,"num_key_value_heads":8,
         "head_dim":128,"n_routed_experts":160,"n_shared_experts":1,"num_experts_per_tok":8,
         "first_k_dense_replace":3})"},
      {"glm-5.2", "GLM-5.2",
       "GLM-5.2 (kvcache-simulator catalog, 95,232 B/token at bf16): 78 layers of MLA latent "
       "(kv_lora_rank 512 + qk_rope_head_dim 64) and a DSA indexer key (index_head_dim 128) on "
       "the 21 layers that run a full indexer",
       Mla(78, 512, 64, 21, 128), "the other 57 layers reuse the previous indexer's selection",
       // Confirmed for GLM-5: ai-dynamo/aiconfigurator src/aiconfigurator/model_configs/
       // zai-org--GLM-5-FP8_config.json @ 691ec908 (all values but the indexer's) and the full
       // GLM-5 config.json quoted in vllm-project/llm-compressor issue #2512 (index_n_heads 32,
       // index_head_dim 128, index_topk 2048 too). GLM-5.2 itself: a vLLM model-hook file in the
       // index (its repository is not named by the index) requires exactly these values for GLM-5.2
       // and the indexer schedule "full if layer < 3 or (layer - 2) % 4 == 0" = 21 full layers.
       "zai-org/GLM-5 config.json values (GLM-5.2 assumed to share the GLM-5 architecture; counts "
       "to 39.1B active matrix parameters, GLM-5's published 40B active with embeddings); DSA "
       "indexer on the catalog's 21 full-indexer layers",
       R"({"hidden_size":6144,"intermediate_size":12288,"moe_intermediate_size":2048,
         "num_hidden_layers":78,"num_attention_heads":64,"n_routed_experts":256,
         "n_shared_experts":1,"num_experts_per_tok":8,"first_k_dense_replace":3,
         "q_lora_rank":2048,"kv_lora_rank":512,"qk_nope_head_dim":192,"qk_rope_head_dim":64,
         "v_head_dim":256,"index_n_heads":32,"index_head_dim":128,"index_topk":2048})"},
      {"gpt-oss-120b", "gpt-oss-120b",
       "openai/gpt-oss-120b config.json: num_hidden_layers 36, num_key_value_heads 8, head_dim 64",
       Gqa(36, 8, 64),
       "18 of the 36 layers are 128-token sliding-window; counted in full, as a paged cache that "
       "keeps every layer's blocks stores them",
       "", ""},
      {"gpt-oss-20b", "gpt-oss-20b",
       "openai/gpt-oss-20b config.json: num_hidden_layers 24, num_key_value_heads 8, head_dim 64",
       Gqa(24, 8, 64),
       "12 of the 24 layers are 128-token sliding-window; counted in full, as a paged cache that "
       "keeps every layer's blocks stores them",
       "", ""},
      {"gqa-32l", "32-layer fp16 GQA (generic)",
       "generic: 32 layers, 8 KV heads, head_dim 128 (the Llama-3-8B shape) = 128 KiB/token at "
       "16 bits",
       Gqa(32, 8, 128), "", "", ""},
  };
  return catalog;
}

}  // namespace ltl
