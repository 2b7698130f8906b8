// CsvReader: a streaming RFC 4180 reader over an InputStream. Quoted fields may hold commas,
// doubled quotes and newlines; records end in LF or CRLF; a UTF-8 BOM before the header is dropped.
// Fields are views into the reader's buffer (or into its unescape scratch when they had doubled
// quotes), valid until the next call. raw_fields() gives the same fields without unescaping (a
// view of the bytes between the quotes, and whether doubled quotes are still in it), so a caller
// that hands the bytes on (the gateway reader's batches) copies each byte once and leaves the
// unescaping to the worker that reads the field (Unescape). Records and fields larger than the
// ReadLimits (measured in raw bytes, quotes included; memory stays within about twice the record
// limit) are skipped as bad records, as are malformed ones (text after a closing quote, an
// unterminated quote at the end of input); reading then resumes at the next record. Once
// ExpectFields(n) is set (the header's width), a broken quote cannot swallow the rest of the file:
// a record that is malformed, over a limit, or spans several lines and does not have n fields marks
// a runaway quoted field. The reader then resynchronizes: it goes back to the line after the one
// the damaged record started on and takes each following line in turn as a record start, until one
// parses into a record of n fields; every line passed over is returned as a bad record of its own
// (kResyncReason), so each lost row is counted.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "read/input_stream.h"
#include "read/read_context.h"

namespace ltl {

class CsvReader {
 public:
  CsvReader(InputStream* in, const ReadLimits& limits, size_t buffer_bytes = 1 << 20);

  // The skip reason of a line passed over while resynchronizing after a runaway quoted field.
  static constexpr const char* kResyncReason =
      "CSV line lost resynchronizing after a broken quoted field";

  // A field as it stands in the input: `bytes` between the quotes of a quoted field; `escaped`
  // when they hold doubled quotes ("" for "), which Unescape removes.
  struct RawField {
    std::string_view bytes;
    bool escaped = false;
  };
  // Writes a raw field's bytes without its doubled quotes to `out`, which must have room for
  // raw.size() + kUnescapeSlack bytes (it is written in 16-byte pieces); returns the length.
  static constexpr size_t kUnescapeSlack = 16;
  static size_t Unescape(std::string_view raw, char* out);

  // Batches that keep the records where the reader read them, with no copy: before the reader
  // refills its buffer (which would move or overwrite the bytes of records already returned) it
  // takes a buffer from Take() (any size; the unread bytes are copied into it) and gives the old
  // one to Give(), every record returned since the last hand-over still at its offset from
  // buffer_data(); HandOffBuffer() gives it at the end of the input.
  struct BufferHandoff {
    virtual ~BufferHandoff() = default;
    virtual std::string Take() = 0;
    virtual void Give(std::string full) = 0;
  };
  void SetBufferHandoff(BufferHandoff* h) { handoff_ = h; }
  void HandOffBuffer();
  const char* buffer_data() const { return buf_.data(); }

  enum class Outcome { kRecord, kEnd, kBad, kError };
  // The number of fields every record should have (the header's); 0 = unknown (no recovery).
  void ExpectFields(size_t n) { expected_fields_ = n; }
  // The input starts at a record boundary inside a file, on 1-based line `line` (a piece,
  // read/read_context.h): lines are numbered from there and no UTF-8 BOM is looked for.
  void StartMidFile(uint64_t line) {
    line_ = line;
    first_ = false;
  }
  // After kEnd: the input ended where the whole file's read would be between two records, in the
  // same state, having read the same records: the last record was whole (not damaged), no
  // resynchronization was under way, and no quoted field ran into the end of input (whose record
  // the whole file's read would have judged on more bytes). A piece whose read ends otherwise
  // may have been cut at a point that is not a record boundary of the whole file (a malformed
  // quote before it).
  bool ended_at_record_boundary() const { return last_whole_ && !resync_ && !cut_by_end_; }
  // kRecord: fields() holds the record. kBad: bad_reason() says why (a fixed phrase); the record
  // was consumed. kError: error() holds the input failure. Blank lines are skipped.
  Outcome Next();
  const std::vector<std::string_view>& fields() const;  // unescaped on first use
  const std::vector<RawField>& raw_fields() const { return raw_; }
  uint64_t record_line() const { return record_line_; }  // 1-based line the record starts on
  const std::string& bad_reason() const { return bad_reason_; }
  const Status& error() const { return error_; }

 private:
  enum class Parse { kDone, kNeedMore, kBad, kBadLimit };
  Parse ParseRecord(size_t* consumed);
  bool Fill();
  bool FillBuffer();  // Fill(), then keep reading until the buffer is full or the input ends
  // True (and bad_reason_ set) when the bytes known so far already break a limit: the field that
  // starts at `field_begin` or the record (from begin_) runs past `known_end`.
  bool OverLimit(size_t field_begin, size_t known_end);
  // Consumes bytes up to and including the next newline outside quotes (after a bad record), or,
  // with mind_quotes false, the next newline of any kind.
  void Discard(size_t from, bool in_quotes, bool mind_quotes = true);
  // Skips the first line of the record at begin_ and enters resynchronization (see above).
  void StartResync();
  bool HasInnerNewline(size_t from, size_t consumed) const;
  void CountLines(size_t from, size_t to);

  InputStream* in_;
  ReadLimits limits_;
  std::string buf_;
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  bool first_ = true;
  uint64_t line_ = 1;  // line number at begin_
  uint64_t record_line_ = 0;
  struct Span {
    size_t offset, length;  // in buf_; the raw bytes of the field
    bool escaped;           // holds doubled quotes
  };
  std::vector<Span> spans_;
  std::vector<RawField> raw_;
  mutable std::vector<std::string_view> fields_;
  mutable bool fields_ready_ = false;
  mutable std::string scratch_;  // the unescaped fields
  std::string bad_reason_;
  Status error_;
  size_t expected_fields_ = 0;
  bool resync_ = false;  // looking for the next line that starts a valid record
  std::string resync_reason_ = kResyncReason;  // the skip reason of the lines it passes over
  BufferHandoff* handoff_ = nullptr;
  bool returned_ = false;    // a record was returned from the buffer since the last hand-over
  bool last_whole_ = true;   // the last record parsed (blank lines included) was not bad
  bool cut_by_end_ = false;  // a quoted field ran into the end of input
};

}  // namespace ltl
