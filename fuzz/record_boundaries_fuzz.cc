// libFuzzer target: the record-boundary scan that cuts a log into pieces
// (read/record_boundaries.h). Properties beyond "no crash":
//  - the pieces tile the input, each later one starts right after a '\n' and carries the line
//    number the readers give its first byte, and fed 1..256 bytes at a time the scan cuts the
//    same;
//  - CSV: the pieces read one by one (a later piece with the header's width and its first line)
//    give the whole input's CsvReader events whenever every non-last piece ends at a record
//    boundary (CsvReader::ended_at_record_boundary): a cut misplaced by a malformed quote is
//    always detected, never silently read differently;
//  - JSON lines: the pieces' JsonRecordReader events are always the whole input's.
#include <algorithm>

#include "fuzz/fuzz_util.h"
#include "read/csv_reader.h"
#include "read/json_records.h"
#include "read/record_boundaries.h"

namespace {

using ltl::CsvReader;
using ltl::fuzz::MemoryStream;

struct Event {
  int outcome;
  uint64_t line;
  std::vector<std::string> fields;
  bool operator==(const Event&) const = default;
};

// The CSV events after the header (the header itself is read when `header`); false when the
// header is not a record (the gateway reader stops there).
bool CsvEvents(std::string_view text, bool header, size_t width, uint64_t first_line,
               std::vector<Event>* out, size_t* header_width, bool* boundary) {
  MemoryStream in(text, 61);
  CsvReader csv(&in, ltl::ReadLimits{}, 64);
  if (header) {
    if (csv.Next() != CsvReader::Outcome::kRecord) return false;
    *header_width = csv.fields().size();
    csv.ExpectFields(*header_width);
  } else {
    csv.ExpectFields(width);
    csv.StartMidFile(first_line);
  }
  for (;;) {
    const CsvReader::Outcome o = csv.Next();
    LTL_FUZZ_CHECK(o != CsvReader::Outcome::kError);
    if (o == CsvReader::Outcome::kEnd) break;
    Event e{static_cast<int>(o), csv.record_line(), {}};
    if (o == CsvReader::Outcome::kRecord)
      for (std::string_view f : csv.fields()) e.fields.emplace_back(f);
    else
      e.fields.push_back(csv.bad_reason());
    out->push_back(std::move(e));
  }
  *boundary = csv.ended_at_record_boundary();
  return true;
}

std::vector<Event> JsonEvents(std::string_view text, uint64_t first_line) {
  MemoryStream in(text, 37);
  ltl::JsonRecordReader reader(&in, ltl::JsonFraming::kLines, "", 1 << 20, 64);
  if (first_line > 1) reader.StartMidFile(first_line);
  std::vector<Event> out;
  std::string_view rec;
  for (;;) {
    const auto o = reader.Next(&rec);
    LTL_FUZZ_CHECK(o != ltl::JsonRecordReader::Outcome::kError);
    if (o == ltl::JsonRecordReader::Outcome::kEnd) break;
    out.push_back(Event{static_cast<int>(o), reader.record_line(), {std::string(rec)}});
  }
  return out;
}

uint64_t JsonLinesBefore(std::string_view t, size_t at) {
  uint64_t lines = 1;
  for (size_t i = 0; i < at; ++i)
    lines += t[i] == '\r' || (t[i] == '\n' && (i == 0 || t[i - 1] != '\r'));
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const uint64_t piece_bytes = 1 + data[0] % 64;
  const size_t chunk = 1 + data[1];
  const bool csv = data[2] & 1;
  const std::string_view text(reinterpret_cast<const char*>(data) + 3, size - 3);
  const auto framing = csv ? ltl::RecordFraming::kCsv : ltl::RecordFraming::kJsonLines;
  const std::vector<ltl::FilePiece> pieces = ltl::PlanPieces(text, framing, piece_bytes);
  ltl::BoundaryScanner chunked(framing, piece_bytes, text.size());
  for (size_t at = 0; at < text.size(); at += chunk) chunked.Feed(text.substr(at, chunk));
  const std::vector<ltl::FilePiece> again = chunked.Finish();
  LTL_FUZZ_CHECK(again.size() == pieces.size());
  LTL_FUZZ_CHECK(!pieces.empty() && pieces.front().begin == 0 && pieces.back().end == text.size());
  for (size_t k = 0; k < pieces.size(); ++k) {
    const ltl::FilePiece& p = pieces[k];
    LTL_FUZZ_CHECK(again[k].begin == p.begin && again[k].first_line == p.first_line);
    LTL_FUZZ_CHECK(p.index == k && (p.begin < p.end || text.empty()) &&
                   p.last == (k + 1 == pieces.size()));
    if (k == 0) continue;
    LTL_FUZZ_CHECK(pieces[k - 1].end == p.begin && text[p.begin - 1] == '\n');
    const uint64_t lines =
        csv ? 1 + static_cast<uint64_t>(std::count(text.begin(), text.begin() + p.begin, '\n'))
            : JsonLinesBefore(text, p.begin);
    LTL_FUZZ_CHECK(p.first_line == lines);
  }
  if (!csv) {
    std::vector<Event> got;
    for (const ltl::FilePiece& p : pieces) {
      std::vector<Event> e = JsonEvents(text.substr(p.begin, p.end - p.begin), p.first_line);
      got.insert(got.end(), e.begin(), e.end());
    }
    LTL_FUZZ_CHECK(got == JsonEvents(text, 1));
    return 0;
  }
  std::vector<Event> want, got;
  size_t width = 0;
  bool boundary = true, all = true;
  if (!CsvEvents(text, true, 0, 1, &want, &width, &boundary)) return 0;
  for (const ltl::FilePiece& p : pieces) {
    const std::string_view bytes = text.substr(p.begin, p.end - p.begin);
    size_t w = width;
    if (!CsvEvents(bytes, p.index == 0, width, p.first_line, &got, &w, &boundary)) return 0;
    if (!p.last) all &= boundary;
  }
  if (all) LTL_FUZZ_CHECK(got == want);
  return 0;
}
