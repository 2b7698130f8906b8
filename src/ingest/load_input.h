// LoadInput: opens an input (file, .gz/.zst, "-" for stdin, or a directory of cache traces),
// detects its format when asked, and runs the matching reader into RequestRecords.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/request_record.h"
#include "common/skip_counter.h"
#include "common/status.h"
#include "ingest/gateway_readers.h"
#include "ingest/ingest_context.h"
#include "ingest/time_check.h"
#include "read/cctrace_reader.h"
#include "read/input_format.h"
#include "read/input_stream.h"

namespace ltl {

// One input file of a run, as report.json's input.files lists it (several files are merged by
// ingest/merge_inputs.h; a hashed shard carries its file's summary, shard/).
struct InputFileSummary {
  std::string name;  // as shown in messages and the report
  InputFormat format = InputFormat::kAuto;
  std::string encoding;
  std::string framing;  // JSON inputs: the framing (json lines, ...); "" otherwise
  uint64_t bytes = 0;
  std::string source;            // gateway logs: the source table used
  uint64_t requests = 0;         // records read (replay-only records aside)
  uint64_t filtered_status = 0;  // non-2xx rows
  uint64_t ignored = 0;          // records of another kind
  uint64_t untimed = 0;
  uint64_t implausible = 0;
  SkipCounter skipped;  // this file's skipped rows (lines are this file's)
  uint64_t rows() const { return requests + skipped.total() + filtered_status; }
};

struct LoadedInput {
  InputFormat format = InputFormat::kAuto;
  std::string encoding;               // plain | gzip | zstd | directory
  Detection detection;                // what the format was taken to be, and why
  std::string source, source_reason;  // gateway logs: the source table used, and why
  uint64_t bytes = 0;                 // bytes read from disk (compressed size for compressed input)
  std::vector<RequestRecord> records;
  // Gateway logs only (csv, jsonl).
  bool gateway = false;
  uint64_t filtered_status = 0;                         // non-2xx rows, not replayed
  std::map<std::string, uint64_t> layouts;              // template layout -> requests
  std::vector<std::string> per_request_session_fields;  // session fields ignored (never repeat)
  std::string counting;                                 // how token counts were obtained
  std::string counting_estimate;  // the estimate for requests without logged usage (counting)
  uint64_t conformed_ids = 0;  // records whose ids were fitted to logged usage (hash/conform_ids.h)
  uint64_t ignored = 0;        // records of another kind (Langfuse spans, non-LLM OTel spans)
  std::string ignored_reason;
  std::map<std::string, uint64_t> filler_values_ignored;  // per field: values seen once
  std::string first_skip_reason;
  uint64_t untimed = 0;  // records without a usable time (they take a neighbour's)
  TimeCheck times;       // implausible times dropped (counted in `untimed` too)
  // Cache traces only (cctrace).
  CctraceReadStats cctrace;
  // Gateway logs read with ctx->gateway.defer_post_pass: the post-pass input, one entry per
  // record; FinishGatewayPostPass runs it (else it has run and this is empty).
  GatewayPostPass post_pass;
  bool post_pass_pending = false;
  // The files this input was read from (one; several after MergeInputs), formats_differ when they
  // are gateway logs of more than one format (csv and jsonl).
  std::vector<InputFileSummary> files;
  bool formats_differ = false;
  // Read as a piece of a file (ReadContext::piece): its index (0 = the file's first piece, which
  // later pieces join, shard/shard.h), and the per-file time steps (implausible times dropped,
  // missing ones filled) left to the join, since they look at the whole file's times.
  uint32_t piece = 0;
  bool times_pending = false;
  bool piece_unsure = false;  // GatewayReadStats::piece_unsure (not serialised)
};

// The per-file time steps LoadInput runs after reading (left pending for a piece): implausible
// times dropped, missing ones filled, the counts in the file's summary.
void FinishFileTimes(LoadedInput* in);

// An input opened and its format decided: the stream replays the bytes detection read.
struct OpenedInput {
  std::unique_ptr<InputStream> stream;
  Detection detection;
};
// Opens `path` and reads its head until the format is decided (read/input_format.h); `format` other
// than kAuto is taken as given (JSON framing is still detected).
Result<OpenedInput> OpenAndDetect(const std::string& path, InputFormat format, IngestContext* ctx);

Result<LoadedInput> LoadInput(const std::string& path, InputFormat format, IngestContext* ctx);

// Runs a deferred gateway post-pass over in->records (no-op when none is pending).
void FinishGatewayPostPass(LoadedInput* in);

// "exact (logged usage) for N of M requests, <estimate> for the rest" and its shorter forms.
std::string CountingSentence(const std::vector<RequestRecord>& records,
                             const std::string& estimate);

// Records that are requests (not --warm-prefix replay-only records).
size_t RealRecordCount(const LoadedInput& in);
// Why an input gave no request: how many rows were skipped, failed or ignored, the first skip
// reason, and for gateway logs the flags that name fields (one line, no input text).
std::string NoRequestsMessage(const std::string& name, const LoadedInput& in,
                              const SkipCounter& skips);

}  // namespace ltl
