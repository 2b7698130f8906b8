// Tests of added-token matching against Hugging Face's AddedVocabulary rules, hand-checked:
// leftmost-longest, single_word with Unicode word characters, lstrip/rstrip with Unicode
// whitespace, an lstrip stopping at the previous token, and the newline-cut claim.
#include <gtest/gtest.h>

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
