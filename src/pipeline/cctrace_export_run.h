// CctraceExportRun: `export --to cctrace` as a library call: an Anthropic Messages log read into
// calls (fixed cl100k_base tokenizer, SHA-256 chain), one cache trace per conversation, the
// directory written atomically (export/cctrace_write.h), with the warnings of what was left out.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "export/cctrace_export.h"
#include "pipeline/input_settings.h"
#include "pipeline/run_setup.h"
#include "read/input_format.h"

namespace ltl {

struct CctraceExportSpec {
  std::string input;   // one Anthropic log
  std::string output;  // a new or empty directory
  InputFormat format = InputFormat::kAuto;
  uint32_t block_size = 0;  // 0 = 64
  InputSettings io;         // limits, skip tolerance, source and field overrides
  std::string data_dir = LTL_DEFAULT_DATA_DIR;  // where cl100k_base.tiktoken lives
  double split_at_gap = 0;                      // --split-at-gap SECONDS (0 = never)
  bool include_subagents = false;               // --include-subagents
  std::string salt;                             // --salt TEXT (tests only; default: random per run)
};

struct CctraceExportResult {
  CctraceExportStats stats;
  uint32_t block_size = 0;
  std::string too_many_skipped;  // the --max-skip-share message ("" = within; written anyway)
};

Result<CctraceExportResult> CctraceExportRun(const CctraceExportSpec& spec, const RunHooks& hooks);

}  // namespace ltl
