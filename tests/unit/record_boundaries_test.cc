// BoundaryScanner / PlanPieces / OpenPiece (read/record_boundaries.h) against the readers
// themselves: on random CSV texts (quoted fields with commas, doubled quotes, LF and CRLF inside,
// CRLF record ends, blank lines, a BOM) every cut point is the first line start outside quotes
// at or after its multiple of the piece size (known by construction: the generator writes the
// records), numbered as CsvReader numbers that record, and the pieces read one by one (a piece
// after the first with the header's width and its first line, as the gateway reader does) give
// exactly the whole file's CsvReader events, each non-last piece ending at a record boundary.
// With stray quotes in unquoted fields (where parity goes wrong) a piece may be cut wrongly, but
// then its read says so: whenever every piece ends at a record boundary, the events are the
// whole file's. The same for JSON lines with LF, CRLF, lone CR and blank lines. A tail of at most
// a quarter piece joins the piece before (and no other cut is left out).
#include "read/record_boundaries.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "read/csv_reader.h"
#include "read/json_records.h"
#include "string_stream.h"
#include "test_util.h"

namespace ltl {
namespace {

struct Event {
  int outcome;
  uint64_t line;
  std::vector<std::string> fields;
  bool operator==(const Event&) const = default;
};

// A CSV text and its structure: the offsets where a line starts outside quotes (records and
// blank lines) and where each record starts.
struct CsvText {
  std::string text;
  std::set<uint64_t> line_starts;
  std::vector<uint64_t> record_starts;  // header first
};

std::string Field(std::mt19937& rng, bool stray_quotes) {
  std::string f;
  const int kind = static_cast<int>(rng() % 4);
  const int len = static_cast<int>(rng() % 12);
  if (kind == 0) {  // unquoted
    for (int i = 0; i < len; ++i) {
      f += static_cast<char>('a' + rng() % 26);
      if (stray_quotes && rng() % 40 == 0) f += '"';
    }
    return f;
  }
  f += '"';
  static const char* const kPieces[] = {"x", "y", ",", "\"\"", "\n", "\r\n", " ", "{\"\"k\"\":1}"};
  for (int i = 0; i < len; ++i) f += kPieces[rng() % 8];
  f += '"';
  return f;
}

CsvText MakeCsv(uint32_t seed, int rows, bool stray_quotes) {
  std::mt19937 rng(seed);
  CsvText c;
  if (seed % 3 == 0) c.text += "\xEF\xBB\xBF";
  if (seed % 4 == 0) {  // blank lines before the header
    c.line_starts.insert(c.text.size());
    c.text += "\n";
  }
  auto record = [&](std::vector<std::string> fields) {
    c.line_starts.insert(c.text.size());
    c.record_starts.push_back(c.text.size());
    for (size_t i = 0; i < fields.size(); ++i) c.text += (i ? "," : "") + fields[i];
    c.text += rng() % 2 ? "\r\n" : "\n";
  };
  record({"a", "b", "c"});
  for (int r = 0; r < rows; ++r) {
    if (rng() % 10 == 0) {
      c.line_starts.insert(c.text.size());
      c.text += rng() % 2 ? "\n" : "\r\n";
    }
    record({Field(rng, stray_quotes), Field(rng, stray_quotes), Field(rng, stray_quotes)});
  }
  if (seed % 2) {  // no final line end
    c.text.pop_back();
    if (c.text.back() == '\r') c.text.pop_back();
  }
  return c;
}

std::vector<Event> CsvEvents(CsvReader* csv, bool header) {
  std::vector<Event> out;
  if (header) {
    EXPECT_EQ(csv->Next(), CsvReader::Outcome::kRecord);
    csv->ExpectFields(csv->fields().size());
  }
  for (;;) {
    const CsvReader::Outcome o = csv->Next();
    if (o == CsvReader::Outcome::kEnd || o == CsvReader::Outcome::kError) break;
    Event e{static_cast<int>(o), csv->record_line(), {}};
    if (o == CsvReader::Outcome::kRecord)
      for (std::string_view f : csv->fields()) e.fields.emplace_back(f);
    else
      e.fields.push_back(csv->bad_reason());
    out.push_back(std::move(e));
  }
  return out;
}

uint64_t LinesBefore(const std::string& text, uint64_t at) {
  return 1 + static_cast<uint64_t>(std::count(text.begin(), text.begin() + at, '\n'));
}

// Reads each piece as the gateway reader does; false when a piece says its end is no boundary.
bool ReadPieces(const std::string& path, const std::vector<FilePiece>& pieces,
                std::vector<Event>* events) {
  bool sure = true;
  for (FilePiece p : pieces) {
    p.path = path;
    auto in = OpenPiece(p);
    EXPECT_TRUE(in.ok());
    ReadLimits limits;
    CsvReader csv(in->get(), limits, 64);
    if (p.index > 0) {
      csv.ExpectFields(3);
      csv.StartMidFile(p.first_line);
    }
    std::vector<Event> e = CsvEvents(&csv, p.index == 0);
    events->insert(events->end(), e.begin(), e.end());
    if (!p.last) sure &= csv.ended_at_record_boundary();
  }
  return sure;
}

TEST(RecordBoundaries, CsvCutsAreTheFirstLineStartsOutsideQuotes) {
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    const CsvText c = MakeCsv(seed, 40 + static_cast<int>(seed % 50), false);
    const uint64_t piece = 1 + seed % 97;
    const std::vector<FilePiece> pieces = PlanPieces(c.text, RecordFraming::kCsv, piece);
    ASSERT_FALSE(pieces.empty());
    EXPECT_EQ(pieces.front().begin, 0u);
    EXPECT_EQ(pieces.back().end, c.text.size());
    // The whole file's records and their lines, by CsvReader.
    testing::StringStream whole_in(c.text, 7);
    CsvReader whole(&whole_in, ReadLimits{}, 64);
    std::vector<Event> want = CsvEvents(&whole, true);
    ASSERT_EQ(want.size() + 1, c.record_starts.size()) << seed;
    const uint64_t header_end = *c.line_starts.upper_bound(c.record_starts[0]);
    uint64_t prev = 0;
    for (size_t k = 1; k < pieces.size(); ++k) {
      const FilePiece& p = pieces[k];
      EXPECT_EQ(p.index, k);
      EXPECT_EQ(pieces[k - 1].end, p.begin);
      // The first line start outside quotes at or after the cut point (a multiple of the piece
      // size after the previous piece's start and after the header).
      const uint64_t cut = (std::max(prev, header_end) / piece + 1) * piece;
      auto first = c.line_starts.lower_bound(cut);
      ASSERT_NE(first, c.line_starts.end()) << seed;
      EXPECT_EQ(p.begin, *first) << "seed " << seed << " piece " << k;
      EXPECT_EQ(p.first_line, LinesBefore(c.text, p.begin));
      // A record start: its line is CsvReader's.
      for (size_t r = 1; r < c.record_starts.size(); ++r)
        if (c.record_starts[r] == p.begin) {
          EXPECT_EQ(want[r - 1].line, p.first_line);
        }
      prev = p.begin;
    }
    // No cut is missing but one that would leave a tail of at most a quarter piece (joined).
    const auto next = c.line_starts.lower_bound((std::max(prev, header_end) / piece + 1) * piece);
    if (next != c.line_starts.end()) {
      EXPECT_LE(c.text.size() - *next, piece / 4) << seed;
    }
    const std::string path = testing::WriteTemp("pieces.csv", c.text);
    std::vector<Event> got;
    EXPECT_TRUE(ReadPieces(path, pieces, &got)) << seed;
    EXPECT_EQ(got, want) << seed;
  }
}

TEST(RecordBoundaries, MisplacedCutsAreAlwaysDetected) {
  int unsure = 0;
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    const CsvText c = MakeCsv(seed, 60, true);
    const std::vector<FilePiece> pieces = PlanPieces(c.text, RecordFraming::kCsv, 1 + seed % 61);
    testing::StringStream whole_in(c.text, 1 << 20);
    CsvReader whole(&whole_in, ReadLimits{}, 64);
    const std::vector<Event> want = CsvEvents(&whole, true);
    const std::string path = testing::WriteTemp("stray.csv", c.text);
    std::vector<Event> got;
    if (ReadPieces(path, pieces, &got))
      EXPECT_EQ(got, want) << seed;
    else
      ++unsure;
  }
  EXPECT_GT(unsure, 0);  // the stray quotes did misplace cuts, and every one was caught
}

