// LoadInput: opens an input (file, .gz/.zst, "-" for stdin, or a directory of cache traces),
// detects its format when asked, and runs the matching reader into RequestRecords.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/request_record.h"
#include "common/status.h"
#include "ingest/time_check.h"
#include "read/cctrace_reader.h"
#include "read/input_format.h"
#include "read/input_stream.h"
#include "read/read_context.h"

namespace ltl {

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
  uint64_t conformed_ids = 0;  // records whose ids were fitted to logged usage (hash/conform_ids.h)
  uint64_t ignored = 0;        // records of another kind (Langfuse spans, non-LLM OTel spans)
  std::string ignored_reason;
  std::map<std::string, uint64_t> filler_values_ignored;  // per field: values seen once
  std::string first_skip_reason;
  uint64_t untimed = 0;  // records without a usable time (they take a neighbour's)
  TimeCheck times;       // implausible times dropped (counted in `untimed` too)
  // Cache traces only (cctrace).
  CctraceReadStats cctrace;
};

// An input opened and its format decided: the stream replays the bytes detection read.
struct OpenedInput {
  std::unique_ptr<InputStream> stream;
  Detection detection;
};
// Opens `path` and reads its head until the format is decided (read/input_format.h); `format` other
// than kAuto is taken as given (JSON framing is still detected).
Result<OpenedInput> OpenAndDetect(const std::string& path, InputFormat format, ReadContext* ctx);

Result<LoadedInput> LoadInput(const std::string& path, InputFormat format, ReadContext* ctx);

// Records that are requests (not --warm-prefix replay-only records).
size_t RealRecordCount(const LoadedInput& in);
// Why an input gave no request: how many rows were skipped, failed or ignored, the first skip
// reason, and for gateway logs the flags that name fields (one line, no input text).
std::string NoRequestsMessage(const std::string& name, const LoadedInput& in,
                              const SkipCounter& skips);

}  // namespace ltl
