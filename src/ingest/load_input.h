// LoadInput: opens an input (file, .gz/.zst, "-" for stdin, or a directory of cache traces),
// detects its format when asked, and runs the matching reader into RequestRecords.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/request_record.h"
#include "common/status.h"
#include "read/cctrace_reader.h"
#include "read/input_format.h"
#include "read/read_context.h"

namespace ltl {

struct LoadedInput {
  InputFormat format = InputFormat::kAuto;
  std::string encoding;  // plain | gzip | zstd | directory
  uint64_t bytes = 0;    // bytes read from disk (compressed size for compressed input)
  std::vector<RequestRecord> records;
  // Gateway logs only (csv, jsonl).
  bool gateway = false;
  uint64_t filtered_status = 0;                         // non-2xx rows, not replayed
  std::map<std::string, uint64_t> layouts;              // template layout -> requests
  std::vector<std::string> per_request_session_fields;  // session fields ignored (never repeat)
  std::string counting;                                 // how token counts were obtained
  uint64_t conformed_ids = 0;  // records whose ids were fitted to logged usage (hash/conform_ids.h)
  // Cache traces only (cctrace).
  CctraceReadStats cctrace;
};

Result<LoadedInput> LoadInput(const std::string& path, InputFormat format, ReadContext* ctx);

}  // namespace ltl
