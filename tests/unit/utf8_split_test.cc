// Tests of UTF-8 repair (hand-computed WHATWG replacements) and of the split-pattern adaptation
// that makes PCRE2's \s and letter classes agree with the reference regex engines.
#include <gtest/gtest.h>

#include "tokenize/split_regex.h"
#include "tokenize/utf8.h"

namespace ltl {
namespace {

std::string Repair(std::string_view s) {
  std::string out;
  ReplaceInvalidUtf8(s, &out);
  return out;
}

constexpr char kFffd[] = "\xEF\xBF\xBD";

TEST(Utf8, ReplacesMaximalSubparts) {
  EXPECT_TRUE(IsValidUtf8("h\xC3\xA9llo \xF0\x9F\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("\xC3"));
  EXPECT_EQ(Repair("ok"), "ok");
  EXPECT_EQ(Repair("\xC3"), kFffd);
  // A truncated 3-byte sequence is one replacement, the following ASCII survives.
  EXPECT_EQ(Repair("a\xE2\x82z"), std::string("a") + kFffd + "z");
  // F0 80: 80 cannot follow F0, so two replacements.
  EXPECT_EQ(Repair("\xF0\x80"), std::string(kFffd) + kFffd);
  // An encoded surrogate (ED A0 80) is three replacements.
  EXPECT_EQ(Repair("\xED\xA0\x80"), std::string(kFffd) + kFffd + kFffd);
  // Overlong and out-of-range leads.
  EXPECT_EQ(Repair("\xC0\xAF"), std::string(kFffd) + kFffd);
  EXPECT_EQ(Repair("\xF5\x80"), std::string(kFffd) + kFffd);
  EXPECT_EQ(Repair("\xF4\x90\x80\x80"), std::string(kFffd) + kFffd + kFffd + kFffd);
  EXPECT_EQ(Repair("\xE0\xA0\x80"), "\xE0\xA0\x80");
}

std::vector<std::string> Pieces(const SplitRegex& re, std::string_view text) {
  SplitRegex::Matcher m(re);
  std::vector<std::string> out;
  size_t pos = 0, b, e;
  while (m.Find(text, pos, &b, &e)) {
    out.emplace_back(text.substr(b, e - b));
    pos = e;
  }
  return out;
}

TEST(SplitRegex, WhiteSpaceExcludesMongolianVowelSeparator) {
  auto re = SplitRegex::Compile(R"(\s+|\S+)");
  ASSERT_TRUE(re.ok()) << re.status().message();
  // U+180E is not White_Space (Unicode 6.3+): it belongs to the non-space run.
  EXPECT_EQ(Pieces(**re,
                   "a\xE1\xA0\x8E"
                   "b c"),
            (std::vector<std::string>{"a\xE1\xA0\x8E"
                                      "b",
                                      " ", "c"}));
  // U+3000 and U+0085 are White_Space.
  EXPECT_EQ(Pieces(**re, "x\xE3\x80\x80y"), (std::vector<std::string>{"x", "\xE3\x80\x80", "y"}));
}

TEST(SplitRegex, AdaptationRewritesClassesInsideAndOutsideBrackets) {
  const std::string a = AdaptSplitPattern(R"([^\s\p{N}]+|\s+(?!\S))");
  EXPECT_EQ(a.find("\\s"), std::string::npos) << a;
  EXPECT_EQ(a.find("\\S"), std::string::npos) << a;
  EXPECT_NE(a.find("\\x{3000}"), std::string::npos) << a;
  EXPECT_TRUE(SplitRegex::Compile(R"([^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3})").ok());
  EXPECT_FALSE(SplitRegex::Compile("(unclosed").ok());
}

}  // namespace
}  // namespace ltl
