// JsonRecordReader: splits a JSON input into its records whatever the framing: JSON lines of any
// length (LF or CRLF), JSON values separated only by whitespace or nothing at all (concatenated
// objects, pretty-printed documents, CR-only line ends), the elements of one top-level JSON array,
// or the elements of an array held by one top-level document ({"requests": [...]}, {"data":
// [...]}). Records are views of the raw bytes (valid until the next call), numbered by the line
// they start on.
//
// Written by hand rather than with simdjson's parse_many: that needs every document inside one
// batch in memory and gives no line numbers; finding where a value ends needs only string, escape
// and bracket tracking, which is what JsonValueEnd does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "read/input_stream.h"

namespace ltl {

enum class JsonFraming {
  kLines,     // one record per '\n'-terminated line (fast path)
  kStream,    // whitespace-separated or concatenated values (pretty-printed, CR-only, `}{`)
  kArray,     // the elements of one top-level array
  kDocument,  // the elements of the array under one key of one top-level object
};
const char* JsonFramingName(JsonFraming f);

// Position just past the JSON value starting at s[begin] (an object, array, string or scalar),
// or npos when the value does not end within s. Does not validate; only finds the end.
size_t JsonValueEnd(std::string_view s, size_t begin);

// What detection learns from the head of a JSON input (see DescribeJsonHead).
struct JsonHead {
  bool complete = false;                  // the first value ends within the head
  size_t first_begin = 0, first_end = 0;  // the first value's bytes in the head
  JsonFraming framing = JsonFraming::kLines;
  std::string document_key;  // kDocument: the key whose array holds the records
};
// `document_keys`: keys of a top-level object that hold an array of records.
JsonHead DescribeJsonHead(std::string_view head,
                          const std::vector<std::string_view>& document_keys);

class JsonRecordReader {
 public:
  JsonRecordReader(InputStream* in, JsonFraming framing, std::string document_key,
                   size_t max_record_bytes, size_t buffer_bytes = 1 << 20);

  enum class Outcome { kRecord, kEnd, kTooLong, kBad, kError };
  // kRecord: *record views the record. kTooLong: a record over the limit was skipped. kBad: the
  // framing broke (bad_reason() says how); reading resumes at the next line that starts a value.
  // kError: error() holds the input failure.
  Outcome Next(std::string_view* record);
  // JSON lines starting at a line boundary inside a file, on 1-based line `line` (a piece,
  // read/read_context.h): lines are numbered from there, as in the whole file's read.
  void StartMidFile(uint64_t line) { line_ = line; }
  uint64_t record_line() const { return record_line_; }  // 1-based line the record starts on
  uint64_t lines_read() const { return line_; }
  const std::string& bad_reason() const { return bad_reason_; }
  const Status& error() const { return error_; }

 private:
  bool Fill();
  void Advance(size_t to);  // consumes up to `to`, counting line ends
  bool SkipSpace();         // skips whitespace (refilling); false at end of input or error
  Outcome NextLine(std::string_view* record);
  Outcome NextValue(std::string_view* record);
  Outcome Enter();   // kArray / kDocument: moves into the record array
  Outcome Resync();  // after a broken value: skip to the next line starting with { or [

  InputStream* in_;
  JsonFraming framing_;
  std::string document_key_;
  size_t max_record_;
  std::string buf_;
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  bool started_ = false, in_array_ = false;
  bool cr_lines_ = false;  // no '\n' seen so far: a lone '\r' ends a line
  bool last_cr_ = false;
  uint64_t line_ = 1;  // line at begin_
  uint64_t record_line_ = 0;
  std::string bad_reason_;
  Status error_;
};

}  // namespace ltl
