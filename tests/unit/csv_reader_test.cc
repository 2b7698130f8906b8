// CsvReader: RFC 4180 quoting (commas, doubled quotes, newlines inside quotes), CRLF, the UTF-8
// BOM, blank lines, malformed records (skipped with their line, reading resumes), size limits, and
// records spanning many buffer refills.
#include "read/csv_reader.h"
#include "string_stream.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

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

// Quoted fields long enough for the 32-byte quote scan (doubled quotes anywhere, runs of them
// across the scan's pieces, fields of every length around 32), read through small buffers and in
// small steps: the fields are what a plain reference unescape of the generated values gives, and
// raw_fields() + Unescape give the same bytes as fields().
TEST(CsvReader, LongQuotedFieldsWithDoubledQuotesMatchTheReference) {
  std::mt19937 rng(7);
  std::string text = "a,b\n";
  std::vector<V> want;
  for (int r = 0; r < 400; ++r) {
    V row;
    std::string line;
    for (int f = 0; f < 2; ++f) {
      std::string value;
      const size_t n = rng() % 90;
      for (size_t k = 0; k < n; ++k) {
        const unsigned c = rng() % 8;
        value.push_back(c == 0 ? '"' : c == 1 ? ',' : static_cast<char>('a' + rng() % 26));
      }
      row.push_back(value);
      if (f) line.push_back(',');
      line.push_back('"');
      for (char c : value) {
        if (c == '"') line.push_back('"');
        line.push_back(c);
      }
      line.push_back('"');
    }
    text += line + "\n";
    want.push_back(row);
  }
  for (size_t buffer : {64u, 100u, 1u << 20}) {
    for (size_t step : {7u, 33u, 1u << 20}) {
      auto rows = ReadAll(text, step, {}, buffer);
      ASSERT_EQ(rows.size(), want.size() + 1) << buffer << " " << step;
      for (size_t i = 0; i < want.size(); ++i)
        EXPECT_EQ(rows[i + 1].fields, want[i]) << "row " << i << " buffer " << buffer;
    }
  }
  StringStream in(text, 1 << 20);
  CsvReader csv(&in, {}, 1 << 20);
  for (size_t i = 0; csv.Next() == CsvReader::Outcome::kRecord; ++i) {
    const auto& fields = csv.fields();
    const auto& raw = csv.raw_fields();
    ASSERT_EQ(raw.size(), fields.size());
    for (size_t k = 0; k < raw.size(); ++k) {
      std::string out(raw[k].bytes.size() + CsvReader::kUnescapeSlack, '\0');
      out.resize(CsvReader::Unescape(raw[k].bytes, out.data()));
      EXPECT_EQ(raw[k].escaped ? out : std::string(raw[k].bytes), fields[k]);
    }
  }
}

// With a BufferHandoff the records returned before a refill stay in the buffer given away, at
// their offsets: every record's raw cells read from the given buffers equal fields().
TEST(CsvReader, BufferHandoffKeepsEveryReturnedRecordInTheGivenBuffer) {
  struct Keep : CsvReader::BufferHandoff {
    std::vector<std::string> given;
    std::string Take() override { return std::string(); }
    void Give(std::string full) override { given.push_back(std::move(full)); }
  };
  std::string text = "a,b\n";
  for (int r = 0; r < 300; ++r)
    text +=
        "\"x\"\"" + std::to_string(r) + std::string(r % 50, 'y') + "\"," + std::to_string(r) + "\n";
  StringStream in(text, 13);
  Keep keep;
  CsvReader csv(&in, {}, 256);
  ASSERT_EQ(csv.Next(), CsvReader::Outcome::kRecord);  // the header, before the hand-over
  csv.SetBufferHandoff(&keep);
  struct Cell {
    size_t buffer, offset, size;
    bool escaped;
    std::string want;
  };
  std::vector<Cell> cells;
  for (;;) {
    auto o = csv.Next();
    if (o != CsvReader::Outcome::kRecord) break;
    for (size_t k = 0; k < 2; ++k) {
      const auto& raw = csv.raw_fields()[k];
      cells.push_back(Cell{keep.given.size(),
                           static_cast<size_t>(raw.bytes.data() - csv.buffer_data()),
                           raw.bytes.size(), raw.escaped, std::string(csv.fields()[k])});
    }
  }
  csv.HandOffBuffer();
  ASSERT_EQ(cells.size(), 600u);
  ASSERT_GT(keep.given.size(), 10u);
  for (const Cell& c : cells) {
    ASSERT_LT(c.buffer, keep.given.size());
    const std::string_view raw(keep.given[c.buffer].data() + c.offset, c.size);
    std::string out(raw.size() + CsvReader::kUnescapeSlack, '\0');
    out.resize(CsvReader::Unescape(raw, out.data()));
    EXPECT_EQ(c.escaped ? out : std::string(raw), c.want);
  }
}

}  // namespace
}  // namespace ltl
