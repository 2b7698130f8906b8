// Prefill FLOPs from config values and hardware presets, against figures worked by hand (the
// arithmetic is in the comments) and published parameter counts.
#include "models/model_compute.h"
#include "models/hf_config.h"

#include <gtest/gtest.h>

#include "models/hardware_presets.h"

namespace ltl {
namespace {

TEST(ModelCompute, Llama31_8bByHand) {
  // Per layer: q, o 4096 x 4096 each; k, v 4096 x 1024 each; gated MLP 3 x 4096 x 14336.
  // 2 x 16,777,216 + 2 x 4,194,304 + 176,160,768 = 218,103,808; x 32 layers = 6,979,321,856
  // (+ 2 x 128,256 x 4,096 embeddings = 8.03B, Meta's published size).
  auto s = FindComputeShape("llama-3.1-8b");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->active_params, 6979321856.0);
  EXPECT_EQ(s->total_params, 6979321856.0);
  EXPECT_EQ(s->attn_layers, 32u);
  // Attention: 2 x 32 heads x (128 + 128) = 16,384 FLOPs per query-key pair per layer, x 32
  // layers = 524,288. 1,000 tokens from scratch: 2 x 6,979,321,856 x 1,000 +
  // 524,288 x (1,000 x 1,001 / 2) = 13,958,643,712,000 + 262,406,144,000.
  EXPECT_DOUBLE_EQ(s->PrefillFlops(0, 1000), 14221049856000.0);
  // The last 500 of them with 500 cached: keys 501..1000 = 375,250 pairs.
  EXPECT_DOUBLE_EQ(s->PrefillFlops(500, 1000), 2 * 6979321856.0 * 500 + 524288.0 * 375250);
  EXPECT_DOUBLE_EQ(s->AttentionFlopsAt(9), 524288.0 * 10);
  // On an H100 at bf16 and MFU 0.4: 14,221,049,856,000 / (989.4e12 x 0.4) = 35.93 ms.
  auto gpu = FindGpuPreset("H100");
  ASSERT_TRUE(gpu.ok());
  EXPECT_NEAR(s->PrefillFlops(0, 1000) / (gpu->bf16_tflops * 1e12 * 0.4), 0.0359333, 1e-6);
}

TEST(ModelCompute, DeepSeekV3MoeAndMlaByHand) {
  // MLA per layer: q_a 7168 x 1536 + q_b 1536 x 128 x 192 + kv_a 7168 x 576 + kv_b 512 x 128 x
  // 256 + o 128 x 128 x 7168 = 187,105,280. MoE layer (58 of 61): 8 routed + 1 shared experts x
  // 3 x 7168 x 2048 + router 7168 x 256 = 398,196,736; dense layer (first 3): 3 x 7168 x 18432 =
  // 396,361,728. Sum 35,697,917,952; + 2 x 129,280 x 7,168 embeddings = 37.55B, DeepSeek's
  // published "37B activated".
  auto s = FindComputeShape("deepseek-v3");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->active_params, 35697917952.0);
  EXPECT_EQ(s->qk_dim, 192u);
  EXPECT_EQ(s->v_dim, 128u);
  // All 256 experts: 58 x (256 x 44,040,192 + 44,040,192 + 1,835,008) + dense and attention =
  // 669,172,039,680; + 1.85B embeddings = 671B, DeepSeek's published total.
  EXPECT_EQ(s->total_params, 669172039680.0);
  // Attention per pair: 2 x 128 x (192 + 128) = 81,920 per layer.
  EXPECT_DOUBLE_EQ(s->AttentionFlopsAt(0), 61 * 81920.0);
}

TEST(ModelCompute, SparseAttentionAndWindowsCapTheKeys) {
  ComputeShape s;
  s.active_params = 0;
  s.attn_layers = 1;
  s.heads = 1;
  s.qk_dim = 1;
  s.v_dim = 1;  // 4 FLOPs per pair
  s.sparse_topk = 3;
  // Positions 0..4 see 1, 2, 3, 3, 3 keys.
  EXPECT_DOUBLE_EQ(s.PrefillFlops(0, 5), 4.0 * 12);
  EXPECT_DOUBLE_EQ(s.PrefillFlops(3, 5), 4.0 * 6);
  s.sparse_topk = 0;
  s.attn_layers = 0;
  s.window_layers = 2;
  s.window = 2;  // 1, 2, 2, 2
  EXPECT_DOUBLE_EQ(s.PrefillFlops(0, 4), 2 * 4.0 * 7);
  s.indexer_layers = 1;
  s.indexer_heads = 2;
  s.indexer_dim = 3;  // 12 FLOPs per pair over every key: 1 + 2 + 3 + 4 = 10 pairs
  EXPECT_DOUBLE_EQ(s.PrefillFlops(0, 4), 2 * 4.0 * 7 + 12.0 * 10);
}

