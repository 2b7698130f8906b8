// Tests of the tokenizer.json BPE model on small vocabularies built here with hand-computed
// encodings: SentencePiece-style character vocabularies (merges by rank, byte_fallback, unk
// fusing, dropped unknowns), continuing_subword_prefix / end_of_word_suffix, ignore_merges, and
// the within-word newline-cut claim.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tokenize/hf_bpe_model.h"

namespace ltl {
namespace {

using Ids = std::vector<uint32_t>;
const char kU[] = "\xE2\x96\x81";  // ▁

// <unk> 0, the 256 byte tokens <0x00>..<0xFF> 1..256, then ▁ 257, a 258, b 259, ▁a 260, ab 261,
// ▁ab 262, é 263, \n 264; merges (▁,a) rank 0, (a,b) 1, (▁a,b) 2.
nlohmann::json CharModel(bool byte_fallback, bool fuse_unk, bool with_unk = true) {
  nlohmann::json vocab = {{"<unk>", 0}};
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    vocab[name] = 1 + b;
  }
  const std::string u = kU;
  vocab[u] = 257;
  vocab["a"] = 258;
  vocab["b"] = 259;
  vocab[u + "a"] = 260;
  vocab["ab"] = 261;
  vocab[u + "ab"] = 262;
  vocab["\xC3\xA9"] = 263;
  vocab["\n"] = 264;
  return {{"type", "BPE"},
          {"unk_token", with_unk ? nlohmann::json("<unk>") : nlohmann::json(nullptr)},
          {"fuse_unk", fuse_unk},
          {"byte_fallback", byte_fallback},
          {"vocab", vocab},
          {"merges", {u + " a", "a b", u + "a b"}}};
}

Ids Encode(const HfBpeModel& m, std::string_view word) {
  Ids ids;
  m.EncodeWord(word, &ids);
  return ids;
}

TEST(HfBpeModel, CharacterVocabularyMergesByRank) {
  auto m = HfBpeModel::FromJson(CharModel(true, true), false);
  ASSERT_TRUE(m.ok()) << m.status().message();
  const std::string u = kU;
  // ▁ a b: (▁,a) rank 0 first, then (▁a,b) rank 2.
  EXPECT_EQ(Encode(*m, u + "ab"), (Ids{262}));
  // a b ▁ a: (▁,a) rank 0 on the right first, then (a,b) rank 1 on the left: ab, ▁a.
  EXPECT_EQ(Encode(*m, "ab" + u + "a"), (Ids{261, 260}));
  EXPECT_EQ(Encode(*m, "ba"), (Ids{259, 258}));
  EXPECT_EQ(Encode(*m, "\xC3\xA9"), (Ids{263}));  // é is one character of the vocabulary
}

TEST(HfBpeModel, ByteFallbackForUnknownCharacters) {
  auto m = HfBpeModel::FromJson(CharModel(true, true), false);
  ASSERT_TRUE(m.ok());
  // € = E2 82 AC is not in the vocabulary: its three byte tokens.
  EXPECT_EQ(Encode(*m,
                   "a\xE2\x82\xAC"
                   "b"),
            (Ids{258, 1 + 0xE2, 1 + 0x82, 1 + 0xAC, 259}));
}

TEST(HfBpeModel, UnknownsFusedOrNotOrDropped) {
  auto fused = HfBpeModel::FromJson(CharModel(false, true), false);
  auto separate = HfBpeModel::FromJson(CharModel(false, false), false);
  auto dropped = HfBpeModel::FromJson(CharModel(false, false, false), false);
  ASSERT_TRUE(fused.ok() && separate.ok() && dropped.ok());
  EXPECT_EQ(Encode(*fused, "x\xE2\x82\xACyb"), (Ids{0, 259}));
  EXPECT_EQ(Encode(*separate, "x\xE2\x82\xACyb"), (Ids{0, 0, 0, 259}));
  EXPECT_EQ(Encode(*dropped, "x\xE2\x82\xACyb"), (Ids{259}));
}

TEST(HfBpeModel, SubwordPrefixAndWordSuffix) {
  // Merged token = left + right without its prefix: (a, ##b) -> ab.
  nlohmann::json prefixed = {{"type", "BPE"},
                             {"continuing_subword_prefix", "##"},
                             {"vocab", {{"a", 0}, {"##b", 1}, {"ab", 2}, {"b", 3}, {"##a", 4}}},
                             {"merges", {"a ##b"}}};
  auto p = HfBpeModel::FromJson(prefixed, false);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(Encode(*p, "ab"), (Ids{2}));
  EXPECT_EQ(Encode(*p, "ba"), (Ids{3, 4}));
  EXPECT_FALSE(p->WordCutIsExact());
  nlohmann::json suffixed = {
      {"type", "BPE"},
      {"end_of_word_suffix", "</w>"},
      {"vocab", {{"a", 0}, {"b</w>", 1}, {"ab</w>", 2}, {"b", 3}}},
      {"merges", nlohmann::json::array({nlohmann::json::array({"a", "b</w>"})})}};
  auto s = HfBpeModel::FromJson(suffixed, false);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(Encode(*s, "ab"), (Ids{2}));
  // "b" is not the last character, so it is looked up without the suffix; "a</w>" is not in the
  // vocabulary and there is no unk_token: dropped, as tokenizers does.
  EXPECT_EQ(Encode(*s, "ba"), (Ids{3}));
}

TEST(HfBpeModel, IgnoreMergesTakesTheWholeWord) {
  nlohmann::json j = {{"type", "BPE"},
                      {"ignore_merges", true},
                      {"vocab", {{"a", 0}, {"b", 1}, {"c", 2}, {"abc", 3}}},
                      {"merges", nlohmann::json::array()}};
  auto m = HfBpeModel::FromJson(j, false);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(Encode(*m, "abc"), (Ids{3}));
  EXPECT_EQ(Encode(*m, "cab"), (Ids{2, 0, 1}));
  EXPECT_FALSE(m->WordCutIsExact());
}

TEST(HfBpeModel, LastListingOfAMergeWins) {
  // (a,b) listed at rank 0 and again at rank 2; (b,c) at rank 1. With the last rank (2) for
  // (a,b), "abc" merges b c first: a, bc.
  nlohmann::json j = {{"type", "BPE"},
                      {"vocab", {{"a", 0}, {"b", 1}, {"c", 2}, {"ab", 3}, {"bc", 4}}},
                      {"merges", {"a b", "b c", "a b"}}};
  auto m = HfBpeModel::FromJson(j, false);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(Encode(*m, "abc"), (Ids{0, 4}));
}

TEST(HfBpeModel, WordCutClaim) {
  auto m = HfBpeModel::FromJson(CharModel(true, true), false);
  EXPECT_TRUE(m->WordCutIsExact());
  nlohmann::json spanning = CharModel(true, true);
  spanning["vocab"]["\na"] = 300;  // a token across '\n' and the next byte
  EXPECT_FALSE(HfBpeModel::FromJson(spanning, false)->WordCutIsExact());
}

TEST(HfBpeModel, Errors) {
  nlohmann::json dropout = CharModel(true, true);
  dropout["dropout"] = 0.1;
  auto d = HfBpeModel::FromJson(dropout, false);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("dropout"), std::string::npos);
  nlohmann::json bad_merge = CharModel(true, true);
  bad_merge["merges"].push_back("a zz");
  EXPECT_FALSE(HfBpeModel::FromJson(bad_merge, false).ok());
  nlohmann::json wordpiece = {{"type", "WordPiece"}};
  EXPECT_FALSE(HfBpeModel::FromJson(wordpiece, false).ok());
}

}  // namespace
}  // namespace ltl
