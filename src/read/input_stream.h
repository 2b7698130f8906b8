// InputStream: bytes of one input — a plain file, a .gz or .zst file (detected by magic bytes, not
// by name), or standard input ("-") — delivered in chunks, so no input is ever fully loaded.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"

namespace ltl {

class InputStream {
 public:
  virtual ~InputStream() = default;
  // Reads up to `cap` bytes into `buf`; returns the count, 0 at end of input, or an error
  // (truncated or corrupt compressed data, read failure). Error messages do not name the file:
  // the caller knows the name and the line, and prints "FILE:LINE: message".
  virtual Result<size_t> Read(char* buf, size_t cap) = 0;
  // Bytes consumed from the underlying file so far (compressed bytes for compressed input).
  virtual uint64_t raw_bytes_read() const = 0;
  // Total size of the underlying file if known (0 otherwise): for progress and ETA.
  virtual uint64_t raw_size() const = 0;
  // "plain", "gzip" or "zstd".
  virtual const char* encoding() const = 0;
};

// Opens `path` ("-" = stdin). Fails with a one-line message naming the file when it is missing,
// unreadable or a directory.
Result<std::unique_ptr<InputStream>> OpenInput(const std::string& path);

// An InputStream that first replays `head` (bytes already read from `in` to detect the format),
// then continues with `in`. `progress`, when set, is called before every read with (raw bytes read,
// raw size) of the underlying file.
class PeekedStream : public InputStream {
 public:
  PeekedStream(std::unique_ptr<InputStream> in, std::string head,
               std::function<void(uint64_t, uint64_t)> progress = nullptr)
      : in_(std::move(in)), head_(std::move(head)), progress_(std::move(progress)) {}
  Result<size_t> Read(char* buf, size_t cap) override;
  uint64_t raw_bytes_read() const override { return in_->raw_bytes_read(); }
  uint64_t raw_size() const override { return in_->raw_size(); }
  const char* encoding() const override { return in_->encoding(); }

 private:
  std::unique_ptr<InputStream> in_;
  std::string head_;
  size_t pos_ = 0;
  std::function<void(uint64_t, uint64_t)> progress_;
};

// The refill step of a sliding read window buf[begin, end) shared by LineReader and CsvReader:
// moves the unconsumed bytes to the front, doubles the buffer when it is full, and appends one
// Read(). Returns false at end of input or on a read error (then *error is set); either sets *eof.
bool RefillWindow(InputStream* in, std::string* buf, size_t* begin, size_t* end, bool* eof,
                  Status* error);

// RefillWindow, then keeps reading until the buffer is full or the input ends: a long record is
// then rescanned a bounded number of times (the buffer doubles), not once per short read of a pipe.
bool RefillWindowFull(InputStream* in, std::string* buf, size_t* begin, size_t* end, bool* eof,
                      Status* error);

// Splits an InputStream into lines ('\n'-terminated; a trailing '\r' is kept for callers that
// care), numbering them from 1. Lines longer than `max_line_bytes` are reported as an error status
// by Next() with the line number, and skipped.
class LineReader {
 public:
  LineReader(InputStream* in, size_t max_line_bytes, size_t buffer_bytes = 1 << 20);

  enum class Outcome { kLine, kEnd, kTooLong, kError };
  // On kLine, *line views the line without its '\n' (valid until the next call).
  Outcome Next(std::string_view* line);
  uint64_t line_number() const { return line_number_; }
  const Status& error() const { return error_; }

 private:
  bool Fill();
  InputStream* in_;
  size_t max_line_;
  std::string buf_;
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  uint64_t line_number_ = 0;
  Status error_;
};

}  // namespace ltl
