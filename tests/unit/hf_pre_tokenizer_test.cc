// Tests of the tokenizer.json pre-tokenizers on hand-checked cases: the five split behaviours on
// Hugging Face's own documented example, invert, Digits, Punctuation, Metaspace's prepend schemes
// and split, ByteLevel's prefix space, and the newline-cut analysis.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tokenize/hf_pre_tokenizer.h"
#include "tokenize/tiktoken_tokenizer.h"

namespace ltl {
namespace {

using Pieces = std::vector<std::string>;

Pieces PreTokenize(const nlohmann::json& config, std::string_view text, bool at_origin = true) {
  auto p = HfPreTokenizer::FromJson(config);
  EXPECT_TRUE(p.ok()) << p.status().message();
  if (!p.ok()) return {};
  std::vector<std::string_view> views;
  p->Run(text, at_origin, &views);
  return Pieces(views.begin(), views.end());
}

nlohmann::json SplitLiteral(const char* s, const char* behavior, bool invert = false) {
  return {
      {"type", "Split"}, {"pattern", {{"String", s}}}, {"behavior", behavior}, {"invert", invert}};
}

nlohmann::json SplitRe(const char* s, const char* behavior, bool invert = false) {
  return {
      {"type", "Split"}, {"pattern", {{"Regex", s}}}, {"behavior", behavior}, {"invert", invert}};
}

const char kU[] = "\xE2\x96\x81";      // ▁
std::string M(const std::string& s) {  // spaces written as ▁
  std::string out;
  for (char c : s) out += c == ' ' ? std::string(kU) : std::string(1, c);
  return out;
}

TEST(HfPreTokenizer, SplitBehavioursOnTheDocumentedExample) {
  // tokenizers' doc comment of NormalizedString::split, splitting "the-final--countdown" on '-'
  // (Removed's empty pieces are dropped by the pre-tokenizer).
  const char* t = "the-final--countdown";
  EXPECT_EQ(PreTokenize(SplitLiteral("-", "Removed"), t), (Pieces{"the", "final", "countdown"}));
  EXPECT_EQ(PreTokenize(SplitLiteral("-", "Isolated"), t),
            (Pieces{"the", "-", "final", "-", "-", "countdown"}));
  EXPECT_EQ(PreTokenize(SplitLiteral("-", "MergedWithPrevious"), t),
            (Pieces{"the-", "final-", "-", "countdown"}));
  EXPECT_EQ(PreTokenize(SplitLiteral("-", "MergedWithNext"), t),
            (Pieces{"the", "-final", "-", "-countdown"}));
  EXPECT_EQ(PreTokenize(SplitLiteral("-", "Contiguous"), t),
            (Pieces{"the", "-", "final", "--", "countdown"}));
}

TEST(HfPreTokenizer, InvertedRegexKeepsWhatMatches) {
  // The words are the matches; inverted, the gaps between them are removed.
  EXPECT_EQ(PreTokenize(SplitRe("\\w+", "Removed", true), "How are you?"),
            (Pieces{"How", "are", "you"}));
  EXPECT_EQ(PreTokenize(SplitRe("\\w+", "Isolated"), "How are you?"),
            (Pieces{"How", " ", "are", " ", "you", "?"}));
}

TEST(HfPreTokenizer, DigitsAndPunctuation) {
  EXPECT_EQ(PreTokenize({{"type", "Digits"}, {"individual_digits", true}}, "a123b"),
            (Pieces{"a", "1", "2", "3", "b"}));
  EXPECT_EQ(PreTokenize({{"type", "Digits"}, {"individual_digits", false}}, "a123b4"),
            (Pieces{"a", "123", "b", "4"}));
  EXPECT_EQ(PreTokenize({{"type", "Punctuation"}, {"behavior", "Isolated"}}, "Hi, there!!"),
            (Pieces{"Hi", ",", " there", "!", "!"}));
  EXPECT_EQ(PreTokenize({{"type", "Punctuation"}, {"behavior", "Contiguous"}}, "Hi, there!!"),
            (Pieces{"Hi", ",", " there", "!!"}));
}

TEST(HfPreTokenizer, MetaspacePrependSchemesAndSplit) {
  auto meta = [](const char* scheme, bool split) {
    return nlohmann::json{
        {"type", "Metaspace"}, {"replacement", kU}, {"prepend_scheme", scheme}, {"split", split}};
  };
  EXPECT_EQ(PreTokenize(meta("always", true), "Hey friend"), (Pieces{M(" Hey"), M(" friend")}));
  EXPECT_EQ(PreTokenize(meta("always", false), "Hey friend"), (Pieces{M(" Hey friend")}));
  EXPECT_EQ(PreTokenize(meta("never", true), "Hey friend"), (Pieces{"Hey", M(" friend")}));
  // "first": only the text at the very start of the input gets the prefix.
  EXPECT_EQ(PreTokenize(meta("first", true), "Hey friend", true),
            (Pieces{M(" Hey"), M(" friend")}));
  EXPECT_EQ(PreTokenize(meta("first", true), "Hey friend", false), (Pieces{"Hey", M(" friend")}));
  // Leading spaces: no extra prefix; MergedWithNext joins only the last ▁ of a run to the word.
  EXPECT_EQ(PreTokenize(meta("always", true), "  a"), (Pieces{M(" "), M(" a")}));
  // Older files: add_prefix_space false means "never".
  EXPECT_EQ(
      PreTokenize({{"type", "Metaspace"}, {"replacement", kU}, {"add_prefix_space", false}}, "a b"),
      (Pieces{"a", M(" b")}));
}

TEST(HfPreTokenizer, ByteLevelPrefixSpaceComesBeforeItsSplit) {
  nlohmann::json bl = {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"use_regex", true}};
  EXPECT_EQ(PreTokenize(bl, "hello world"), (Pieces{" hello", " world"}));
  // One space for the whole text, then GPT-2's split: "," and "x" get none of their own.
  EXPECT_EQ(PreTokenize(bl, "hi,x"), (Pieces{" hi", ",", "x"}));
  nlohmann::json seq = {
      {"type", "Sequence"},
      {"pretokenizers",
       {SplitRe("\\p{N}{1,3}", "Isolated"),
        {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}};
  EXPECT_EQ(PreTokenize(seq, "ab12345c"), (Pieces{"ab", "123", "45", "c"}));
}

TEST(HfPreTokenizer, StepsAfterByteLevelAreRefused) {
  nlohmann::json seq = {
      {"type", "Sequence"},
      {"pretokenizers",
       {{{"type", "ByteLevel"}, {"add_prefix_space", false}}, SplitRe("\\p{N}", "Isolated")}}};
  auto p = HfPreTokenizer::FromJson(seq);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("after ByteLevel"), std::string::npos);
}

TEST(HfPreTokenizer, NewlineCutAnalysis) {
  using R = HfPreTokenizer::CutResult;
  auto cut = [](const nlohmann::json& c) { return HfPreTokenizer::FromJson(c)->NewlineCut(); };
  nlohmann::json bl = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}};
  auto seq = [&](std::vector<nlohmann::json> steps) {
    steps.push_back(bl);
    return nlohmann::json{{"type", "Sequence"}, {"pretokenizers", steps}};
  };
  EXPECT_EQ(cut(seq({SplitRe(kCl100kPattern, "Isolated")})), R::kSplits);  // Llama 3
  EXPECT_EQ(cut(seq({SplitRe("\\p{N}{1,3}", "Isolated"), SplitRe(kO200kPattern, "Isolated")})),
            R::kSplits);
  EXPECT_EQ(cut(SplitLiteral(" ", "MergedWithPrevious")), R::kJoins);  // Gemma 3
  EXPECT_EQ(cut(nullptr), R::kJoins);                                  // Llama 2: no pre-tokenizer
  EXPECT_EQ(cut(seq({SplitRe("[^\\n]+\\n?", "Isolated")})), R::kUnsafe);  // unknown pattern
  EXPECT_EQ(cut(SplitLiteral("\n", "Isolated")), R::kUnsafe);
  EXPECT_EQ(cut(SplitRe(kCl100kPattern, "MergedWithNext")), R::kUnsafe);
  EXPECT_EQ(cut({{"type", "Metaspace"}, {"prepend_scheme", "first"}}), R::kUnsafe);
  EXPECT_EQ(cut({{"type", "Metaspace"}, {"prepend_scheme", "always"}}), R::kUnsafe);
  EXPECT_EQ(cut({{"type", "Metaspace"}, {"prepend_scheme", "never"}}), R::kJoins);
  // GPT-2: a prefix space before the split would also go to the second part.
  EXPECT_EQ(cut({{"type", "ByteLevel"}, {"add_prefix_space", true}, {"use_regex", true}}),
            R::kUnsafe);
  EXPECT_EQ(cut({{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}),
            R::kSplits);
}

}  // namespace
}  // namespace ltl
