// Tests of the tokenizer.json byte-level BPE on a small vocabulary built here, with hand-computed
// encodings: merges by rank, the ByteLevel alphabet, added tokens, ignore_merges, Split regexes and
// the NFC normalizer.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"
#include "tokenize/tokenizer.h"

namespace ltl {
namespace {

// GPT-2's bytes_to_unicode, written out here independently of src/tokenize/byte_level.cc.
std::string ByteChar(int b) {
  static const std::vector<int> map = [] {
    std::vector<int> m(256, -1);
    int n = 0;
    for (int x = 0; x < 256; ++x) {
      bool direct = ('!' <= x && x <= '~') || (0xA1 <= x && x <= 0xAC) || (0xAE <= x && x <= 0xFF);
      m[x] = direct ? x : 256 + n++;
    }
    return m;
  }();
  const int cp = map[b];
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

std::string Chars(std::string_view raw) {
  std::string s;
  for (unsigned char c : raw) s += ByteChar(c);
  return s;
}

// Vocabulary: id = byte value for the 256 single bytes; then merged tokens.
nlohmann::json SmallTokenizer(nlohmann::json pre_tokenizer, bool ignore_merges = false,
                              nlohmann::json normalizer = nullptr) {
  nlohmann::json vocab = nlohmann::json::object();
  for (int b = 0; b < 256; ++b) vocab[ByteChar(b)] = b;
  const std::vector<std::pair<std::string, std::string>> merges = {
      {"h", "e"}, {"l", "l"}, {"he", "ll"}, {"hell", "o"}, {" ", "w"}, {"e", "l"}};
  nlohmann::json merge_list = nlohmann::json::array();
  int id = 256;
  for (auto& [a, b] : merges) {
    vocab[Chars(a + b)] = id++;  // he 256, ll 257, hell 258, hello 259, " w" 260, el 261
    merge_list.push_back(Chars(a) + " " + Chars(b));
  }
  vocab[Chars("hlo")] = 262;  // reachable only with ignore_merges
  vocab["<|end|>"] = 300;
  return {{"version", "1.0"},
          {"added_tokens",
           {{{"id", 300},
             {"content", "<|end|>"},
             {"special", true},
             {"lstrip", false},
             {"rstrip", false},
             {"single_word", false},
             {"normalized", false}}}},
          {"normalizer", normalizer},
          {"pre_tokenizer", pre_tokenizer},
          {"model",
           {{"type", "BPE"},
            {"dropout", nullptr},
            {"unk_token", nullptr},
            {"continuing_subword_prefix", nullptr},
            {"end_of_word_suffix", nullptr},
            {"fuse_unk", false},
            {"byte_fallback", false},
            {"ignore_merges", ignore_merges},
            {"vocab", vocab},
            {"merges", merge_list}}}};
}

nlohmann::json ByteLevel(bool use_regex) {
  return {{"type", "ByteLevel"},
          {"add_prefix_space", false},
          {"trim_offsets", true},
          {"use_regex", use_regex}};
}

std::unique_ptr<Tokenizer> Load(const nlohmann::json& j, const std::string& file) {
  auto t = LoadTokenizer(testing::WriteTemp(file, j.dump()), "/unused");
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? std::move(t).value() : nullptr;
}

std::vector<uint32_t> Encode(const Tokenizer& t, std::string_view text) {
  std::vector<uint32_t> ids;
  t.Encode(text, &ids);
  return ids;
}

using Ids = std::vector<uint32_t>;

TEST(HfTokenizer, ByteLevelBpeHandComputed) {
  auto t = Load(SmallTokenizer(ByteLevel(true)), "small.json");
  ASSERT_TRUE(t);
  EXPECT_EQ(Encode(*t, "hello"), (Ids{259}));
  // " world": the GPT-2 split keeps the space with the word; only " w" merges.
  EXPECT_EQ(Encode(*t, "hello world"), (Ids{259, 260, 'o', 'r', 'l', 'd'}));
  // h e l l h e l l o: "h e" (rank 0) both places, "l l", "he ll", then "hell o" on the right.
  EXPECT_EQ(Encode(*t, "hellhello"), (Ids{258, 259}));
  // "hel": "h e" (rank 0) wins over "e l" (rank 5).
  EXPECT_EQ(Encode(*t, "hel"), (Ids{256, 'l'}));
  // "ello": "e l" (rank 5) after "l l" (rank 1) took the l's: e, ll, o.
  EXPECT_EQ(Encode(*t, "ello"), (Ids{'e', 257, 'o'}));
  // Added tokens are recognised in text and never split.
  EXPECT_EQ(Encode(*t, "a<|end|>b"), (Ids{'a', 300, 'b'}));
  // Non-ASCII bytes go through the ByteLevel alphabet: é = C3 A9.
  EXPECT_EQ(Encode(*t, "\xC3\xA9"), (Ids{0xC3, 0xA9}));
  EXPECT_EQ(t->name(), "small.json");
}

TEST(HfTokenizer, IgnoreMergesTakesWholeWordsFromTheVocabulary) {
  auto with = Load(SmallTokenizer(ByteLevel(true), true), "ignore.json");
  auto without = Load(SmallTokenizer(ByteLevel(true), false), "merge.json");
  ASSERT_TRUE(with && without);
  EXPECT_EQ(Encode(*with, "hlo"), (Ids{262}));
  EXPECT_EQ(Encode(*without, "hlo"), (Ids{'h', 'l', 'o'}));
}

TEST(HfTokenizer, SplitRegexThenByteLevel) {
  nlohmann::json pre = {{"type", "Sequence"},
                        {"pretokenizers",
                         {{{"type", "Split"},
                           {"pattern", {{"Regex", "\\p{N}"}}},
                           {"behavior", "Isolated"},
                           {"invert", false}},
                          ByteLevel(false)}}};
  auto t = Load(SmallTokenizer(pre), "split.json");
  ASSERT_TRUE(t);
  // Without the GPT-2 regex " w" and "hello" stay in one piece: " w" merges, then h e l l o.
  EXPECT_EQ(Encode(*t, "a whello1"), (Ids{'a', 260, 259, '1'}));
}

TEST(HfTokenizer, NfcNormalizer) {
  auto t = Load(SmallTokenizer(ByteLevel(true), false, {{"type", "NFC"}}), "nfc.json");
  auto raw = Load(SmallTokenizer(ByteLevel(true)), "raw.json");
  ASSERT_TRUE(t && raw);
  // e + U+0301 composes to é (C3 A9) under NFC; without a normalizer the bytes stay.
  EXPECT_EQ(Encode(*t, "e\xCC\x81"), (Ids{0xC3, 0xA9}));
  EXPECT_EQ(Encode(*raw, "e\xCC\x81"), (Ids{'e', 0xCC, 0x81}));
}

TEST(HfTokenizer, UnsupportedModelsAreClearErrors) {
  auto j = SmallTokenizer(ByteLevel(true));
  j["model"]["type"] = "WordPiece";
  auto t = LoadTokenizer(testing::WriteTemp("wp.json", j.dump()), "/unused");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("WordPiece"), std::string::npos);
  auto k = SmallTokenizer({{"type", "Whitespace"}});
  auto u = LoadTokenizer(testing::WriteTemp("ws.json", k.dump()), "/unused");
  ASSERT_FALSE(u.ok());
  EXPECT_NE(u.status().message().find("Whitespace"), std::string::npos);
}

// The loader reads model.vocab and model.merges with simdjson and falls back to nlohmann for a
// file simdjson refuses (an integer beyond 64 bits); both must build the same tokenizer.
TEST(HfTokenizer, BothJsonReadersAgree) {
  auto j = SmallTokenizer(ByteLevel(true));
  std::string text = j.dump();
  // A key given twice keeps its last value (as nlohmann and serde read objects): the first
  // "hello" entry (id 263) is overridden by the real one (259).
  const std::string dup = "\"vocab\":{\"" + Chars("hello") + "\":263,";
  const size_t at = text.find("\"vocab\":{");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 9, dup);
  std::string huge = text;
  huge.insert(1, "\"truncation\":{\"max_length\":1000000000000000019884624838656},");
  // The ["a", "b"] merge form.
  auto pairs = j;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& m : j["model"]["merges"]) {
    const std::string s = m.get<std::string>();
    list.push_back({s.substr(0, s.find(' ')), s.substr(s.find(' ') + 1)});
  }
  pairs["model"]["merges"] = list;
  for (const std::string& file : {text, huge, pairs.dump()}) {
    auto t = LoadTokenizer(testing::WriteTemp("readers.json", file), "/unused");
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_EQ(Encode(**t, "hello"), (Ids{259}));
    EXPECT_EQ(Encode(**t, "hellhello world"), (Ids{258, 259, 260, 'o', 'r', 'l', 'd'}));
    EXPECT_EQ(Encode(**t, "a<|end|>b"), (Ids{'a', 300, 'b'}));
  }
  // Structure errors name the problem in both readers.
  for (bool big : {false, true}) {
    auto bad = j;
    bad["model"]["vocab"][Chars("h")] = "seven";
    std::string s = bad.dump();
    if (big) s.insert(1, "\"n\":1000000000000000019884624838656,");
    auto t = LoadTokenizer(testing::WriteTemp("bad.json", s), "/unused");
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.status().message().find("vocab"), std::string::npos) << t.status().message();
  }
}

