// Tests of the tiktoken-compatible BPE: published example encodings (cl100k_base, when the set-up
// installed it), the missing-vocabulary message, .tiktoken parsing errors, and the merge loop
// against a naive reimplementation of tiktoken's byte_pair_merge written here.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>

#include "test_util.h"
#include "tokenize/bpe_merge.h"
#include "tokenize/tiktoken_tokenizer.h"
#include "tokenize/tokenizer.h"

namespace ltl {
namespace {

std::vector<uint32_t> Encode(const Tokenizer& t, std::string_view text) {
  std::vector<uint32_t> ids;
  t.Encode(text, &ids);
  return ids;
}

std::unique_ptr<Tokenizer> LoadOrNull(const std::string& name) {
  auto t = LoadTokenizer(name, LTL_DEFAULT_DATA_DIR);
  return t.ok() ? std::move(t).value() : nullptr;
}

TEST(Tiktoken, Cl100kExamples) {
  auto t = LoadOrNull("cl100k_base");
  if (!t) GTEST_SKIP() << "cl100k_base not installed: run scripts/fetch-vocab.sh build/data";
  EXPECT_EQ(t->name(), "cl100k_base");
  EXPECT_EQ(Encode(*t, "hello world"), (std::vector<uint32_t>{15339, 1917}));
  EXPECT_EQ(Encode(*t, "1234567"), (std::vector<uint32_t>{4513, 10961, 22}));
  EXPECT_EQ(Encode(*t, "I'm don't"), (std::vector<uint32_t>{40, 2846, 1541, 956}));
  EXPECT_EQ(Encode(*t, "  \n\n  "), (std::vector<uint32_t>{19124, 256}));
  EXPECT_EQ(Encode(*t, ""), std::vector<uint32_t>{});
  // Special tokens are plain text (encode_ordinary): never the id 100257.
  for (uint32_t id : Encode(*t, "<|endoftext|>")) EXPECT_NE(id, 100257u);
}

TEST(Tiktoken, InvalidUtf8IsReplacedLikeADecoder) {
  auto t = LoadOrNull("cl100k_base");
  if (!t) GTEST_SKIP() << "cl100k_base not installed: run scripts/fetch-vocab.sh build/data";
  // A lone continuation byte encodes as U+FFFD would.
  EXPECT_EQ(Encode(*t, "a\x80z"), Encode(*t, "a\xEF\xBF\xBDz"));
}

TEST(Tiktoken, MissingVocabularyNamesTheSetUpCommand) {
  auto t = LoadTokenizer("o200k_base", "/nonexistent-dir");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("scripts/fetch-vocab.sh /nonexistent-dir"), std::string::npos)
      << t.status().message();
  auto u = LoadTokenizer("no_such_encoding", "/nonexistent-dir");
  ASSERT_FALSE(u.ok());
  EXPECT_NE(u.status().message().find("cl100k_base"), std::string::npos);
}

TEST(Tiktoken, RanksFileErrorsNameTheLine) {
  std::string ranks;
  for (int b = 0; b < 256; ++b) {
    // base64 of one byte: 2 characters + "=="
    static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    ranks += std::string{k[b >> 2], k[(b & 3) << 4], '=', '='} + " " + std::to_string(b) + "\n";
  }
  auto good = ReadTiktokenRanks(testing::WriteTemp("good.tiktoken", ranks));
  ASSERT_TRUE(good.ok()) << good.status().message();
  EXPECT_EQ(good->size(), 256u);
  auto bad = ReadTiktokenRanks(testing::WriteTemp("bad.tiktoken", ranks + "aGk= x\n"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bad.tiktoken:257:"), std::string::npos)
      << bad.status().message();
  auto partial = ReadTiktokenRanks(testing::WriteTemp("partial.tiktoken", "aGk= 0\n"));
  EXPECT_FALSE(partial.ok());
}

// tiktoken's byte_pair_merge as published (O(n^2): repeatedly merge the leftmost lowest-rank pair),
// written independently of MergeByRank.
std::vector<uint32_t> NaiveBpe(const std::string& piece,
                               const std::map<std::string, uint32_t>& ranks) {
  std::vector<std::string> parts;
  for (char c : piece) parts.emplace_back(1, c);
  for (;;) {
    uint32_t best = kNoRank;
    size_t at = 0;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      auto it = ranks.find(parts[i] + parts[i + 1]);
      if (it != ranks.end() && it->second < best) {
        best = it->second;
        at = i;
      }
    }
    if (best == kNoRank) break;
    parts[at] += parts[at + 1];
    parts.erase(parts.begin() + static_cast<long>(at) + 1);
  }
  std::vector<uint32_t> ids;
  for (const auto& p : parts) ids.push_back(ranks.at(p));
  return ids;
}

TEST(MergeByRank, AgreesWithNaiveBytePairMergeOnRandomVocabularies) {
  std::mt19937 rng(12345);
  for (int round = 0; round < 200; ++round) {
    // Alphabet of 3 bytes, ranks for random strings built from existing tokens (as BPE training
    // would), so multi-step merges and equal-rank ties both occur.
    std::map<std::string, uint32_t> ranks{{"a", 0}, {"b", 1}, {"c", 2}};
    std::vector<std::string> tokens{"a", "b", "c"};
    const int extra = 3 + static_cast<int>(rng() % 12);
    for (int k = 0; k < extra; ++k) {
      std::string s = tokens[rng() % tokens.size()] + tokens[rng() % tokens.size()];
      if (ranks.emplace(s, static_cast<uint32_t>(ranks.size())).second) tokens.push_back(s);
    }
    RankTable table;
    for (auto& [s, r] : ranks) table.Insert(s, r);
    std::string piece;
    const int len = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < len; ++i) piece += static_cast<char>('a' + rng() % 3);

    MergeScratch scratch;
    for (uint32_t i = 0; i < piece.size(); ++i) {
      scratch.symbols.push_back({i, i + 1, table.ByteRank(static_cast<uint8_t>(piece[i])),
                                 static_cast<int32_t>(i) - 1,
                                 i + 1 < piece.size() ? static_cast<int32_t>(i + 1) : -1});
    }
    std::vector<uint32_t> got;
    MergeByRank(
        scratch,
        [&](const MergeSymbol& l, const MergeSymbol& r, uint32_t* id) {
          *id = table.Find(std::string_view(piece).substr(l.begin, r.end - l.begin));
          return *id;
        },
        &got);
    ASSERT_EQ(got, NaiveBpe(piece, ranks)) << "piece " << piece;
  }
}

}  // namespace
}  // namespace ltl
