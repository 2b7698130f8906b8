// HashShardRun (see hash_shard_run.h).
#include "pipeline/hash_shard_run.h"

#include <fmt/format.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <filesystem>
#include <string_view>

#include "common/atomic_file.h"
#include "common/output_path.h"
#include "read/record_boundaries.h"
#include "shard/shard_codec.h"

namespace ltl {

Result<HashShardResult> HashShardRun(const HashShardSpec& spec, const RunHooks& hooks) {
  Result<OutputPath> out = OutputPath{};
  if (!spec.output.empty()) {
    out = ResolveOutputPath(spec.output, /*allow_stream=*/false);
    if (!out.ok()) return out.status();
  }
  auto inputs = ExpandInputs(spec.read.inputs);
  if (!inputs.ok()) return inputs.status();
  if (inputs->size() != 1)
    return Status::InvalidArgument(fmt::format(
        "{}: matches {} files; a shard holds one file (run hash-shard per file)",
        spec.read.inputs.empty() ? std::string("FILE") : spec.read.inputs.front(), inputs->size()));
  const InputName& input = inputs->front();
  if (input.path != "-" && IsShardFile(input.path))
    return Status::InvalidArgument(fmt::format("{}: is a shard already", input.name));
  RunSetup run;
  if (Status st = run.LoadModels(spec.read); !st.ok()) return st;
  if (Status st = run.LoadTokenizer(spec.read); !st.ok()) return st;
  run.MakeContext(input.name, spec.read, hooks);
  run.ctx.piece = spec.piece;
  if (!run.ctx.gateway.tokenizer && run.ctx.gateway.models.empty())
    run.ctx.read_state = spec.read_state;  // see HashShardSpec::read_state
  HashShardResult result;
  result.name = input.name;
  if (hooks.read_start) hooks.read_start(input.name);
  auto shard = HashShard(input.path, spec.read.format, &run.ctx);
#if defined(__GLIBC__)
  // The kept workers' pages stay; the rest the read freed goes back to the system, as it did when
  // the workers were freed after each call (ingest/gateway_readers.h): else a Dask worker holds
  // its tasks' freed memory from one task to the next (peak RSS +10-45 MiB a worker, measured).
  if (run.ctx.read_state) malloc_trim(0);
#endif
  if (hooks.read_done) hooks.read_done();
  if (!shard.ok()) return shard.status();
  if (Status enc = run.EncodeStatus(); !enc.ok()) return enc;
  const LoadedInput& in = shard->input;
  if (spec.piece) {  // a piece's rows are some of the file's: checked when they are joined
    result.skipped = run.skips.total();
    result.piece_unsure = in.piece_unsure;
    result.shard = std::move(shard).value();
    return result;
  }
  if (RealRecordCount(in) == 0)  // an empty shard would hide a misread file: refuse
    return Status::InvalidArgument(NoRequestsMessage(input.name, in, run.skips));
  if (!spec.output.empty()) {
    const std::string bytes = EncodeShard(*shard);
    if (Status st = WriteFileAtomically(out->path, bytes); !st.ok()) return st;
    result.output_path = out->path;
    result.bytes_written = bytes.size();
  }
  result.skipped = run.skips.total();
  result.too_many_skipped = SkipShareMessage(input.name, run.skips.total(), in.files.front().rows(),
                                             spec.read.io.max_skip_share, false);
  result.shard = std::move(shard).value();
  return result;
}

Result<std::vector<FilePiece>> PlanFilePieces(const HashShardSpec& spec, uint64_t piece_bytes) {
  auto inputs = ExpandInputs(spec.read.inputs);
  if (!inputs.ok()) return inputs.status();
  std::vector<FilePiece> none;
  if (piece_bytes == 0 || inputs->size() != 1) return none;
  const InputName& input = inputs->front();
  std::error_code ec;
  if (input.path == "-" || !std::filesystem::is_regular_file(input.path, ec) ||
      IsShardFile(input.path))
    return none;
  const uintmax_t size = std::filesystem::file_size(input.path, ec);
  if (ec || size <= OnePieceMaxBytes(piece_bytes)) return none;  // one piece: no scan
  IngestContext ctx;
  ctx.name = input.name;
  ApplyInputSettings(spec.read.io, &ctx);
  auto opened = OpenAndDetect(input.path, spec.read.format, &ctx);
  if (!opened.ok()) return none;  // the task reading it whole says what is wrong
  const Detection& d = opened->detection;
  if (std::string_view(opened->stream->encoding()) != "plain") return none;
  RecordFraming framing;
  if (d.format == InputFormat::kCsv)
    framing = RecordFraming::kCsv;
  else if (d.format == InputFormat::kJsonl && d.framing == JsonFraming::kLines)
    framing = RecordFraming::kJsonLines;
  else
    return none;
  opened->stream.reset();
  auto pieces = ScanFilePieces(input.path, framing, piece_bytes);
  if (!pieces.ok()) return pieces.status();
  if (pieces->size() < 2) return none;
  return pieces;
}

}  // namespace ltl