// Issue 35, item 10: a normalizer Sequence nested 50,000 levels deep went to the second JSON
// reader (simdjson refuses more than 1024 levels) and the check after it recursed until the stack
// overflowed. Both readers now answer to one depth rule; within it, deep files still load.
TEST(HfTokenizer, NestingDeeperThanTheLimitIsRefused) {
  auto nested = [](int depth) {
    std::string n;
    for (int i = 0; i < depth; ++i) n += R"({"type": "Sequence", "normalizers": [)";
    n += R"({"type": "NFC"})";
    for (int i = 0; i < depth; ++i) n += "]}";
    return n;
  };
  std::string base = SmallTokenizer(ByteLevel(true)).dump();
  const std::string null_normalizer = "\"normalizer\":null";
  ASSERT_NE(base.find(null_normalizer), std::string::npos);
  for (int depth : {50000, 1100}) {
    std::string doc = base;
    doc.replace(doc.find(null_normalizer), null_normalizer.size(),
                "\"normalizer\":" + nested(depth));
    auto t = LoadTokenizer(testing::WriteTemp("deep.json", doc), "/unused");
    ASSERT_FALSE(t.ok()) << depth;
    EXPECT_NE(t.status().message().find("deep.json: JSON nested deeper than 1024 levels"),
              std::string::npos)
        << t.status().message();
  }
  // 1,000 levels in all (the document's own two included) still load and normalize.
  std::string doc = base;
  doc.replace(doc.find(null_normalizer), null_normalizer.size(), "\"normalizer\":" + nested(499));
  auto t = LoadTokenizer(testing::WriteTemp("deep-ok.json", doc), "/unused");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(Encode(**t, "hello"), (Ids{259}));
}

