// Record boundaries of a plain CSV or JSON-lines file, found without parsing, so the Dask driver
// can cut one file into pieces of about a given size (read/read_context.h FilePiece) that workers
// read at once. JSON lines: a record starts after every '\n'. CSV: a newline ends a record unless
// it is inside a quoted field, and whether it is follows from the parity of the '"' bytes before
// it (RFC 4180's doubled quotes toggle twice; the quote-parity idea of Ge et al., "Speculative
// Distributed CSV Data Parsing for Big Data Analytics", SIGMOD 2019). One sequential pass counts
// quotes and line ends (a vectorisable loop, no per-field work); near each cut point a byte loop
// finds the next newline outside quotes. Parity is right for every well-formed file; a malformed
// quote (one inside an unquoted field) can misplace later cuts, which the piece's read detects
// (CsvReader::ended_at_record_boundary): the driver then reads the rest of that file, from that
// piece's start, as one piece (its earlier pieces ended cleanly, so they stand).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "read/input_stream.h"
#include "read/read_context.h"

namespace ltl {

enum class RecordFraming { kCsv, kJsonLines };

// A piece's tail of at most a quarter of the piece size joins the piece before it rather than
// being a task of its own, when the file's size is known: so a file of at most
// OnePieceMaxBytes(piece_bytes) is one piece, known from its size without a scan (a log cut into
// files of about the piece size, as bench/run-dask-bench.sh's 67 MB files, is never scanned).
inline uint64_t JoinedTailMaxBytes(uint64_t piece_bytes) {
  return piece_bytes / 4;
}
inline uint64_t OnePieceMaxBytes(uint64_t piece_bytes) {
  return piece_bytes + JoinedTailMaxBytes(piece_bytes);
}
inline constexpr uint64_t kUnknownSize = UINT64_MAX;

// Fed a file's bytes in order, returns its pieces: the first at 0, each later one at the first
// record boundary at or after a multiple of piece_bytes (and after the file's first non-blank
// record, the CSV header), with the line number the readers give that byte, unless the file's
// total_bytes are known and at most JoinedTailMaxBytes would follow that boundary (then the piece
// before runs to the end); the last ends at the file's end. piece_bytes 0 = one piece. Lines are
// counted as the readers count them: CSV, '\n'; JSON lines, '\n', a '\r', and "\r\n" as one.
class BoundaryScanner {
 public:
  BoundaryScanner(RecordFraming framing, uint64_t piece_bytes, uint64_t total_bytes = kUnknownSize);
  void Feed(std::string_view bytes);
  std::vector<FilePiece> Finish();

 private:
  void Serial(const char* p, size_t n);  // byte by byte, from the seek threshold on
  void Count(const char* p, size_t n);   // quotes and line ends only, before it
  void Boundary(uint64_t at);            // a record starts at `at`

  RecordFraming framing_;
  uint64_t piece_bytes_;
  uint64_t total_bytes_;
  uint64_t offset_ = 0;  // of the next byte fed
  uint64_t lines_ = 0;   // line ends before offset_
  uint64_t quotes_ = 0;  // '"' bytes before offset_
  bool last_cr_ = false;
  bool header_done_;          // CSV: the first non-blank record (the header) has ended
  bool first_record_ = true;  // CSV: no record has ended yet
  std::string rec_head_;      // CSV, before header_done_: the record's first bytes (up to 8)
  uint64_t threshold_;        // from this offset on, bytes are looked at one by one
  std::vector<FilePiece> pieces_;
};

// The pieces of a file in memory (the scanner over it, its size known; for tests).
std::vector<FilePiece> PlanPieces(std::string_view bytes, RecordFraming framing,
                                  uint64_t piece_bytes);

// The pieces of the plain file at `path`, read in large blocks (its size as it is when opened).
Result<std::vector<FilePiece>> ScanFilePieces(const std::string& path, RecordFraming framing,
                                              uint64_t piece_bytes);

// The bytes [piece.begin, piece.end) of the plain file piece.path, as an InputStream (raw bytes
// read and size are the piece's: the pieces of a file add up to its size).
Result<std::unique_ptr<InputStream>> OpenPiece(const FilePiece& piece);

}  // namespace ltl
