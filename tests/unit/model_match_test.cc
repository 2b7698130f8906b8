// ModelNameMatches: --model-dir NAME=DIR against request model names (ingest/model_match.h).
#include "ingest/model_match.h"

#include <gtest/gtest.h>

#include "common/reason_table.h"

namespace ltl {
namespace {

TEST(ModelMatch, NameIgnoresCaseAndPrefixes) {
  EXPECT_TRUE(ModelNameMatches("", "anything"));
  EXPECT_TRUE(ModelNameMatches("Qwen3-8B", "Qwen3-8B"));
  EXPECT_TRUE(ModelNameMatches("Qwen3-8B", "qwen3-8b"));
  EXPECT_TRUE(ModelNameMatches("Qwen3-8B", "Qwen/Qwen3-8B"));
  EXPECT_TRUE(ModelNameMatches("Qwen/Qwen3-8B", "hosted_vllm/qwen/qwen3-8b"));
  EXPECT_FALSE(ModelNameMatches("Qwen3-8B", "Qwen3-8B-Instruct"));
  EXPECT_FALSE(ModelNameMatches("Qwen3-8B", "Qwen3-8"));
  EXPECT_FALSE(ModelNameMatches("Qwen3-8B", ""));
  EXPECT_FALSE(ModelNameMatches("org/", "org/"));  // an empty base name serves nothing
}

TEST(ReasonTable, SamePointerForSameTextAndBounded) {
  ReasonTable t;
  const char* a = t.Intern("chat template raised: x");
  std::string copy = "chat template raised: x";
  EXPECT_EQ(a, t.Intern(copy));
  EXPECT_STREQ(a, "chat template raised: x");
  for (size_t i = 0; i < ReasonTable::kMaxDistinct + 10; ++i) t.Intern(std::to_string(i));
  EXPECT_EQ(t.size(), ReasonTable::kMaxDistinct);
  EXPECT_STREQ(t.Intern("new one"), ReasonTable::kOverflow);
  EXPECT_STREQ(a, "chat template raised: x");  // earlier pointers stay valid
}

}  // namespace
}  // namespace ltl
