// Tests of added-token matching against Hugging Face's AddedVocabulary rules, hand-checked:
// leftmost-longest, single_word with Unicode word characters, lstrip/rstrip with Unicode
// whitespace, an lstrip stopping at the previous token, and the newline-cut claim; the linear
// automaton against a naive reference written here (issue 35, item 11).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tokenize/added_tokens.h"

namespace ltl {
namespace {

// "text|text|..." with [id] for tokens, for compact expectations.
std::string Show(const AddedTokenMatcher& m, std::string_view text) {
  std::vector<AddedTokenMatcher::Split> splits;
  m.SplitText(text, &splits);
  std::string out;
  for (const auto& s : splits) {
    if (!out.empty()) out += '|';
    out.append(text.substr(s.begin, s.end - s.begin));
    if (s.id != kNoRank) {
      out += '[';
      out.append(std::to_string(s.id));
      out += ']';
    }
  }
  return out;
}

TEST(AddedTokens, LeftmostLongest) {
  AddedTokenMatcher m;
  m.Add({"<a>", 1});
  m.Add({"<a><b>", 2});
  m.Add({"ab", 3});
  m.Add({"bc", 4});
  EXPECT_EQ(Show(m, "x<a><b>y<a>"), "x|<a><b>[2]|y|<a>[1]");
  EXPECT_EQ(Show(m, "abc"), "ab[3]|c");  // leftmost wins over the later, overlapping "bc"
  EXPECT_EQ(Show(m, "none here"), "none here");
}

TEST(AddedTokens, SingleWord) {
  AddedTokenMatcher m;
  m.Add({"<m>", 7, false, false, true});
  EXPECT_EQ(Show(m, "a<m> b"), "a<m> b");  // a word character before it
  EXPECT_EQ(Show(m, " <m> "), " |<m>[7]| ");
  EXPECT_EQ(Show(m, "<m>,"), "<m>[7]|,");            // punctuation is not a word character
  EXPECT_EQ(Show(m, "\xC3\xA9<m>"), "\xC3\xA9<m>");  // é is
  EXPECT_EQ(Show(m, "<m>_"), "<m>_");                // so is '_'
}

TEST(AddedTokens, StripTakesUnicodeWhitespace) {
  AddedTokenMatcher m;
  m.Add({"<l>", 1, true, false, false});
  m.Add({"<r>", 2, false, true, false});
  EXPECT_EQ(Show(m, "a  <l>b"), "a|  <l>[1]|b");
  EXPECT_EQ(Show(m, "<r>\xE3\x80\x80\tb"), "<r>\xE3\x80\x80\t[2]|b");  // U+3000 is whitespace
  // The lstrip stops where the previous token (with its rstrip) ended.
  EXPECT_EQ(Show(m, "<r>  <l>"), "<r>  [2]|<l>[1]");
}

// The naive reference: at each position the longest token that starts there (every token tried),
// taken leftmost first, the search resuming after it (tokens without flags).
std::vector<AddedTokenMatcher::Split> NaiveSplit(const std::vector<std::string>& tokens,
                                                 std::string_view text) {
  std::vector<AddedTokenMatcher::Split> out;
  size_t last = 0, i = 0;
  while (i < text.size()) {
    size_t best = 0;
    uint32_t id = kNoRank;
    for (size_t k = 0; k < tokens.size(); ++k) {
      const std::string& t = tokens[k];
      if (t.size() > best && text.substr(i, t.size()) == t) {
        best = t.size();
        id = static_cast<uint32_t>(k);
      }
    }
    if (best == 0) {
      ++i;
      continue;
    }
    if (last < i) out.push_back({last, i, kNoRank});
    out.push_back({i, i + best, id});
    i += best;
    last = i;
  }
  if (last < text.size()) out.push_back({last, text.size(), kNoRank});
  return out;
}

bool SameSplits(const std::vector<AddedTokenMatcher::Split>& a,
                const std::vector<AddedTokenMatcher::Split>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].begin != b[i].begin || a[i].end != b[i].end || a[i].id != b[i].id) return false;
  return true;
}

