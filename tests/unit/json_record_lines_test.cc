// JsonRecordReader's line numbers against a count made here: a record's line is 1 + the line ends
// (CRLF, lone CR, lone LF) before its first byte, for LF, CRLF and CR-only inputs, blank lines and
// every refill position (the reader counts LF-only stretches with memchr and the rest per byte).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "read/json_records.h"
#include "string_stream.h"

namespace ltl {
namespace {

using testing::StringStream;

uint64_t LineAt(const std::string& text, size_t offset) {
  uint64_t line = 1;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\r') {
      ++line;
      if (i + 1 < offset && text[i + 1] == '\n') ++i;
    } else if (text[i] == '\n') {
      ++line;
    }
  }
  return line;
}

struct Input {
  std::string text;
  std::vector<std::string> records;
  std::vector<uint64_t> lines;
};

// Records separated by the given separators (each before its record).
Input Build(const std::vector<std::string>& separators) {
  Input in;
  for (size_t k = 0; k < separators.size(); ++k) {
    in.text += separators[k];
    const std::string r =
        "{\"k\":" + std::to_string(k) + ",\"pad\":\"" + std::string(k % 5 * 7, 'x') + "\"}";
    in.lines.push_back(LineAt(in.text, in.text.size()));
    in.records.push_back(r);
    in.text += r;
  }
  in.text += "\n";
  return in;
}

void Check(const Input& in, JsonFraming framing) {
  for (size_t step : {1, 2, 3, 7, 13, 64, 1 << 20}) {
    StringStream stream(in.text, step);
    JsonRecordReader reader(&stream, framing, "", 1 << 20, 64);
    std::vector<std::string> got;
    std::vector<uint64_t> lines;
    std::string_view r;
    for (;;) {
      auto o = reader.Next(&r);
      if (o != JsonRecordReader::Outcome::kRecord) {
        EXPECT_EQ(o, JsonRecordReader::Outcome::kEnd);
        break;
      }
      got.emplace_back(r);
      lines.push_back(reader.record_line());
    }
    EXPECT_EQ(got, in.records) << "step " << step;
    EXPECT_EQ(lines, in.lines) << "step " << step;
  }
}

TEST(JsonRecordLines, LfAndCrlfLinesWithBlankLines) {
  Check(Build({"", "\n", "\n\n", "\r\n", "\r\n\r\n", "\n", "\n \n", "\r\n\n"}),
        JsonFraming::kLines);
}

TEST(JsonRecordLines, StreamWithCrOnlyAndMixedLineEnds) {
  Check(Build({"", "\r", "\r\r", "\n", "\r\n", "", " ", "\r\n\r", "\n\r\n", "\r", "\n\n"}),
        JsonFraming::kStream);
}

}  // namespace
}  // namespace ltl