TEST(RecordBoundaries, JsonLinesPiecesReadAsTheWholeFile) {
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    std::string text;
    for (int r = 0; r < 60; ++r) {
      const int kind = static_cast<int>(rng() % 8);
      if (kind == 0) text += "\n";
      if (kind == 1) text += "  \r\n";
      text += "{\"k\":" + std::to_string(rng() % 1000);
      if (kind == 2) text += ",\"s\":\"a\rb\"";  // a lone CR counts a line, ends none
      text += "}";
      text += rng() % 2 ? "\r\n" : "\n";
    }
    const uint64_t piece = 1 + seed % 53;
    const std::vector<FilePiece> pieces = PlanPieces(text, RecordFraming::kJsonLines, piece);
    auto events = [](InputStream* in, uint64_t first_line) {
      JsonRecordReader reader(in, JsonFraming::kLines, "", 1 << 20, 64);
      if (first_line > 1) reader.StartMidFile(first_line);
      std::vector<Event> out;
      std::string_view rec;
      for (;;) {
        const auto o = reader.Next(&rec);
        if (o == JsonRecordReader::Outcome::kEnd || o == JsonRecordReader::Outcome::kError) break;
        out.push_back(Event{static_cast<int>(o), reader.record_line(), {std::string(rec)}});
      }
      return out;
    };
    testing::StringStream whole_in(text, 5);
    const std::vector<Event> want = events(&whole_in, 1);
    const std::string path = testing::WriteTemp("pieces.jsonl", text);
    std::vector<Event> got;
    uint64_t prev = 0;
    for (FilePiece p : pieces) {
      if (p.index > 0) {  // the first '\n'-ended line start at or after the cut point
        const uint64_t cut = (prev / piece + 1) * piece;
        EXPECT_EQ(text[p.begin - 1], '\n');
        EXPECT_EQ(text.find('\n', cut - 1) + 1, p.begin) << seed;
      }
      if (p.last) {  // no cut missing but one with a tail of at most a quarter piece (joined)
        const size_t next = text.find('\n', (p.begin / piece + 1) * piece - 1);
        if (next != std::string::npos) {
          EXPECT_LE(text.size() - (next + 1), piece / 4) << seed;
        }
      }
      prev = p.begin;
      p.path = path;
      auto in = OpenPiece(p);
      ASSERT_TRUE(in.ok());
      const std::vector<Event> e = events(in->get(), p.index > 0 ? p.first_line : 1);
      got.insert(got.end(), e.begin(), e.end());
    }
    EXPECT_EQ(got, want) << seed;
  }
}

