// LoadInput: open, peek, detect, dispatch (see load_input.h).
#include "ingest/load_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <functional>

#include "hash/block_interner.h"
#include "hash/salt_file.h"
#include "ingest/gateway_readers.h"
#include "read/input_stream.h"
#include "read/postgres_input.h"
#include "read/record_boundaries.h"
#include "read/trace_readers.h"
#include "render/layout.h"
#include "tokenize/tokenizer.h"

namespace ltl {
namespace {

constexpr size_t kPeekBytes = 1 << 16;

// Records without a time take the previous timed record's time (file order), and those before the
// first timed record take its time, so no request is ever placed at the epoch (1970).
void FillMissingTimes(std::vector<RequestRecord>* records, uint64_t* untimed) {
  const RequestRecord* first_timed = nullptr;
  for (const auto& r : *records)
    if (r.has_time) {
      first_timed = &r;
      break;
    }
  if (!first_timed) return;
  double last = first_timed->time_s;
  for (auto& r : *records) {
    if (r.has_time) {
      last = r.time_s;
    } else if (!r.replay_only) {
      r.time_s = last;
      ++*untimed;
    }
  }
}

// Ids not yet interned (cache traces; the gateway readers intern while reading,
// ingest/gateway_readers.h, and Mooncake/bailian through their TakeIds) go in after reading.
// `base`: records the interner held before this input (earlier files of the run).
void InternRest(IngestContext* ctx, size_t base, std::vector<RequestRecord>* records) {
  if (!ctx->interner) return;
  for (size_t i = ctx->interner->records() - base; i < records->size(); ++i) {
    ctx->interner->Add((*records)[i].block_ids);
    std::vector<uint64_t>().swap((*records)[i].block_ids);
  }
}

Status ReadGatewayLog(const Detection& d, InputStream* in, IngestContext* ctx, LoadedInput* out) {
  auto layout = ParseLayoutName(ctx->gateway.template_name);
  if (!layout.ok()) return layout.status();
  auto salt = LoadOrCreateSalt(ctx->gateway.salt_file);
  if (!salt.ok()) return salt.status();
  if (salt->tightened && ctx->warn)
    ctx->warn(ctx->gateway.salt_file +
              ": salt file was readable by group or others; its mode is now owner-only (0600)");
  GatewayConfig config;
  config.layout = *layout;
  config.key = salt->key;
  config.block_size = ctx->block_size > 0 ? ctx->block_size : kGatewayDefaultBlockSize;
  config.tokenizer = ctx->gateway.tokenizer;
  config.models = ctx->gateway.models;
  config.on_prompt = ctx->gateway.on_prompt;
  config.reuse_prompts = ctx->gateway.reuse_prompts;
  config.durations = ctx->durations;
  config.router_views = ctx->gateway.router_views;
  config.aibrix_block_bytes = ctx->gateway.aibrix_block_bytes;
  config.lora_adapters = ctx->gateway.lora_adapters;
  GatewayReadStats stats;
  Status st = ReadGateway(in, d, ctx, config, &out->records, &stats, &out->post_pass);
  if (!st.ok()) return st;
  out->post_pass_pending = true;
  out->source = stats.source;
  out->source_reason = stats.source_reason;
  out->ignored = stats.ignored;
  out->ignored_reason = stats.ignored_reason;
  out->filler_values_ignored = std::move(stats.filler_values_ignored);
  out->first_skip_reason = stats.first_skip_reason;
  out->piece_unsure = stats.piece_unsure;
  out->conformed_ids = stats.conformed_ids;  // fitted on the workers (ingest/gateway_readers.h)
  out->gateway = true;
  out->filtered_status = stats.filtered_status;
  out->layouts = std::move(stats.layouts);
  std::string estimate = ctx->gateway.tokenizer
                             ? fmt::format("exact ({} tokenizer)", ctx->gateway.tokenizer->name())
                             : std::string("approximate (4 code points per token)");
  // --model-dir folders with a tokenizer.json: theirs for the models they serve.
  for (auto m = ctx->gateway.models.rbegin(); m != ctx->gateway.models.rend(); ++m) {
    if (!m->tokenizer) continue;
    if (m->model.empty())
      estimate = fmt::format("exact ({} tokenizer)", m->tokenizer->name());
    else
      estimate =
          fmt::format("exact for {} ({} tokenizer); {}", m->model, m->tokenizer->name(), estimate);
  }
  out->counting_estimate = estimate;
  out->counting = CountingSentence(out->records, estimate);
  return Status::Ok();
}

// After reading: times checked, missing ones filled, the gateway post-pass run (unless deferred),
// the remaining ids interned, and the file's summary.
void FinishLoad(const std::string& path, IngestContext* ctx, size_t interned_before,
                LoadedInput* out) {
  if (ctx->piece) {
    out->piece = ctx->piece->index;
    out->times_pending = true;
  } else {
    out->times = DropImplausibleTimes(&out->records, EpochNow());
    FillMissingTimes(&out->records, &out->untimed);
  }
  if (!ctx->gateway.defer_post_pass) FinishGatewayPostPass(out);
  InternRest(ctx, interned_before, &out->records);
  InputFileSummary f;
  f.name = ctx->name.empty() ? path : ctx->name;
  f.format = out->format;
  f.encoding = out->encoding;
  if (out->format == InputFormat::kJsonl) f.framing = JsonFramingName(out->detection.framing);
  f.bytes = out->bytes;
  f.source = out->source;
  f.requests = RealRecordCount(*out);
  f.filtered_status = out->filtered_status;
  f.ignored = out->ignored;
  f.untimed = out->untimed;
  f.implausible = out->times.implausible;
  if (ctx->skips) f.skipped = *ctx->skips;
  out->files.clear();
  out->files.push_back(std::move(f));
}

// A piece of a file (ctx->piece): the format must be one whose records a piece can find (a plain
// CSV or JSON-lines gateway log); the stream then holds the piece's bytes only.
Status OpenPieceOf(const std::string& path, const Detection& d, const InputStream& whole,
                   IngestContext* ctx, std::unique_ptr<InputStream>* piece_stream) {
  const bool lines = d.format == InputFormat::kJsonl && d.framing == JsonFraming::kLines;
  if (std::strcmp(whole.encoding(), "plain") != 0 || !(d.format == InputFormat::kCsv || lines))
    return Status::InvalidArgument(fmt::format(
        "{}: only a plain (uncompressed) CSV or JSON-lines gateway log is read in pieces, not "
        "this {} {} input",
        ctx->name, whole.encoding(), FormatName(d.format)));
  ctx->piece->path = path;
  auto opened = OpenPiece(*ctx->piece);
  if (!opened.ok()) return opened.status();
  *piece_stream = std::move(opened).value();
  return Status::Ok();
}

}  // namespace

void FinishFileTimes(LoadedInput* in) {
  if (!in->times_pending) return;
  in->times = DropImplausibleTimes(&in->records, EpochNow());
  in->untimed = 0;
  FillMissingTimes(&in->records, &in->untimed);
  if (in->files.size() == 1) {
    in->files.front().untimed = in->untimed;
    in->files.front().implausible = in->times.implausible;
  }
  in->times_pending = false;
}

void FinishGatewayPostPass(LoadedInput* in) {
  if (!in->post_pass_pending) return;
  GatewayPostPassStats post;
  FinishGatewayRecords(&in->records, in->post_pass, &post);
  in->per_request_session_fields = std::move(post.per_request_session_fields);
  in->filler_values_ignored = std::move(post.filler_values_ignored);
  in->post_pass = GatewayPostPass();
  in->post_pass_pending = false;
}

std::string CountingSentence(const std::vector<RequestRecord>& records,
                             const std::string& estimate) {
  size_t exact = 0;
  for (const auto& r : records) exact += r.exact_counts;
  if (exact == 0 || records.empty()) return estimate;
  if (exact == records.size()) return "exact (logged usage)";
  return fmt::format("exact (logged usage) for {} of {} requests, {} for the rest", exact,
                     records.size(), estimate);
}

Result<OpenedInput> OpenAndDetect(const std::string& path, InputFormat format, IngestContext* ctx) {
  if ((ctx->since || ctx->until) && !IsPostgresUri(path))
    return Status::InvalidArgument(fmt::format(
        "{}: --since/--until apply to PostgreSQL inputs (postgresql://...?table=NAME) only",
        ctx->name));
  auto file = [&]() -> Result<std::unique_ptr<InputStream>> {
    if (!IsPostgresUri(path)) return OpenInput(path);
    PostgresQueryOptions pg;
    pg.since = ctx->since;
    pg.until = ctx->until;
    pg.time_column =
        !ctx->gateway.time_field.empty() ? ctx->gateway.time_field : ctx->gateway.ts_column;
    return OpenPostgres(path, pg);
  }();
  if (!file.ok()) return file.status();
  std::unique_ptr<InputStream> raw = std::move(file.value());
  // Peek at the head until it decides the format: the whole first record, however long (up to
  // the record limit), so a long first line is never mistaken for another format.
  std::string head;
  size_t got = 0;
  bool at_end = false;
  size_t next_check = 0;  // rescan the head only when it has doubled: linear in the record size
  while (!at_end) {
    if (got > 0 && got >= next_check) {
      if (HeadDecides(std::string_view(head.data(), got), false)) break;
      next_check = std::max<size_t>(got * 2, 4096);
    }
    if (got >= ctx->limits.max_line_bytes) break;
    if (head.size() < got + kPeekBytes) head.resize(std::max(got + kPeekBytes, head.size() * 2));
    auto n = raw->Read(head.data() + got, head.size() - got);
    if (!n.ok()) {  // e.g. a truncated .gz shorter than the peek: name the line it stopped in
      const auto line = std::count(head.data(), head.data() + got, '\n') + 1;
      return Status::Corrupt(fmt::format("{}:{}: {}", ctx->name, line, n.status().message()));
    }
    if (*n == 0) at_end = true;
    got += *n;
  }
  head.resize(got);
  Detection detection;
  {
    auto detected = DetectFormat(head, ctx->name);
    if (format == InputFormat::kAuto) {
      if (!detected.ok()) return detected.status();
      detection = *detected;
    } else {
      detection.format = format;
      detection.reason = fmt::format("--format {}", FormatName(format));
      if (detected.ok() && format == InputFormat::kJsonl &&
          detected->format == InputFormat::kJsonl) {
        detection.framing = detected->framing;
        detection.document_key = detected->document_key;
      } else if (format == InputFormat::kJsonl && detected.ok()) {
        detection.framing =
            detected->framing == JsonFraming::kDocument ? JsonFraming::kStream : detected->framing;
      }
    }
  }
  OpenedInput opened;
  opened.detection = std::move(detection);
  opened.stream = std::make_unique<PeekedStream>(std::move(raw), std::move(head), ctx->progress);
  return opened;
}

Result<LoadedInput> LoadInput(const std::string& path, InputFormat format, IngestContext* ctx) {
  LoadedInput out;
  const size_t interned_before = ctx->interner ? ctx->interner->records() : 0;
  std::error_code dir_ec;
  if (path != "-" && std::filesystem::is_directory(path, dir_ec)) {
    // Only cache traces come as a directory (one file per conversation).
    if (format != InputFormat::kAuto && format != InputFormat::kCctrace)
      return Status::InvalidArgument(
          fmt::format("{}: is a directory, not a file", path));  // only cctrace reads directories
    out.format = InputFormat::kCctrace;
    out.encoding = "directory";
    out.detection.format = InputFormat::kCctrace;
    out.detection.reason = "a directory: one cache trace per file";
    if (ctx->on_format) ctx->on_format(out.format, ctx);
    CctraceOptions opts;
    opts.warm_prefix = ctx->cctrace_warm_prefix;
    Status st = ReadCctraceDirectory(path, opts, ctx, &out.records, &out.cctrace);
    if (!st.ok()) return st;
    out.bytes = out.cctrace.bytes;
    out.counting = "hashed trace (tokens = hash_ids x block_size)";
    FinishLoad(path, ctx, interned_before, &out);
    return out;
  }
  auto opened = OpenAndDetect(path, format, ctx);
  if (!opened.ok()) return opened.status();
  const Detection detection = opened->detection;
  format = detection.format;
  out.format = format;
  out.detection = detection;
  if (ctx->on_format) ctx->on_format(format, ctx);
  if (ctx->piece) {
    std::unique_ptr<InputStream> piece_stream;
    Status pst = OpenPieceOf(path, detection, *opened->stream, ctx, &piece_stream);
    if (!pst.ok()) return pst;
    opened->stream = std::move(piece_stream);
  }
  InputStream& in = *opened->stream;
  out.encoding = in.encoding();
  Status st;
  // Hashed traces stream their ids into the interner as each record is read (InternRest then
  // finds nothing left), so a trace's ids are never all in memory.
  TakeIds intern_ids;
  if (ctx->interner)
    intern_ids = [interner = ctx->interner](std::vector<uint64_t>* ids) {
      interner->Add(*ids);
      std::vector<uint64_t>().swap(*ids);
    };
  switch (format) {
    case InputFormat::kMooncake:
      st = ReadMooncake(&in, ctx, &out.records, intern_ids);
      break;
    case InputFormat::kBailian:
      st = ReadBailian(&in, ctx, &out.records, intern_ids);
      break;
    case InputFormat::kCctrace: {
      CctraceOptions opts;
      opts.warm_prefix = ctx->cctrace_warm_prefix;
      st = ReadCctraceStream(&in, opts, ctx, &out.records, &out.cctrace);
      out.counting = "hashed trace (tokens = hash_ids x block_size)";
      break;
    }
    case InputFormat::kCsv:
    case InputFormat::kJsonl:
      st = ReadGatewayLog(detection, &in, ctx, &out);
      break;
    default:
      return Status::InvalidArgument(
          fmt::format("{}: format '{}' is not readable yet", ctx->name, FormatName(format)));
  }
  if (!st.ok()) return st;
  out.bytes = in.raw_bytes_read();
  FinishLoad(path, ctx, interned_before, &out);
  return out;
}

size_t RealRecordCount(const LoadedInput& in) {
  size_t n = 0;
  for (const auto& r : in.records) n += !r.replay_only;
  return n;
}

std::string NoRequestsMessage(const std::string& name, const LoadedInput& in,
                              const SkipCounter& skips) {
  const uint64_t rows = skips.total() + in.filtered_status + in.ignored;
  if (rows == 0) return fmt::format("{}:1: no requests in the input", name);
  std::string why = fmt::format(
      "{}: no request could be read from {} records ({} skipped, {} "
      "failed, {} ignored)",
      name, rows, skips.total(), in.filtered_status, in.ignored);
  if (!in.first_skip_reason.empty())
    why += "; first skip: " + in.first_skip_reason;
  else if (skips.total() > 0)
    why += "; first skip: " + skips.by_reason().begin()->first;
  if (in.gateway)
    why += fmt::format(
        " (read as {}{}; --source NAME, --body-field PATH and the other --*-field "
        "options name where a log keeps its fields)",
        in.source.empty() ? FormatName(in.format) : in.source,
        in.format == InputFormat::kJsonl ? std::string(", ") + JsonFramingName(in.detection.framing)
                                         : std::string());
  return why + "; nothing was written";
}

}  // namespace ltl
