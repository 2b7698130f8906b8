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
#include "read/trace_readers.h"
#include "render/layout.h"
#include "tokenize/tokenizer.h"

namespace ltl {
namespace {

constexpr size_t kPeekBytes = 1 << 16;

// The hashed-trace readers hand over whole records: their ids are interned after reading (the
// gateway readers intern while reading, ingest/gateway_readers.h).
void InternRest(ReadContext* ctx, std::vector<RequestRecord>* records) {
  if (!ctx->interner) return;
  for (size_t i = ctx->interner->records(); i < records->size(); ++i) {
    ctx->interner->Add((*records)[i].block_ids);
    std::vector<uint64_t>().swap((*records)[i].block_ids);
  }
}

Status ReadGateway(InputFormat format, InputStream* in, ReadContext* ctx, LoadedInput* out) {
  auto layout = ParseLayoutName(ctx->gateway.template_name);
  if (!layout.ok()) return layout.status();
  auto salt = LoadOrCreateSalt(ctx->gateway.salt_file);
  if (!salt.ok()) return salt.status();
  GatewayConfig config;
  config.layout = *layout;
  config.key = salt->key;
  config.block_size = ctx->block_size > 0 ? ctx->block_size : kGatewayDefaultBlockSize;
  config.tokenizer = ctx->gateway.tokenizer;
  config.on_prompt = ctx->gateway.on_prompt;
  for (char c : ctx->gateway.ts_column)
    config.ts_column.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  GatewayReadStats stats;
  Status st = format == InputFormat::kCsv
                  ? ReadGatewayCsv(in, ctx, config, &out->records, &stats)
                  : ReadGatewayJsonl(in, ctx, config, &out->records, &stats);
  if (!st.ok()) return st;
  out->conformed_ids = stats.conformed_ids;  // fitted on the workers (ingest/gateway_readers.h)
  out->gateway = true;
  out->filtered_status = stats.filtered_status;
  out->layouts = std::move(stats.layouts);
  out->per_request_session_fields = std::move(stats.per_request_session_fields);
  size_t exact = 0;
  for (const auto& r : out->records) exact += r.exact_counts;
  const std::string estimate =
      ctx->gateway.tokenizer ? fmt::format("exact ({} tokenizer)", ctx->gateway.tokenizer->name())
                             : std::string("approximate (4 code points per token)");
  if (exact == 0 || out->records.empty())
    out->counting = estimate;
  else if (exact == out->records.size())
    out->counting = "exact (logged usage)";
  else
    out->counting = fmt::format("exact (logged usage) for {} of {} requests, {} for the rest",
                                exact, out->records.size(), estimate);
  return Status::Ok();
}

}  // namespace

Result<LoadedInput> LoadInput(const std::string& path, InputFormat format, ReadContext* ctx) {
  LoadedInput out;
  std::error_code dir_ec;
  if (path != "-" && std::filesystem::is_directory(path, dir_ec)) {
    // Only cache traces come as a directory (one file per conversation).
    if (format != InputFormat::kAuto && format != InputFormat::kCctrace)
      return Status::InvalidArgument(
          fmt::format("{}: is a directory, not a file", path));  // only cctrace reads directories
    out.format = InputFormat::kCctrace;
    out.encoding = "directory";
    if (ctx->on_format) ctx->on_format(out.format, ctx);
    CctraceOptions opts;
    opts.warm_prefix = ctx->cctrace_warm_prefix;
    Status st = ReadCctraceDirectory(path, opts, ctx, &out.records, &out.cctrace);
    if (!st.ok()) return st;
    InternRest(ctx, &out.records);
    out.bytes = out.cctrace.bytes;
    out.counting = "hashed trace (tokens = hash_ids x block_size)";
    return out;
  }
  auto opened = OpenInput(path);
  if (!opened.ok()) return opened.status();
  std::unique_ptr<InputStream> raw = std::move(opened.value());
  // Peek at the head: up to the first newline past kPeekBytes is not needed, 64 KiB decides.
  std::string head;
  head.resize(kPeekBytes);
  size_t got = 0;
  while (got < head.size()) {
    auto n = raw->Read(head.data() + got, head.size() - got);
    if (!n.ok()) {  // e.g. a truncated .gz shorter than the peek: name the line it stopped in
      const auto line = std::count(head.data(), head.data() + got, '\n') + 1;
      return Status::Corrupt(fmt::format("{}:{}: {}", ctx->name, line, n.status().message()));
    }
    if (*n == 0) break;
    got += *n;
  }
  head.resize(got);
  if (format == InputFormat::kAuto) {
    auto detected = DetectFormat(head, ctx->name);
    if (!detected.ok()) return detected.status();
    format = *detected;
  }
  out.format = format;
  if (ctx->on_format) ctx->on_format(format, ctx);
  PeekedStream in(std::move(raw), std::move(head), ctx->progress);
  out.encoding = in.encoding();
  Status st;
  switch (format) {
    case InputFormat::kMooncake:
      st = ReadMooncake(&in, ctx, &out.records);
      break;
    case InputFormat::kBailian:
      st = ReadBailian(&in, ctx, &out.records);
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
      st = ReadGateway(format, &in, ctx, &out);
      break;
    default:
      return Status::InvalidArgument(
          fmt::format("{}: format '{}' is not readable yet", ctx->name, FormatName(format)));
  }
  if (!st.ok()) return st;
  InternRest(ctx, &out.records);
  out.bytes = in.raw_bytes_read();
  return out;
}

}  // namespace ltl
