// KV bytes per token against the kvcache-simulator catalog figures (docs consumers.md), against
// hand derivations from the config values, and the GiB -> blocks conversion.
#include <gtest/gtest.h>

#include "models/hf_config.h"
#include "models/kv_models.h"

namespace ltl {
namespace {

uint64_t Bytes(const char* id, KvPrecision p = KvPrecision::kBf16) {
  auto m = FindKvModel(id);
  EXPECT_TRUE(m.ok()) << id;
  return m.ok() ? KvBitsPerToken(m->arch, p) / 8 : 0;
}

TEST(KvModels, MatchTheReferenceSimulatorCatalog) {
  EXPECT_EQ(Bytes("llama-3.1-8b"), 131072u);
  EXPECT_EQ(Bytes("qwen3-32b"), 262144u);
  EXPECT_EQ(Bytes("deepseek-v3"), 70272u);
  EXPECT_EQ(Bytes("glm-5.2"), 95232u);
}

TEST(KvModels, MatchHandDerivations) {
  EXPECT_EQ(Bytes("llama-3.1-70b"), 80u * 2 * 8 * 128 * 2);
  EXPECT_EQ(Bytes("llama-3.1-405b"), 126u * 2 * 8 * 128 * 2);
  EXPECT_EQ(Bytes("qwen3-8b"), 36u * 2 * 8 * 128 * 2);
  EXPECT_EQ(Bytes("qwen3-235b-a22b"), 94u * 2 * 4 * 128 * 2);
  EXPECT_EQ(Bytes("kimi-k2"), 61u * 576 * 2);
  EXPECT_EQ(Bytes("glm-4.5"), 92u * 2 * 8 * 128 * 2);
  EXPECT_EQ(Bytes("gpt-oss-120b"), 36u * 2 * 8 * 64 * 2);
  EXPECT_EQ(Bytes("gpt-oss-20b"), 24u * 2 * 8 * 64 * 2);
  EXPECT_EQ(Bytes("gqa-32l"), 128u * 1024);
  EXPECT_EQ(Bytes("GLM-5.2"), 95232u);  // case-insensitive
  EXPECT_FALSE(FindKvModel("nope").ok());
}

TEST(KvModels, ScaleWithPrecision) {
  EXPECT_EQ(Bytes("glm-5.2", KvPrecision::kFp8), 47616u);
  EXPECT_EQ(Bytes("glm-5.2", KvPrecision::kFp4), 23808u);
  EXPECT_TRUE(ParseKvPrecision("FP8").ok());
  EXPECT_FALSE(ParseKvPrecision("int3").ok());
}

TEST(KvModels, ConvertGibBudgetsToBlocks) {
  const uint64_t glm = 95232 * 8;
  // floor(2^30 / (95232 x 512)) = floor(22.02) = 22 blocks.
  EXPECT_EQ(KvCapacityBlocks(1, glm, 512), 22u);
  EXPECT_EQ(KvCapacityBlocks(16, glm, 512), 352u);         // floor(352.35)
  EXPECT_EQ(KvCapacityBlocks(4096, glm, 512), 90200u);     // floor(90200.6)
  EXPECT_EQ(KvCapacityBlocks(0.5, 131072 * 8, 16), 256u);  // 2^29 / 2^21
  EXPECT_EQ(DefaultCacheGib().size(), 13u);
  EXPECT_EQ(DefaultCacheGib().back(), 4096.0);
  EXPECT_EQ(BinaryBytes(95232), "93 KiB");
  EXPECT_EQ(BinaryBytes(70272), "68.6 KiB");
}

TEST(HfConfig, ReadsGqaConfigs) {
  // Llama-3.1-8B's values; head_dim from hidden_size / num_attention_heads.
  auto c = KvArchitectureFromHfConfigText(
      R"({"_name_or_path":"meta-llama/Llama-3.1-8B","num_hidden_layers":32,"hidden_size":4096,
          "num_attention_heads":32,"num_key_value_heads":8,"torch_dtype":"bfloat16"})",
      "config.json");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->name, "meta-llama/Llama-3.1-8B");
  EXPECT_EQ(KvBitsPerToken(c->arch, KvPrecision::kBf16) / 8, 131072u);
}

TEST(HfConfig, ReadsMlaConfigsWithIndexerAndNestedTextConfig) {
  auto c = KvArchitectureFromHfConfigText(
      R"({"model_type":"x","text_config":{"num_hidden_layers":61,"kv_lora_rank":512,
          "qk_rope_head_dim":64,"num_attention_heads":128,"num_key_value_heads":128}})",
      "c.json");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(KvBitsPerToken(c->arch, KvPrecision::kBf16) / 8, 70272u);
  auto idx = KvArchitectureFromHfConfigText(
      R"({"num_hidden_layers":2,"kv_lora_rank":512,"qk_rope_head_dim":64,"index_head_dim":128})",
      "c.json");
  ASSERT_TRUE(idx.ok());
  EXPECT_EQ(KvBitsPerToken(idx->arch, KvPrecision::kBf16) / 8, 2u * 576 * 2 + 2u * 128 * 2);
}

TEST(HfConfig, SkipsLayersWithoutKvAndRejectsBadConfigs) {
  auto c = KvArchitectureFromHfConfigText(
      R"({"num_hidden_layers":4,"num_attention_heads":16,"num_key_value_heads":2,"head_dim":256,
          "layer_types":["linear_attention","linear_attention","linear_attention","full_attention"]})",
      "c.json");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(KvBitsPerToken(c->arch, KvPrecision::kBf16) / 8, 1u * 2 * 2 * 256 * 2);
  auto bad = KvArchitectureFromHfConfigText("[1,2]", "c.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("c.json: ", 0), 0u);
  EXPECT_FALSE(KvArchitectureFromHfConfigText(R"({"hidden_size":4096})", "c.json").ok());
  EXPECT_FALSE(KvArchitectureFromHfConfigText(R"({"num_hidden_layers":"x"})", "c.json").ok());
}

}  // namespace
}  // namespace ltl