TEST(AddedTokens, RandomCasesEqualTheNaiveReference) {
  std::mt19937 rng(35011);
  auto random_string = [&](size_t n, int letters) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s.push_back(static_cast<char>('a' + rng() % letters));
    return s;
  };
  for (int round = 0; round < 400; ++round) {
    const int letters = 2 + static_cast<int>(rng() % 3);
    std::vector<std::string> tokens;
    AddedTokenMatcher m;
    const size_t count = 1 + rng() % 8;
    for (size_t k = 0; k < count; ++k) {
      std::string t = random_string(1 + rng() % 6, letters);
      if (round % 4 == 0 && k == 0) t = std::string(40 + rng() % 60, 'a') + "b";  // a long one
      bool dup = false;
      for (const std::string& u : tokens) dup = dup || u == t;
      if (dup) continue;  // the matcher keeps the first of equal contents; so does the reference
      m.Add({t, static_cast<uint32_t>(tokens.size())});
      tokens.push_back(t);
    }
    m.Finish();
    std::string text = random_string(rng() % 300, letters);
    if (round % 4 == 0) text.insert(rng() % (text.size() + 1), std::string(rng() % 200, 'a'));
    std::vector<AddedTokenMatcher::Split> got;
    m.SplitText(text, &got);
    ASSERT_TRUE(SameSplits(got, NaiveSplit(tokens, text))) << "round " << round << ": " << text;
  }
}

// The cases (a 32 KB token on 32 KB of text took 12 s; 1 KB on 1 MB too): the results,
// worked out by hand. No timing is asserted; the old walk made this test take tens of seconds.
TEST(AddedTokens, LargeTokenOnLargeText) {
  const std::string big(32768, 'a');
  AddedTokenMatcher m;
  m.Add({big, 7});
  m.Add({"a", 8});
  m.Add({big + "b", 9});
  m.Finish();
  std::vector<AddedTokenMatcher::Split> got;
  // 32,767 'a': no big token fits; every 'a' is the one-byte token.
  m.SplitText(std::string(32767, 'a'), &got);
  ASSERT_EQ(got.size(), 32767u);
  EXPECT_EQ(got.back().begin, 32766u);
  EXPECT_EQ(got.back().id, 8u);
  // Two big tokens, then three 'a', then "b" as text.
  m.SplitText(std::string(2 * 32768 + 3, 'a') + "b", &got);
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(got[0].end, 32768u);
  EXPECT_EQ(got[0].id, 7u);
  EXPECT_EQ(got[1].end, 65536u);
  EXPECT_EQ(got[1].id, 7u);
  EXPECT_EQ(got[4].id, 8u);
  EXPECT_EQ(got[5].id, kNoRank);
  // 65,535 'a' and "b": the big token at 0 (the one ending in "b" would need it at 32,768), then
  // 32,767 single 'a' and the "b" as text.
  m.SplitText(std::string(32767 + 32768, 'a') + "b", &got);
  ASSERT_EQ(got.size(), 1u + 32767u + 1u);
  EXPECT_EQ(got[0].id, 7u);
  EXPECT_EQ(got.back().id, kNoRank);
  // A 1 KB token on 1 MB of text that repeats its prefix and never completes it.
  AddedTokenMatcher k;
  k.Add({std::string(1024, 'x') + "y", 1});
  k.Finish();
  k.SplitText(std::string(1 << 20, 'x'), &got);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].id, kNoRank);
  std::string text(1 << 20, 'x');
  text += 'y';
  k.SplitText(text, &got);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].begin, (1u << 20) - 1024u);
  EXPECT_EQ(got[1].id, 1u);
}

TEST(AddedTokens, NewlineCutClaim) {
  auto claim = [](AddedToken t) {
    AddedTokenMatcher m;
    m.Add(std::move(t));
    return m.NewlineCutIsExact();
  };
  EXPECT_TRUE(claim({"<|im_start|>", 1}));
  EXPECT_TRUE(claim({"\n\n", 1}));  // Gemma's newline runs end at the cut
  EXPECT_TRUE(claim({"a\n", 1}));
  EXPECT_FALSE(claim({"\nuser", 1}));                   // would match across the cut
  EXPECT_FALSE(claim({"<x>", 1, true}));                // lstrip would take the '\n'
  EXPECT_TRUE(claim({" x", 1, true}));                  // ...but never starts right after a cut
  EXPECT_FALSE(claim({"x\n", 1, false, false, true}));  // single_word sees the next byte
}

}  // namespace
}  // namespace ltl
