// ReadContext: what every reader needs besides the bytes — the input's display name, limits,
// the block size asked for on the command line, and the sink for skipped rows and warnings. The
// gateway logs' options (templates, tokenizer, interner) are ingest's: ingest/ingest_context.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/skip_counter.h"
#include "read/input_format.h"

namespace ltl {

struct ReadLimits {
  size_t max_line_bytes = 256ull << 20;  // longest JSONL line / CSV record accepted
  size_t max_field_bytes = 64ull << 20;  // longest CSV field accepted (raw bytes)
  size_t buffer_bytes = 1 << 20;         // initial read buffer; grows up to the limits above
};

// A byte range of one plain CSV or JSON-lines gateway log read as a task of its own (the Dask
// driver's pieces, read/record_boundaries.h): [begin, end) starts at a record boundary, and the
// records read are those that start in it; first_line is the 1-based line number of byte `begin`
// in the whole file. A piece after the first takes the CSV header, or the first JSON record that
// decides the source, from the file's start. Its records, lines and skips are those the whole
// file's read gives in that range (shard/shard.h joins the pieces of a file).
struct FilePiece {
  uint64_t begin = 0, end = 0;
  uint64_t first_line = 1;
  uint32_t index = 0;  // 0 = the file's first piece
  bool last = false;   // the file's last piece (ends at its end)
  std::string path;    // the file (set by LoadInput)
};

struct ReadContext {
  std::string name;                  // file name as given by the user (for messages)
  uint32_t block_size = 0;           // --block-size; 0 = the format's default
  bool cctrace_warm_prefix = false;  // cctrace: --warm-prefix (see read/cctrace_reader.h)
  // Read each request's in-flight time from the log (RequestRecord::duration_s): asked only by the
  // analyses that need it (--engine, --workers), so other runs do no extra work per row.
  bool durations = false;
  ReadLimits limits;
  // Gateway logs: threads that parse, render and hash rows (--threads; 1 = all on the reading
  // thread; 0 = all cores). Results are the same for every value (ingest/gateway_readers.h).
  unsigned threads = 1;
  // --since/--until (seconds since the epoch): PostgreSQL inputs put them into the query's WHERE
  // on the time column (read/postgres_input.h); other inputs refuse them.
  std::optional<double> since, until;
  SkipCounter* skips = nullptr;
  std::optional<FilePiece> piece;  // read only this piece of the file (none = the whole file)
  size_t max_warnings = 10;        // warnings printed per run; the rest are only counted
  std::function<void(const std::string&)> warn;  // prints one line; null = silent
  // Called by LoadInput once the format is known (detected or given), before any row is read, so a
  // command can pick settings that depend on it (export reads a hashed trace at the trace's own
  // block size but chunks a gateway log at the export's). Null = nothing to adjust.
  std::function<void(InputFormat, ReadContext*)> on_format;
  // Called as the input is consumed: raw bytes read so far and the file's size (0 = unknown).
  std::function<void(uint64_t bytes_read, uint64_t total_bytes)> progress;  // null = none

  // Counts a skipped row and prints "FILE:LINE: reason" for the first few.
  void Skip(const std::string& reason, uint64_t line) {
    if (skips) skips->Add(reason, line);
    if (warn && warned_ < max_warnings) {
      warn(name + ":" + std::to_string(line) + ": " + reason + " (row skipped)");
      ++warned_;
    }
  }

 private:
  size_t warned_ = 0;
};

}  // namespace ltl
