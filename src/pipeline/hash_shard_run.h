// HashShardRun: `hash-shard` as a library call: one log or hashed trace read into its Shard
// (shard/shard.h), written to a file when an output is given (the command line) or returned in
// memory (the Python API, the Dask workers).
#pragma once

#include <string>

#include "common/status.h"
#include "pipeline/run_setup.h"
#include "shard/shard.h"

namespace ltl {

struct HashShardSpec {
  ReadSpec read;       // one input (read.inputs: one path, or a glob matching one file)
  std::string output;  // the shard file to write; "" = none
};

struct HashShardResult {
  Shard shard;
  std::string name;              // the input as messages name it
  std::string output_path;       // the shard file written ("" = none)
  uint64_t bytes_written = 0;    // its size
  uint64_t skipped = 0;          // rows skipped
  std::string too_many_skipped;  // the --max-skip-share message ("" = within; written anyway)
};

Result<HashShardResult> HashShardRun(const HashShardSpec& spec, const RunHooks& hooks);

}  // namespace ltl
