// CsvReader: RFC 4180 quoting (commas, doubled quotes, newlines inside quotes), CRLF, the UTF-8
// BOM, blank lines, malformed records (skipped with their line, reading resumes), size limits, and
// records spanning many buffer refills.
#include "read/csv_reader.h"
#include "string_stream.h"

#include <gtest/gtest.h>

#include <cstring>

namespace ltl {
namespace {

// Serves a string in pieces of at most `step` bytes, to exercise buffer refills.
using testing::StringStream;

struct Row {
  std::vector<std::string> fields;
  uint64_t line = 0;
  std::string bad;  // non-empty for a bad record
};

std::vector<Row> ReadAll(const std::string& text, size_t step = 1 << 20, ReadLimits limits = {},
                         size_t buffer = 1 << 20) {
  StringStream in(text, step);
  CsvReader csv(&in, limits, buffer);
  std::vector<Row> rows;
  for (;;) {
    auto o = csv.Next();
    if (o == CsvReader::Outcome::kEnd) break;
    EXPECT_NE(o, CsvReader::Outcome::kError);
    if (o == CsvReader::Outcome::kError) break;
    Row r;
    r.line = csv.record_line();
    if (o == CsvReader::Outcome::kBad)
      r.bad = csv.bad_reason();
    else
      for (auto f : csv.fields()) r.fields.emplace_back(f);
    rows.push_back(r);
  }
  return rows;
}

using V = std::vector<std::string>;

TEST(CsvReader, QuotedCommasDoubledQuotesAndNewlines) {
  auto rows = ReadAll(
      "a,b,c\n"
      "1,\"x,y\",\"say \"\"hi\"\"\"\n"
      "2,\"line1\nline2\",\n"
      "3,,\"\"\n");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].fields, (V{"a", "b", "c"}));
  EXPECT_EQ(rows[1].fields, (V{"1", "x,y", "say \"hi\""}));
  EXPECT_EQ(rows[2].fields, (V{"2", "line1\nline2", ""}));
  EXPECT_EQ(rows[3].fields, (V{"3", "", ""}));
  EXPECT_EQ(rows[1].line, 2u);
  EXPECT_EQ(rows[2].line, 3u);
  EXPECT_EQ(rows[3].line, 5u);  // the quoted newline took a line
}

TEST(CsvReader, CrlfBomBlankLinesAndNoFinalNewline) {
  auto rows = ReadAll("\xEF\xBB\xBFh1,h2\r\n\r\n\"q\r\nr\",v\r\nlast,row");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].fields, (V{"h1", "h2"}));
  EXPECT_EQ(rows[1].fields, (V{"q\r\nr", "v"}));  // CRLF inside quotes is data
  EXPECT_EQ(rows[1].line, 3u);
  EXPECT_EQ(rows[2].fields, (V{"last", "row"}));
}

TEST(CsvReader, MalformedRecordIsReportedAndReadingResumes) {
  auto rows = ReadAll("a,b\n\"x\"junk,2\nok,3\n\"never closed,4\n");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1].bad, "text after a closing quote in a CSV field");
  EXPECT_EQ(rows[1].line, 2u);
  EXPECT_EQ(rows[2].fields, (V{"ok", "3"}));
  EXPECT_EQ(rows[2].line, 3u);
  EXPECT_EQ(rows[3].bad, "unterminated quoted CSV field");
  EXPECT_EQ(rows[3].line, 4u);
}

TEST(CsvReader, FieldAndRecordLimits) {
  ReadLimits limits;
  limits.max_field_bytes = 8;
  limits.max_line_bytes = 64;
  std::string big = "zzzz";  // many short fields: only the record is too long
  for (int i = 0; i < 20; ++i) big += ",zzzzzzz";
  auto rows = ReadAll("a,b\n123456789,x\nfine,y\n" + big + "\nend,z\n", 16, limits, 64);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[1].bad, "CSV field longer than 8 bytes");
  EXPECT_EQ(rows[2].fields, (V{"fine", "y"}));
  EXPECT_EQ(rows[3].bad, "CSV record longer than 64 bytes");
  EXPECT_EQ(rows[3].line, 4u);
  EXPECT_EQ(rows[4].fields, (V{"end", "z"}));
  EXPECT_EQ(rows[4].line, 5u);
}

TEST(CsvReader, SameResultWhateverTheReadSizes) {
  std::string text = "id,body\n";
  for (int i = 0; i < 200; ++i)
    text += std::to_string(i) + ",\"{\"\"k\"\": \"\"v" + std::string(i % 37, 'x') +
            "\"\", \"\"n\"\": \"\"a\nb\"\"}\"\r\n";
  auto whole = ReadAll(text);
  for (size_t step : {1, 3, 7, 64, 1000}) {
    auto pieces = ReadAll(text, step, ReadLimits{}, 64);
    ASSERT_EQ(pieces.size(), whole.size()) << step;
    for (size_t i = 0; i < whole.size(); ++i) {
      EXPECT_EQ(pieces[i].fields, whole[i].fields) << "step " << step << " row " << i;
      EXPECT_EQ(pieces[i].line, whole[i].line);
    }
  }
  ASSERT_EQ(whole.size(), 201u);
  EXPECT_EQ(whole[6].fields[1], "{\"k\": \"vxxxxx\", \"n\": \"a\nb\"}");
  EXPECT_EQ(whole[200].line, 1u + 2 * 199 + 1);
}

}  // namespace
}  // namespace ltl