TEST(RecordBoundaries, ScanFileMatchesTheScanInMemory) {
  const CsvText c = MakeCsv(7, 3000, false);
  const std::string path = testing::WriteTemp("scan.csv", c.text);
  auto scanned = ScanFilePieces(path, RecordFraming::kCsv, 4096);
  ASSERT_TRUE(scanned.ok());
  const std::vector<FilePiece> mem = PlanPieces(c.text, RecordFraming::kCsv, 4096);
  ASSERT_EQ(scanned->size(), mem.size());
  EXPECT_GT(mem.size(), 5u);
  for (size_t k = 0; k < mem.size(); ++k) {
    EXPECT_EQ((*scanned)[k].begin, mem[k].begin);
    EXPECT_EQ((*scanned)[k].first_line, mem[k].first_line);
    EXPECT_EQ((*scanned)[k].path, path);
  }
  // Fed a byte at a time, the same.
  BoundaryScanner bytewise(RecordFraming::kCsv, 4096, c.text.size());
  for (char ch : c.text) bytewise.Feed(std::string_view(&ch, 1));
  const std::vector<FilePiece> b = bytewise.Finish();
  ASSERT_EQ(b.size(), mem.size());
  for (size_t k = 0; k < mem.size(); ++k) EXPECT_EQ(b[k].begin, mem[k].begin);
  EXPECT_EQ(PlanPieces(c.text, RecordFraming::kCsv, 0).size(), 1u);
}

// A tail of at most a quarter piece after a cut point joins the piece before, when the size is
// known (PlanPieces, ScanFilePieces); so a file of up to 1.25 pieces is one piece, which
// PlanFilePieces knows from its size alone.
TEST(RecordBoundaries, ATailOfAQuarterPieceJoinsThePieceBefore) {
  const std::string line = std::string(99, 'x') + "\n";  // 100 bytes
  auto lines = [&](int n) {
    std::string t;
    for (int i = 0; i < n; ++i) t += line;
    return t;
  };
  auto begins = [](const std::vector<FilePiece>& pieces) {
    std::vector<uint64_t> out;
    out.reserve(pieces.size());
    for (const FilePiece& p : pieces) out.push_back(p.begin);
    return out;
  };
  const uint64_t piece = 1000;  // a joined tail is at most 250 bytes
  EXPECT_EQ(begins(PlanPieces(lines(22), RecordFraming::kJsonLines, piece)),
            (std::vector<uint64_t>{0, 1000}));  // 200 bytes after 2000: joined
  EXPECT_EQ(PlanPieces(lines(22), RecordFraming::kJsonLines, piece).back().end, 2200u);
  EXPECT_EQ(begins(PlanPieces(lines(23), RecordFraming::kJsonLines, piece)),
            (std::vector<uint64_t>{0, 1000, 2000}));  // 300 bytes: a piece of its own
  EXPECT_EQ(PlanPieces(lines(12), RecordFraming::kJsonLines, piece).size(), 1u);  // 1.2 pieces
  EXPECT_EQ(PlanPieces(lines(13), RecordFraming::kJsonLines, piece).size(), 2u);  // 1.3 pieces
  EXPECT_EQ(OnePieceMaxBytes(piece), 1250u);
  // CSV: a header, then 99-byte records; the tail counts from the boundary found (after 2000).
  const std::string csv = "a,b\n" + lines(21) + std::string(40, 'y') + "\n";  // 2145 bytes
  EXPECT_EQ(begins(PlanPieces(csv, RecordFraming::kCsv, piece)),
            (std::vector<uint64_t>{0, 1004}));  // 141 bytes after 2004: joined
  // The size unknown (a stream), every cut is made.
  BoundaryScanner unknown(RecordFraming::kJsonLines, piece);
  unknown.Feed(lines(22));
  EXPECT_EQ(begins(unknown.Finish()), (std::vector<uint64_t>{0, 1000, 2000}));
  // ScanFilePieces knows the file's size.
  auto scanned =
      ScanFilePieces(testing::WriteTemp("tail.jsonl", lines(22)), RecordFraming::kJsonLines, piece);
  ASSERT_TRUE(scanned.ok());
  EXPECT_EQ(begins(*scanned), (std::vector<uint64_t>{0, 1000}));
}

}  // namespace
}  // namespace ltl