// Replace steps that multiply the text beyond the stated factor are refused at load.
TEST(HfTokenizer, MultiplyingReplaceNormalizersAreRefused) {
  auto replace = [](const char* kind, const char* pattern, std::string content) {
    return nlohmann::json{
        {"type", "Replace"}, {"pattern", {{kind, pattern}}}, {"content", content}};
  };
  // Each character becomes ten, three times over: x1,000 (before: any memory).
  nlohmann::json times1000 = {
      {"type", "Sequence"},
      {"normalizers",
       {replace("String", "a", std::string(10, 'a')), replace("String", "a", std::string(10, 'a')),
        replace("String", "a", std::string(10, 'a'))}}};
  auto t = LoadTokenizer(
      testing::WriteTemp("grow.json", SmallTokenizer(ByteLevel(true), false, times1000).dump()),
      "/unused");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("can multiply a text's bytes by up to 1000, more than the "
                                      "64 allowed"),
            std::string::npos)
      << t.status().message();
  // A regex may match the empty string between every two bytes: 1 + 100 per step.
  t = LoadTokenizer(
      testing::WriteTemp("grow-re.json", SmallTokenizer(ByteLevel(true), false,
                                                        replace("Regex", "", std::string(100, 'x')))
                                             .dump()),
      "/unused");
  ASSERT_FALSE(t.ok());
  // What real tokenizers do (Llama 2: Prepend "\u2581", Replace " " -> "\u2581", x3) loads.
  nlohmann::json llama2 = {
      {"type", "Sequence"},
      {"normalizers",
       {{{"type", "Prepend"}, {"prepend", "\u2581"}}, replace("String", " ", "\u2581")}}};
  t = LoadTokenizer(
      testing::WriteTemp("llama2.json", SmallTokenizer(ByteLevel(true), false, llama2).dump()),
      "/unused");
  EXPECT_TRUE(t.ok()) << t.status().message();
}

// Issue 35, item 12: added-token ids outside 32 bits were read through get<uint32_t>: 2^40
// became 0 and -1 became 4294967295, silently unmatched. They are errors naming the id.
TEST(HfTokenizer, AddedTokenIdsOutOfRangeAreRefused) {
  for (const char* id : {"1099511627776", "-1", "4294967295"}) {
    nlohmann::json j = SmallTokenizer(ByteLevel(true));
    j["added_tokens"][0]["id"] = nlohmann::json::parse(id);
    auto t = LoadTokenizer(testing::WriteTemp("ids.json", j.dump()), "/unused");
    ASSERT_FALSE(t.ok()) << id;
    EXPECT_NE(t.status().message().find(std::string("added_tokens: id ") + id +
                                        " is out of range [0, 4294967294]"),
              std::string::npos)
        << t.status().message();
  }
}

}  // namespace
}  // namespace ltl
