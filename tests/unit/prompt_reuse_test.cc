// BlockCutter::CutReusing against Cut on a fresh cutter (whole-text encoding, every block hashed):
// conversations growing turn by turn, a turn re-rendered differently in the middle of the history
// (what Qwen3 does with reasoning at the next user message), a shorter continuation, keys that name
// an unrelated text, a tokenizer without the newline-cut guarantee; with a byte tokenizer (always)
// and cl100k_base (when installed). Also that reuse happens: the tokenizer sees about the new text
// only. And that the cutter says which remembered text it compared with and how many leading bytes
// were equal (TextReuse, which the prompt facts reuse digests by), against the test's own copies.
// And that siblings (one per worker thread, BlockCutter::Sibling) continue each other's
// conversations, on two threads, with Cut's ids.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <thread>

#include "hash/block_chain.h"
#include "hash/block_cutter.h"
#include "tokenize/tokenizer.h"

namespace ltl {
namespace {

const SipKey kKey{0x1111222233334444ull, 0x5555666677778888ull};

// Wraps a tokenizer and counts the bytes it is asked to encode.
class CountingTokenizer final : public Tokenizer {
 public:
  CountingTokenizer(const Tokenizer* t, bool exact) : t_(t), exact_(exact) {}
  const std::string& name() const override { return t_->name(); }
  void Encode(std::string_view text, std::vector<uint32_t>* out) const override {
    bytes += text.size();
    t_->Encode(text, out);
  }
  bool NewlineCutIsExact() const override { return exact_ && t_->NewlineCutIsExact(); }
  mutable size_t bytes = 0;

 private:
  const Tokenizer* t_;
  bool exact_;
};

// One id per byte: every cut is exact.
class ByteTokenizer final : public Tokenizer {
 public:
  const std::string& name() const override { return name_; }
  void Encode(std::string_view text, std::vector<uint32_t>* out) const override {
    for (unsigned char c : text) out->push_back(c);
  }
  bool NewlineCutIsExact() const override { return true; }