TEST(ModelCompute, ConfigJsonQwenMoeAndErrors) {
  // Qwen2-MoE-style shared expert, decoder_sparse_step 2 and an mlp_only layer: layers 1 and 3 are
  // MoE except layer 3 (mlp_only) -> only layer 1.
  const std::string cfg = R"({"hidden_size":8,"intermediate_size":16,"num_hidden_layers":4,
    "num_attention_heads":2,"num_key_value_heads":1,"num_experts":4,"num_experts_per_tok":2,
    "moe_intermediate_size":4,"shared_expert_intermediate_size":6,"decoder_sparse_step":2,
    "mlp_only_layers":[3]})";
  auto s = ComputeShapeFromHfConfigText(cfg, "c.json");
  ASSERT_TRUE(s.ok()) << s.status().message();
  // head_dim 4. attention 2 x 8 x 8 + 2 x 8 x 4 = 192 per layer; dense MLP 3 x 8 x 16 = 384;
  // MoE: 2 x 3 x 8 x 4 + 3 x 8 x 6 + router 8 x 4 = 192 + 144 + 32 = 368.
  EXPECT_EQ(s->active_params, 4 * 192.0 + 3 * 384.0 + 368.0);
  EXPECT_EQ(s->total_params, 4 * 192.0 + 3 * 384.0 + (4 * 96.0 + 144 + 32));
  EXPECT_FALSE(ComputeShapeFromHfConfigText("[]", "x.json").ok());
  EXPECT_FALSE(ComputeShapeFromHfConfigText(R"({"hidden_size":8})", "x.json").ok());
  EXPECT_FALSE(FindComputeShape("gqa-32l").ok());  // a KV shape only
}

// One config.json reader (issue 31): the KV architecture and the prefill compute read the same
// section of a multimodal config. Here the language model is in text_config and a later
// language_config object (a projector's, say) has no num_hidden_layers; the compute reader used to
// take the last nested object it found and fail for want of hidden_size.
TEST(ModelCompute, ReadsTheSameSectionAsTheKvArchitecture) {
  const std::string cfg = R"({"model_type":"mm","text_config":{"hidden_size":8,
    "intermediate_size":16,"num_hidden_layers":4,"num_attention_heads":2,"num_key_value_heads":1},
    "language_config":{"projector_hidden_act":"gelu"}})";
  auto s = ComputeShapeFromHfConfigText(cfg, "c.json");
  ASSERT_TRUE(s.ok()) << s.status().message();
  // head_dim 4: attention 2 x 8 x 8 + 2 x 8 x 4 = 192 per layer, MLP 3 x 8 x 16 = 384.
  EXPECT_EQ(s->active_params, 4 * (192.0 + 384.0));
  EXPECT_EQ(s->attn_layers, 4u);
  auto kv = KvArchitectureFromHfConfigText(cfg, "c.json");
  ASSERT_TRUE(kv.ok()) << kv.status().message();
  // 4 layers x 2 (K and V) x 1 KV head x head_dim 4 x 2 bytes.
  EXPECT_EQ(KvBitsPerToken(kv->arch, KvPrecision::kBf16) / 8, 4u * 2 * 1 * 4 * 2);
}

TEST(HardwarePresets, BandwidthsAndPeaks) {
  EXPECT_DOUBLE_EQ(*ParseBandwidth("50GB/s"), 50e9);
  EXPECT_DOUBLE_EQ(*ParseBandwidth("400Gb/s"), 50e9);  // bits
  EXPECT_DOUBLE_EQ(*ParseBandwidth("1GiB/s"), 1073741824.0);
  EXPECT_DOUBLE_EQ(*ParseBandwidth("PCIe-Gen5-x16"), 63e9);
  EXPECT_DOUBLE_EQ(*ParseBandwidth("nvme-gen4"), 7e9);
  EXPECT_FALSE(ParseBandwidth("fast").ok());
  EXPECT_FALSE(ParseBandwidth("-1GB/s").ok());
  // Dense = half the datasheets' with-sparsity figures.
  EXPECT_DOUBLE_EQ(FindGpuPreset("b200")->bf16_tflops, 36000.0 / 8 / 2);
  // H100/H200: the Hopper whitepaper's dense 989.4 bf16 / 1,978.9 fp8 (datasheets: 1,979 / 3,958
  // with sparsity).
  EXPECT_DOUBLE_EQ(FindGpuPreset("h200")->fp8_tflops, 1978.9);
  EXPECT_FALSE(FindGpuPreset("a100").ok());
}

}  // namespace
}  // namespace ltl
