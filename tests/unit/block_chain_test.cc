// Chained block ids: an independent recomputation of the documented PRF input layout, the top bit,
// partial tails, code-point chunking (multi-byte characters), the token-id cutter with a stand-in
// tokenizer, and the prefix property: changing one character of message k changes the ids from
// that character's block on and no earlier one.
#include "hash/block_chain.h"

#include <gtest/gtest.h>

#include "hash/block_cutter.h"
#include "render/render_prompt.h"

namespace ltl {
namespace {

const SipKey kKey{0x0123456789abcdefull, 0xfedcba9876543210ull};

// The PRF input written out independently: prev (LE 8 bytes) | tag | [units LE 4 bytes] | chunk.
uint64_t Expected(uint64_t prev, const std::string& chunk, bool partial, uint32_t units) {
  std::string m;
  for (int i = 0; i < 8; ++i) m.push_back(static_cast<char>(prev >> (8 * i)));
  m.push_back(partial ? 1 : 0);
  if (partial)
    for (int i = 0; i < 4; ++i) m.push_back(static_cast<char>(units >> (8 * i)));
  m += chunk;
  return SipHash24(kKey, m) & 0x7fffffffffffffffull;
}

TEST(BlockChain, ApproxCutterMatchesAnIndependentComputation) {
  std::string text;
  for (int i = 0; i < 150; ++i) text.push_back(static_cast<char>('a' + i % 26));
  BlockChain chain(kKey);
  std::vector<uint64_t> ids;
  auto cutter = MakeApproxCutter(16);
  EXPECT_EQ(cutter->Cut(text, &chain, &ids), 38);  // ceil(150 / 4)
  ASSERT_EQ(ids.size(), 3u);                       // 64 + 64 + 22 code points
  uint64_t a = Expected(0, text.substr(0, 64), false, 0);
  uint64_t b = Expected(a, text.substr(64, 64), false, 0);
  uint64_t c = Expected(b, text.substr(128), true, 22);
  EXPECT_EQ(ids, (std::vector<uint64_t>{a, b, c}));
  for (uint64_t id : ids) EXPECT_EQ(id >> 63, 0u);
}

TEST(BlockChain, CountsCodePointsNotBytes) {
  std::string text;
  for (int i = 0; i < 64; ++i) text += "\xC3\xA9";  // é: 64 code points, 128 bytes
  text += "\xE4\xB8\xAD";                           // one more (3 bytes)
  BlockChain chain(kKey);
  std::vector<uint64_t> ids;
  auto cutter = MakeApproxCutter(16);
  EXPECT_EQ(cutter->Cut(text, &chain, &ids), 17);  // ceil(65 / 4)
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids[0], Expected(0, text.substr(0, 128), false, 0));
  EXPECT_EQ(ids[1], Expected(ids[0], text.substr(128), true, 1));
  EXPECT_EQ(CountCodePoints(text), 65u);
}

TEST(BlockChain, PartialTailNeverEqualsAFullBlock) {
  BlockChain chain(kKey);
  uint64_t full = chain.Full("abcd");
  chain.Reset();
  uint64_t partial = chain.Partial("abcd", 4);
  EXPECT_NE(full, partial);
  chain.Reset();
  EXPECT_EQ(chain.Full("abcd"), full);  // deterministic after Reset
}

class ByteTokenizer : public Tokenizer {
 public:
  const std::string& name() const override { return name_; }
  void Encode(std::string_view text, std::vector<uint32_t>* out) const override {
    for (unsigned char c : text) out->push_back(c + 1000);
  }

 private:
  std::string name_ = "bytes";
};

TEST(BlockChain, TokenCutterHashesTokenIds) {
  ByteTokenizer tok;
  auto cutter = MakeTokenCutter(&tok, 4);
  BlockChain chain(kKey);
  std::vector<uint64_t> ids;
  EXPECT_EQ(cutter->Cut("abcdef", &chain, &ids), 6);
  ASSERT_EQ(ids.size(), 2u);
  auto le = [](std::string_view s) {
    std::string b;
    for (unsigned char c : s)
      for (int i = 0; i < 4; ++i) b.push_back(static_cast<char>((c + 1000u) >> (8 * i)));
    return b;
  };
  EXPECT_EQ(ids[0], Expected(0, le("abcd"), false, 0));
  EXPECT_EQ(ids[1], Expected(ids[0], le("ef"), true, 2));
}

std::vector<uint64_t> IdsOf(const std::string& body_json, std::string* text) {
  simdjson::dom::parser parser;
  simdjson::dom::element body;
  EXPECT_EQ(parser.parse(body_json).get(body), simdjson::SUCCESS);
  RenderedPrompt p;
  EXPECT_EQ(RenderPrompt(body, Layout::kAuto, "", &p), nullptr);
  *text = p.text;
  BlockChain chain(kKey);
  std::vector<uint64_t> ids;
  MakeApproxCutter(16)->Cut(p.text, &chain, &ids);
  return ids;
}

TEST(BlockChain, OneCharacterChangeMovesIdsFromItsBlockOn) {
  auto body = [](int k, char c) {
    std::string json = R"({"messages": [)";
    for (int m = 0; m < 6; ++m) {
      std::string content(90 + 13 * m, static_cast<char>('a' + m));
      if (m == k) content[40] = c;
      json += std::string(m ? ", " : "") + R"({"role": ")" + (m % 2 ? "assistant" : "user") +
              R"(", "content": ")" + content + "\"}";
    }
    return json + "]}";
  };
  std::string base_text;
  auto base = IdsOf(body(-1, 0), &base_text);
  for (int k = 0; k < 6; ++k) {
    std::string text;
    auto changed = IdsOf(body(k, 'Z'), &text);
    ASSERT_EQ(changed.size(), base.size());
    size_t diff = 0;
    while (text[diff] == base_text[diff]) ++diff;  // ASCII: byte offset = code point offset
    size_t block = diff / 64;
    for (size_t j = 0; j < base.size(); ++j) {
      if (j < block)
        EXPECT_EQ(changed[j], base[j]) << "message " << k << " block " << j;
      else
        EXPECT_NE(changed[j], base[j]) << "message " << k << " block " << j;
    }
  }
}

}  // namespace
}  // namespace ltl
