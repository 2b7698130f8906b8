// Tests of the tokenizer.json normalizers on small hand-checked cases (expected strings written
// out from the Unicode definitions and Hugging Face tokenizers' documented behaviour), and of the
// newline-cut claim each one makes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tokenize/hf_normalizer.h"

namespace ltl {
namespace {

std::string Apply(const nlohmann::json& config, std::string_view text) {
  auto n = HfNormalizer::FromJson(config);
  EXPECT_TRUE(n.ok()) << n.status().message();
  if (!n.ok()) return "<error>";
  std::string storage;
  return std::string(n->Normalize(text, &storage));
}

nlohmann::json Replace(const char* kind, const char* pattern, const char* content) {
  return {{"type", "Replace"}, {"pattern", {{kind, pattern}}}, {"content", content}};
}

TEST(HfNormalizer, UnicodeForms) {
  EXPECT_EQ(Apply({{"type", "NFC"}}, "e\xCC\x81"), "\xC3\xA9");               // e + U+0301 -> é
  EXPECT_EQ(Apply({{"type", "NFD"}}, "\xC3\xA9"), "e\xCC\x81");               // é -> e + U+0301
  EXPECT_EQ(Apply({{"type", "NFKC"}}, "\xEF\xAC\x81x\xE2\x91\xA0"), "fix1");  // ﬁ, ① folded
  EXPECT_EQ(Apply({{"type", "NFKD"}}, "\xEF\xAC\x81\xC3\xA9"), "fie\xCC\x81");
  EXPECT_EQ(Apply({{"type", "NFC"}}, "plain"), "plain");
}

TEST(HfNormalizer, LowercaseIsPerCharacterFullMapping) {
  // İ (U+0130) lowercases to i + U+0307; Σ to σ even at a word end (no Final_Sigma context).
  EXPECT_EQ(Apply({{"type", "Lowercase"}}, "HeLLo \xC4\xB0 \xCE\xA3"), "hello i\xCC\x87 \xCF\x83");
}

TEST(HfNormalizer, StripAndStripAccents) {
  // U+3000 is White_Space.
  EXPECT_EQ(Apply({{"type", "Strip"}, {"strip_left", true}, {"strip_right", true}},
                  "  \t hi \xE3\x80\x80"),
            "hi");
  EXPECT_EQ(Apply({{"type", "Strip"}, {"strip_left", true}, {"strip_right", false}}, "  hi "),
            "hi ");
  EXPECT_EQ(Apply({{"type", "StripAccents"}},
                  "e\xCC\x81"
                  "a\xCC\xA7"),
            "ea");
}

TEST(HfNormalizer, ReplaceAndPrepend) {
  EXPECT_EQ(Apply(Replace("String", " ", "\xE2\x96\x81"), "a b  c"),
            "a\xE2\x96\x81"
            "b\xE2\x96\x81\xE2\x96\x81"
            "c");
  EXPECT_EQ(Apply(Replace("Regex", "\\s+", " "), "a \t\n b"), "a b");
  EXPECT_EQ(Apply(Replace("String", "ab", "x"), "aabab"), "axx");  // leftmost, non-overlapping
  EXPECT_EQ(Apply({{"type", "Prepend"}, {"prepend", "\xE2\x96\x81"}}, "hi"), "\xE2\x96\x81hi");
  EXPECT_EQ(Apply({{"type", "Prepend"}, {"prepend", "\xE2\x96\x81"}}, ""), "");
}

TEST(HfNormalizer, SequenceAsLlama2HasIt) {
  nlohmann::json llama2 = {{"type", "Sequence"},
                           {"normalizers",
                            {{{"type", "Prepend"}, {"prepend", "\xE2\x96\x81"}},
                             Replace("String", " ", "\xE2\x96\x81")}}};
  EXPECT_EQ(Apply(llama2, " hi there"), "\xE2\x96\x81\xE2\x96\x81hi\xE2\x96\x81there");
  // Several steps that each change the text (the two internal buffers alternate).
  nlohmann::json chain = {{"type", "Sequence"},
                          {"normalizers",
                           {{{"type", "NFKC"}},
                            {{"type", "Lowercase"}},
                            {{"type", "Strip"}, {"strip_left", true}, {"strip_right", true}},
                            Replace("String", "x", "yy"),
                            {{"type", "Prepend"}, {"prepend", "<"}}}}};
  EXPECT_EQ(Apply(chain, "  \xEF\xAC\x81X "), "<fiyy");
}

TEST(HfNormalizer, UnsupportedTypesAreErrors) {
  auto n = HfNormalizer::FromJson({{"type", "BertNormalizer"}});
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("BertNormalizer"), std::string::npos);
}

TEST(HfNormalizer, NewlineCutClaims) {
  auto claim = [](const nlohmann::json& c) {
    return HfNormalizer::FromJson(c)->NewlineCutIsExact();
  };
  EXPECT_TRUE(claim(nullptr));
  EXPECT_TRUE(claim({{"type", "NFC"}}));
  EXPECT_TRUE(claim(Replace("String", " ", "\xE2\x96\x81")));               // Gemma 3
  EXPECT_FALSE(claim({{"type", "Prepend"}, {"prepend", "\xE2\x96\x81"}}));  // prefixes each part
  EXPECT_FALSE(claim({{"type", "Strip"}, {"strip_left", true}, {"strip_right", true}}));
  EXPECT_FALSE(claim(Replace("String", "a", "b")));   // could rewrite the byte after the cut
  EXPECT_FALSE(claim(Replace("String", "\n", " ")));  // rewrites the '\n'
  EXPECT_FALSE(claim(Replace("Regex", " +", " ")));
}

}  // namespace
}  // namespace ltl
