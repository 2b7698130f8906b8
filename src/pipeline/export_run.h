// ExportRun: `export --to mooncake|bailian` as a library call: every input (logs, hashed traces,
// shards) read through the one loader, merged, and written as an anonymized replay trace
// (export/export_trace.h), with the warnings a replay tool's user needs (block size, fitted ids,
// filtered rows, missing output lengths and times).
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "export/export_trace.h"
#include "pipeline/run_setup.h"

namespace ltl {

struct ExportSpec {
  ReadSpec read;  // read.block_size: the exported block size (0 = the target's default)
  ExportTarget target = ExportTarget::kMooncake;
  uint32_t trace_block_size = 0;  // hashed inputs without a block_size field; 0 = format default
  bool dense_ids = false;
  bool absolute_time = false;
  int64_t default_output_length = 256;
  std::string output;  // a file (written atomically), "-" or another stream
};

struct ExportResult {
  ExportOptions options;  // as written (the block size chosen)
  ExportStats stats;
  bool to_stdout = false;        // the trace went to standard output
  std::string too_many_skipped;  // the --max-skip-share message ("" = within; written anyway)
};

Result<ExportResult> ExportRun(ExportSpec spec, const RunHooks& hooks);

}  // namespace ltl
