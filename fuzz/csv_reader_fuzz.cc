// libFuzzer target: the RFC 4180 CsvReader. Properties beyond "no crash":
//  - the same bytes read with a 64-byte buffer fed 1..256 bytes at a time and with a 64 KiB buffer
//  (larger than any fuzz input)
//    fed whole give the same sequence of outcomes (records with their fields and line numbers,
//    bad records with their reasons);
//  - every record round-trips: written back as CSV (each field quoted, quotes doubled) and read
//    again, it gives the same fields;
//  - the limits hold: no field longer than max_field_bytes is ever returned.
#include <fmt/format.h>

#include "fuzz/fuzz_util.h"
#include "read/csv_reader.h"

namespace {

using ltl::CsvReader;
using ltl::fuzz::MemoryStream;

struct Event {
  CsvReader::Outcome outcome;
  uint64_t line;
  std::vector<std::string> fields;  // kRecord
  std::string reason;               // kBad
  bool operator==(const Event&) const = default;
};

std::vector<Event> ReadAll(std::string_view text, size_t buffer, size_t chunk,
                           const ltl::ReadLimits& limits) {
  MemoryStream in(text, chunk);
  CsvReader csv(&in, limits, buffer);
  std::vector<Event> events;
  for (;;) {
    CsvReader::Outcome o = csv.Next();
    LTL_FUZZ_CHECK(o != CsvReader::Outcome::kError);  // a memory stream never fails
    if (o == CsvReader::Outcome::kEnd) break;
    Event e{o, csv.record_line(), {}, {}};
    if (o == CsvReader::Outcome::kRecord) {
      for (std::string_view f : csv.fields()) {
        LTL_FUZZ_CHECK(f.size() <= limits.max_field_bytes);
        e.fields.emplace_back(f);
      }
    } else {
      e.reason = csv.bad_reason();
    }
    events.push_back(std::move(e));
    LTL_FUZZ_CHECK(events.size() <= text.size() + 1);  // progress: at least a byte per event
  }
  return events;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t chunk = 1 + data[0];
  ltl::ReadLimits limits;
  // Small limits half of the time, so the over-long record and field paths are reached.
  if (data[1] & 1) {
    limits.max_field_bytes = 8 + (data[1] >> 1);
    limits.max_line_bytes = 64 + 4 * data[1];
  }
  std::string_view text(reinterpret_cast<const char*>(data) + 2, size - 2);
  std::vector<Event> small = ReadAll(text, 64, chunk, limits);
  std::vector<Event> big = ReadAll(text, 1 << 16, text.size() + 1, limits);
  LTL_FUZZ_CHECK(small == big);

  ltl::ReadLimits unlimited;
  for (const Event& e : small) {
    if (e.outcome != CsvReader::Outcome::kRecord) continue;
    if (e.fields.size() == 1 && e.fields[0].empty()) continue;  // would be a blank line
    std::string csv;
    for (size_t i = 0; i < e.fields.size(); ++i) {
      if (i) csv += ',';
      csv += '"';
      for (char c : e.fields[i]) {
        if (c == '"') csv += '"';
        csv += c;
      }
      csv += '"';
    }
    csv += "\r\n";
    std::vector<Event> again = ReadAll(csv, 64, 7, unlimited);
    LTL_FUZZ_CHECK(again.size() == 1 && again[0].outcome == CsvReader::Outcome::kRecord &&
                   again[0].fields == e.fields);
  }
  return 0;
}
