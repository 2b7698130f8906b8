// HashShardRun: `hash-shard` as a library call: one log or hashed trace read into its Shard
// (shard/shard.h), written to a file when an output is given (the command line) or returned in
// memory (the Python API, the Dask workers).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "pipeline/run_setup.h"
#include "shard/shard.h"

namespace ltl {

struct HashShardSpec {
  ReadSpec read;       // one input (read.inputs: one path, or a glob matching one file)
  std::string output;  // the shard file to write; "" = none
  // Read only this piece of the file (the Dask driver's pieces, read/record_boundaries.h): the
  // shard is then not refused for holding no request, and its skip share is not judged (both
  // are, per file, when the pieces are joined).
  std::optional<FilePiece> piece;
  // The workers of gateway reads kept from one call to the next (a Dask worker thread's tasks,
  // python/core_module.cc; ingest/gateway_readers.h), null = built and freed by this call. Used
  // only when no tokenizer and no model files are loaded: those are loaded per call, and the kept
  // workers would point at the ones of a call that ended. The caller keeps the state for calls
  // with the same options only (GatewayReadState checks the salt, block size and source itself).
  GatewayReadState* read_state = nullptr;
};

struct HashShardResult {
  Shard shard;
  std::string name;              // the input as messages name it
  std::string output_path;       // the shard file written ("" = none)
  uint64_t bytes_written = 0;    // its size
  uint64_t skipped = 0;          // rows skipped
  std::string too_many_skipped;  // the --max-skip-share message ("" = within; written anyway)
  // read.piece: the piece's end was not a record boundary of the whole file (a malformed quote
  // before it, read/record_boundaries.h): the caller reads the rest of the file from the piece's
  // start instead.
  bool piece_unsure = false;
};

Result<HashShardResult> HashShardRun(const HashShardSpec& spec, const RunHooks& hooks);

// The pieces of about piece_bytes the one input of `spec` is read in (read/record_boundaries.h):
// a plain CSV or JSON-lines gateway log is cut at record boundaries; any other input (compressed,
// another JSON framing, a hashed trace, a directory, a shard, PostgreSQL, standard input), or
// piece_bytes 0, gives no piece (read it whole).
Result<std::vector<FilePiece>> PlanFilePieces(const HashShardSpec& spec, uint64_t piece_bytes);

}  // namespace ltl
