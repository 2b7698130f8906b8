// Tests of CachingTokenizer: cut positions, and equality with whole-text encoding on generated
// chat-like texts (every cut class: newline before letters, digits, punctuation, '/', spaces,
// CRLF, CJK) for cl100k_base and o200k_base when installed, and for a tokenizer.json whose pattern
// is unknown (the wrapper must pass through).
#include <gtest/gtest.h>

#include <random>

#include "tokenize/caching_tokenizer.h"
#include "tokenize/tokenizer.h"

namespace ltl {
namespace {

TEST(NewlineCuts, OnlyBeforeAsciiNonSpaceOtherThanSlash) {
  EXPECT_EQ(NewlineCuts("a\nb\n c\n/d\n\ne\n", 1), (std::vector<size_t>{2, 11}));
  EXPECT_EQ(NewlineCuts("a\nb\nc\nd", 3), (std::vector<size_t>{4}));
  EXPECT_EQ(NewlineCuts("", 1), std::vector<size_t>{});
  EXPECT_EQ(NewlineCuts("x\n\xE4\xB8\xAD", 1), std::vector<size_t>{});
}

std::string RandomChat(std::mt19937& rng) {
  static const char* kParts[] = {"<|im_start|>user\n",
                                 "<|im_end|>\n",
                                 "Hello world",
                                 "\n",
                                 "\n\n",
                                 "\r\n",
                                 " ",
                                 "   ",
                                 "/path/to",
                                 "'s",
                                 "DON'T",
                                 "1234567",
                                 "\xE4\xB8\xAD\xE6\x96\x87",
                                 "{\"a\": [1, 2]}",
                                 "\t",
                                 "!!",
                                 "x",
                                 "\xF0\x9F\x98\x80",
                                 "\xC2\xA0",
                                 "\xE3\x80\x80",
                                 "\xE2\x80\xA8",
                                 "def f():\n  return 1",
                                 "\xE1\xA0\x8E",
                                 "/",
                                 "\n/",
                                 "\xCC\x81",
                                 "\x80"};
  std::string s;
  const int n = 5 + static_cast<int>(rng() % 200);
  for (int i = 0; i < n; ++i) s += kParts[rng() % (sizeof kParts / sizeof *kParts)];
  return s;
}

// Borrows a tokenizer owned elsewhere.
class ForwardingTokenizer final : public Tokenizer {
 public:
  explicit ForwardingTokenizer(const Tokenizer* t) : t_(t) {}
  const std::string& name() const override { return t_->name(); }
  void Encode(std::string_view text, std::vector<uint32_t>* out) const override {
    t_->Encode(text, out);
  }
  bool NewlineCutIsExact() const override { return t_->NewlineCutIsExact(); }

 private:
  const Tokenizer* t_;
};

void ExpectCacheExact(std::unique_ptr<Tokenizer> base) {
  const Tokenizer* raw = base.get();
  ASSERT_TRUE(raw->NewlineCutIsExact());
  std::vector<std::string> texts;
  std::mt19937 rng(7);
  for (int i = 0; i < 400; ++i) texts.push_back(RandomChat(rng));
  // Uncached reference ids first.
  std::vector<std::vector<uint32_t>> want;
  for (const auto& t : texts) {
    want.emplace_back();
    raw->Encode(t, &want.back());
  }
  CachingTokenizer cached(std::make_unique<ForwardingTokenizer>(raw), 1 << 20,
                          /*min_segment_bytes=*/1);
  for (int pass = 0; pass < 2; ++pass) {  // second pass is served from the cache
    for (size_t i = 0; i < texts.size(); ++i) {
      std::vector<uint32_t> got;
      cached.Encode(texts[i], &got);
      ASSERT_EQ(got, want[i]) << "text " << i << " pass " << pass;
    }
  }
  // A conversation growing turn by turn re-encodes its history: served mostly from the cache,
  // still equal to whole-text encoding.
  CachingTokenizer chat(std::make_unique<ForwardingTokenizer>(raw), 1 << 20, 64);
  std::string conversation;
  for (int turn = 0; turn < 30; ++turn) {
    conversation += "<|im_start|>user\n" + texts[turn] + "<|im_end|>\n";
    std::vector<uint32_t> got, whole;
    chat.Encode(conversation, &got);
    raw->Encode(conversation, &whole);
    ASSERT_EQ(got, whole) << "turn " << turn;
  }
  EXPECT_GT(chat.stats().hit_bytes, chat.stats().miss_bytes);
}

TEST(CachingTokenizer, EqualsWholeTextEncodingCl100k) {
  auto t = LoadTokenizer("cl100k_base", LTL_DEFAULT_DATA_DIR);
  if (!t.ok()) GTEST_SKIP() << "cl100k_base not installed: run scripts/fetch-vocab.sh build/data";
  ExpectCacheExact(std::move(t).value());
}

TEST(CachingTokenizer, EqualsWholeTextEncodingO200k) {
  auto t = LoadTokenizer("o200k_base", LTL_DEFAULT_DATA_DIR);
  if (!t.ok()) GTEST_SKIP() << "o200k_base not installed: run scripts/fetch-vocab.sh build/data";
  ExpectCacheExact(std::move(t).value());
}

// Counts calls to show which texts reach the wrapped tokenizer.
class CountingTokenizer final : public Tokenizer {
 public:
  explicit CountingTokenizer(bool exact) : exact_(exact) {}
  const std::string& name() const override { return name_; }
  void Encode(std::string_view text, std::vector<uint32_t>* out) const override {
    ++calls;
    out->push_back(static_cast<uint32_t>(text.size()));
  }
  bool NewlineCutIsExact() const override { return exact_; }
  mutable int calls = 0;

 private:
  bool exact_;
  std::string name_ = "counting";
};

TEST(CachingTokenizer, PassesThroughWithoutTheGuaranteeAndReusesSegmentsWithIt) {
  auto inexact = std::make_unique<CountingTokenizer>(false);
  CountingTokenizer* in = inexact.get();
  CachingTokenizer pass(std::move(inexact), 1000, 1);
  std::vector<uint32_t> ids;
  pass.Encode("a\nb\nc", &ids);
  EXPECT_EQ(ids, (std::vector<uint32_t>{5}));
  EXPECT_EQ(in->calls, 1);

  auto exact = std::make_unique<CountingTokenizer>(true);
  CountingTokenizer* ex = exact.get();
  CachingTokenizer cache(std::move(exact), 1000, 1);
  ids.clear();
  cache.Encode("ab\ncd\nef", &ids);  // segments "ab\n", "cd\n", "ef"
  EXPECT_EQ(ids, (std::vector<uint32_t>{3, 3, 2}));
  EXPECT_EQ(ex->calls, 3);
  ids.clear();
  cache.Encode("ab\ncd\nxyz", &ids);  // two hits, one miss
  EXPECT_EQ(ids, (std::vector<uint32_t>{3, 3, 3}));
  EXPECT_EQ(ex->calls, 4);
  EXPECT_EQ(cache.stats().hits, 2u);
}

}  // namespace
}  // namespace ltl
