// SafeLabel: hand-written expectations for control characters, terminal escapes, each kind of
// malformed UTF-8 (RFC 3629 table 3-7 boundaries) and truncation at a character boundary.
#include "common/safe_label.h"

#include <gtest/gtest.h>

namespace ltl {
namespace {

TEST(SafeLabel, KeepsPrintableUtf8) {
  EXPECT_EQ(SafeLabel("gpt-4o"), "gpt-4o");
  EXPECT_EQ(SafeLabel("qwen3 \xE9\x80\x9A\xE4\xB9\x89"), "qwen3 \xE9\x80\x9A\xE4\xB9\x89");  // 通义
  EXPECT_EQ(SafeLabel("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");  // U+1F600
}

TEST(SafeLabel, ReplacesControlsAndEscapes) {
  EXPECT_EQ(SafeLabel(std::string("a\0b", 3)), "a?b");
  EXPECT_EQ(SafeLabel("\x1b[2Jx\r\n\x7f"), "?[2Jx???");
  EXPECT_EQ(SafeLabel("\xC2\x9B"
                      "31m"),
            "?31m");                             // C1 CSI
  EXPECT_EQ(SafeLabel("\xC2\xA0"), "\xC2\xA0");  // U+00A0 is printable
}

TEST(SafeLabel, ReplacesMalformedUtf8) {
  EXPECT_EQ(SafeLabel("caf\xE9"), "caf?");           // Latin-1 byte
  EXPECT_EQ(SafeLabel("\xC0\xAF"), "??");            // overlong '/'
  EXPECT_EQ(SafeLabel("\xE0\x80\xAF"), "???");       // overlong 3-byte
  EXPECT_EQ(SafeLabel("\xED\xA0\x80"), "???");       // UTF-16 surrogate D800
  EXPECT_EQ(SafeLabel("\xF4\x90\x80\x80"), "????");  // above U+10FFFF
  EXPECT_EQ(SafeLabel("\xE4\xB9"), "??");            // truncated sequence
  EXPECT_EQ(SafeLabel("\x80x"), "?x");               // lone continuation byte
}

TEST(SafeLabel, TruncatesAtCharacterBoundary) {
  EXPECT_EQ(SafeLabel(std::string(200, 'm')), std::string(128, 'm') + "...");
  // 5 bytes allowed: "ab" + a 3-byte character fits, the next one does not.
  EXPECT_EQ(SafeLabel("ab\xE4\xB9\x89\xE4\xB9\x89", 5), "ab\xE4\xB9\x89...");
  EXPECT_EQ(SafeLabel("ab\xE4\xB9\x89", 4), "ab...");
}

}  // namespace
}  // namespace ltl