 private:
  std::string name_ = "bytes";
};

std::string Words(std::mt19937& rng, int n) {
  static const char* kWords[] = {"read",   "file",      "the",        "cache",
                                 "block",  "/src/a.cc", "{\"a\": 1}", "\xE4\xB8\xAD\xE6\x96\x87",
                                 "error:", "42",        "  indented", "x"};
  std::string s;
  for (int i = 0; i < n; ++i) {
    s += kWords[rng() % (sizeof kWords / sizeof *kWords)];
    s += (rng() % 7 == 0) ? "\n" : " ";
  }
  return s;
}

struct Result {
  int64_t tokens;
  std::vector<uint64_t> ids;
};

Result Plain(const Tokenizer* t, std::string_view text, uint32_t block_size) {
  auto cutter = MakeTokenCutter(t, block_size);
  BlockChain chain(kKey);
  Result r;
  r.tokens = cutter->Cut(text, &chain, &r.ids);
  return r;
}

Result Reusing(BlockCutter* cutter, std::string_view text, uint64_t key,
               std::vector<uint64_t> earlier) {
  BlockChain chain(kKey);
  Result r;
  r.ids.push_back(7);  // ids are appended after what the vector holds
  r.tokens = cutter->CutReusing(text, key, earlier, &chain, &r.ids);
  r.ids.erase(r.ids.begin());
  return r;
}

Result PlainApprox(std::string_view text, uint32_t block_size) {
  auto cutter = MakeApproxCutter(block_size);
  BlockChain chain(kKey);
  Result r;
  r.tokens = cutter->Cut(text, &chain, &r.ids);
  return r;
}

// With `base`, the token cutter over it (and the tokenizer must see fewer bytes than a plain cut);
// without, the approximate cutter.
void ExpectReuseExact(const Tokenizer* base) {
  for (uint32_t block_size : {1u, 16u, 7u}) {
    CountingTokenizer counting(base, true);
    auto cutter = base ? MakeTokenCutter(&counting, block_size) : MakeApproxCutter(block_size);
    std::mt19937 rng(11 + block_size);
    // Three conversations interleaved; key = turn number within conversation c.
    std::vector<std::string> turns[3];
    size_t fed = 0, sum = 0;
    // What the cutter remembers, as the test sees it: key -> (stamp, text).
    std::map<uint64_t, std::pair<uint64_t, std::string>> kept;
    std::set<uint64_t> stamps;
    for (int step = 0; step < 60; ++step) {
      const int c = static_cast<int>(rng() % 3);
      std::string turn = "<|im_start|>user\n" + Words(rng, 5 + rng() % 80) + "<|im_end|>\n" +
                         "<|im_start|>assistant\n<think>\n" + Words(rng, 20) + "\n</think>\n\n" +
                         Words(rng, 10) + "<|im_end|>\n";
      turns[c].push_back(turn);
      std::string text = "<|im_start|>system\n" + std::string(300, 's') + "\n";
      for (size_t k = 0; k < turns[c].size(); ++k) {
        std::string t = turns[c][k];
        // Reasoning of earlier turns dropped once a new turn starts (a middle re-render).
        if (k + 1 < turns[c].size() && step % 3 == 0) t = t.substr(0, t.find("<think>"));
        text += t;
      }
      if (step % 11 == 10) text = text.substr(0, text.size() / 2);  // shorter than before
      const uint64_t key = (static_cast<uint64_t>(c) << 32) | turns[c].size();
      std::vector<uint64_t> earlier;
      if (turns[c].size() > 1) earlier.push_back(key - 1);
      if (step % 7 == 0) earlier.insert(earlier.begin(), ((c + 1) % 3ull) << 32 | 1);  // unrelated
      const size_t before = counting.bytes;
      Result got = Reusing(cutter.get(), text, key, earlier);
      fed += counting.bytes - before;
      Result want = base ? Plain(base, text, block_size) : PlainApprox(text, block_size);
      ASSERT_EQ(got.tokens, want.tokens) << "step " << step << " block " << block_size;
      ASSERT_EQ(got.ids, want.ids) << "step " << step << " block " << block_size;
      sum += text.size();
      TextReuse want_reuse;
      for (uint64_t k : earlier) {
        auto it = kept.find(k);
        if (it == kept.end()) continue;
        want_reuse.earlier = it->second.first;
        const std::string& old = it->second.second;
        while (want_reuse.common_bytes < std::min(old.size(), text.size()) &&
               old[want_reuse.common_bytes] == text[want_reuse.common_bytes])
          ++want_reuse.common_bytes;
        kept.erase(it);
        break;
      }
      const TextReuse r = cutter->last_reuse();
      EXPECT_EQ(r.earlier, want_reuse.earlier) << "step " << step;
      EXPECT_EQ(r.common_bytes, want_reuse.common_bytes) << "step " << step;
      EXPECT_NE(r.stamp, 0u);
      EXPECT_TRUE(stamps.insert(r.stamp).second) << "stamps are unique";
      kept[key] = {r.stamp, text};
    }
    if (base) {
      EXPECT_LT(fed, sum * 3 / 4);  // reuse happened (a third of the steps re-render)
    }
  }
}

TEST(PromptReuse, EqualsCutWithAByteTokenizer) {
  ByteTokenizer bytes;
  ExpectReuseExact(&bytes);
}

TEST(PromptReuse, ApproximateCutterEqualsCut) {
  ExpectReuseExact(nullptr);
}

// The workers of a run share the approximate cutter's memo budget (GatewayRowProcessor divides
// kApproxMemoBudgetBytes): a budget too small for the conversations in play forgets memos, which
// changes what is reused but never the ids (issue 30).
TEST(PromptReuse, ApproximateCutterWithASmallBudgetEqualsCut) {
  for (size_t budget : {size_t{0}, size_t{3000}, size_t{20000}, kApproxMemoBudgetBytes}) {
    auto cutter = MakeApproxCutter(16, budget);
    std::mt19937 rng(5);
    std::vector<std::string> text(6, std::string(200, 's'));
    for (int step = 0; step < 80; ++step) {
      const int c = static_cast<int>(rng() % 6);
      const uint64_t before = (static_cast<uint64_t>(c) << 32) | text[c].size();
      text[c] += Words(rng, 5 + rng() % 60);
      const uint64_t key = (static_cast<uint64_t>(c) << 32) | text[c].size();
      Result got = Reusing(cutter.get(), text[c], key, {before});
      Result want = PlainApprox(text[c], 16);
      ASSERT_EQ(got.tokens, want.tokens) << "budget " << budget << " step " << step;
      ASSERT_EQ(got.ids, want.ids) << "budget " << budget << " step " << step;
    }
  }
}

TEST(PromptReuse, EqualsCutWithCl100k) {
  auto t = LoadTokenizer("cl100k_base", LTL_DEFAULT_DATA_DIR);
  if (!t.ok()) GTEST_SKIP() << "cl100k_base not installed: run scripts/fetch-vocab.sh build/data";
  ExpectReuseExact(t->get());
}

TEST(PromptReuse, OnlyTheNewTextIsTokenizedAndWithoutTheGuaranteeEverything) {
  ByteTokenizer bytes;
  CountingTokenizer exact(&bytes, true), inexact(&bytes, false);
  auto a = MakeTokenCutter(&exact, 16), b = MakeTokenCutter(&inexact, 16);
  std::string text;
  std::mt19937 rng(3);
  size_t sum = 0;
  for (int turn = 0; turn < 20; ++turn) {
    text += "<|im_start|>user\n" + Words(rng, 200) + "\nok<|im_end|>\n";
    sum += text.size();
    std::vector<uint64_t> earlier;
    if (turn > 0) earlier.push_back(static_cast<uint64_t>(turn - 1));
    Result x = Reusing(a.get(), text, static_cast<uint64_t>(turn), earlier);
    Result y = Reusing(b.get(), text, static_cast<uint64_t>(turn), earlier);
    Result want = Plain(&bytes, text, 16);
    ASSERT_EQ(x.ids, want.ids);
    ASSERT_EQ(y.ids, want.ids);
  }
  EXPECT_EQ(inexact.bytes, sum);  // no guarantee: every text encoded whole
  EXPECT_EQ(b->last_reuse().stamp, 0u);
  EXPECT_EQ(b->last_reuse().earlier, 0u);
  // With it, each turn re-encodes at most its new text plus the segment it cut into.
  EXPECT_LT(exact.bytes, text.size() + 20 * 2048);
}

// Conversation c's turn k goes to sibling (c + k) % 2: every turn continues a text the other
// sibling cut. Returns each turn's ids, in (conversation, turn) order, and the reused-turn count.
std::vector<std::vector<uint64_t>> CutBySiblings(BlockCutter* first, const std::string* texts,
                                                 int conversations, int turns, int* continued) {
  std::unique_ptr<BlockCutter> second = first->Sibling();
  EXPECT_TRUE(second);
  BlockCutter* cutters[2] = {first, second.get()};
  std::vector<std::vector<uint64_t>> ids(static_cast<size_t>(conversations * turns));
  int reused[2] = {0, 0};
  auto run = [&](int w) {
    for (int k = 0; k < turns; ++k)
      for (int c = 0; c < conversations; ++c) {
        if ((c + k) % 2 != w) continue;
        std::vector<uint64_t> earlier;
        if (k > 0) earlier.push_back(static_cast<uint64_t>(c * 1000 + k - 1));
        const std::string& text = texts[c * turns + k];
        // Wait for the other sibling's previous turn of this conversation (a memo it holds).
        Result r;
        for (;;) {
          r = Reusing(cutters[w], text, static_cast<uint64_t>(c) * 1000 + static_cast<uint64_t>(k),
                      earlier);
          if (k == 0 || cutters[w]->last_reuse().earlier != 0) break;
          std::this_thread::yield();  // the previous turn is still being cut: cut it again
        }
        reused[w] += k > 0;
        ids[static_cast<size_t>(c) * static_cast<size_t>(turns) + static_cast<size_t>(k)] =
            std::move(r.ids);
      }
  };
  std::thread other(run, 1);
  run(0);
  other.join();
  *continued = reused[0] + reused[1];
  return ids;
}

void ExpectSiblingsEqualCut(BlockCutter* first, const Tokenizer* t) {
  constexpr int kConversations = 6, kTurns = 8;
  std::mt19937 rng(5);
  std::vector<std::string> texts;
  for (int c = 0; c < kConversations; ++c) {
    std::string text = "<|im_start|>system\n" + std::string(200, 's') + "\n";
    for (int k = 0; k < kTurns; ++k) {
      text += "<|im_start|>user\n" + Words(rng, 30) + "<|im_end|>\n";
      texts.push_back(text);
    }
  }
  int continued = 0;
  auto ids = CutBySiblings(first, texts.data(), kConversations, kTurns, &continued);
  EXPECT_EQ(continued, kConversations * (kTurns - 1));
  for (size_t i = 0; i < texts.size(); ++i) {
    Result want = t ? Plain(t, texts[i], 16) : PlainApprox(texts[i], 16);
    EXPECT_EQ(ids[i], want.ids) << i;
  }
}

TEST(PromptReuse, SiblingsOnTwoThreadsContinueEachOthersConversationsWithCutsIds) {
  auto approx = MakeApproxCutter(16);
  ExpectSiblingsEqualCut(approx.get(), nullptr);
  ByteTokenizer bytes;
  auto token = MakeTokenCutter(&bytes, 16);
  ExpectSiblingsEqualCut(token.get(), &bytes);
}

}  // namespace
}  // namespace ltl
