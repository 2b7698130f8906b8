// Mooncake and bailian trace readers (see trace_readers.h). Both share one line loop; they differ
// in the time unit, the default block size and the conversation fields.
#include "read/trace_readers.h"

#include <fmt/format.h>

#include <unordered_map>

#include "read/json_line.h"

namespace ltl {
namespace {

enum class TraceKind { kMooncake, kBailian };

struct BailianLinks {
  std::vector<int64_t> chat_id, parent;  // parallel to the output records
};

// Parses one line into *r. Returns "" on success or the skip reason.
std::string ParseLine(TraceKind kind, JsonLineParser& parser, std::string_view line,
                      uint32_t cli_block_size, RequestRecord* r, int64_t* chat_id,
                      int64_t* parent) {
  simdjson::ondemand::object obj;
  std::string reason;
  if (!parser.Start(line, &obj, &reason)) return reason;
  bool has_ts = false, has_in = false, has_ids = false, has_chat = false;
  int64_t record_block_size = 0;
  *parent = -1;
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return "invalid JSON";
    simdjson::ondemand::value v;
    if (field.value().get(v)) return "invalid JSON";
    if (key == "timestamp") {
      double t;
      if (!ReadNumber(v, &t)) return "timestamp is not a number";
      r->time_s = kind == TraceKind::kMooncake ? t / 1000.0 : t;
      r->has_time = true;
      has_ts = true;
    } else if (key == "input_length") {
      if (!ReadCount(v, &r->input_tokens)) return "input_length is not a non-negative integer";
      has_in = true;
    } else if (key == "output_length") {
      if (!ReadCount(v, &r->output_tokens)) return "output_length is not a non-negative integer";
    } else if (key == "hash_ids") {
      if (!ReadIdArray(v, &r->block_ids, &reason)) return reason;
      has_ids = true;
    } else if (key == "block_size") {
      if (!ReadCount(v, &record_block_size) || record_block_size <= 0)
        return "block_size is not a positive integer";
      if (record_block_size > (1 << 24)) return "block_size is above the limit of 16777216 tokens";
    } else if (kind == TraceKind::kBailian && key == "chat_id") {
      if (!ReadCount(v, chat_id)) return "chat_id is not a non-negative integer";
      has_chat = true;
    } else if (kind == TraceKind::kBailian && key == "parent_chat_id") {
      int64_t p;
      if (v.get_int64().get(p) || p < -1) return "parent_chat_id is not an integer >= -1";
      *parent = p;
    } else if (kind == TraceKind::kBailian && key == "turn") {
      int64_t t;
      if (!ReadCount(v, &t)) return "turn is not a non-negative integer";
      r->turn = static_cast<int>(std::min<int64_t>(t, 1 << 30));
    } else if (kind == TraceKind::kBailian && key == "type") {
      std::string_view s;
      if (v.get_string().get(s)) return "type is not a string";
      r->type = (s == "image" || s == "file") ? std::string(s) : std::string("text");
    }
  }
  if (!has_ts) return "missing timestamp";
  if (!has_in) return "missing input_length";
  if (!has_ids) return "missing hash_ids";
  if (kind == TraceKind::kBailian && !has_chat) return "missing chat_id";
  uint32_t bs = record_block_size > 0          ? static_cast<uint32_t>(record_block_size)
                : cli_block_size > 0           ? cli_block_size
                : kind == TraceKind::kMooncake ? kMooncakeDefaultBlockSize
                                               : kBailianDefaultBlockSize;
  r->block_size = bs;
  uint64_t expect = (static_cast<uint64_t>(r->input_tokens) + bs - 1) / bs;
  if (r->block_ids.size() != expect) return "len(hash_ids) != ceil(input_length / block_size)";
  return "";
}

Status ReadTrace(TraceKind kind, InputStream* in, ReadContext* ctx, std::vector<RequestRecord>* out,
                 const TakeIds& take_ids) {
  LineReader lines(in, ctx->limits.max_line_bytes, ctx->limits.buffer_bytes);
  JsonLineParser parser;
  BailianLinks links;
  std::string_view line;
  for (;;) {
    auto outcome = lines.Next(&line);
    if (outcome == LineReader::Outcome::kEnd) break;
    if (outcome == LineReader::Outcome::kError)
      return Status::Corrupt(
          fmt::format("{}:{}: {}", ctx->name, lines.line_number() + 1, lines.error().message()));
    if (outcome == LineReader::Outcome::kTooLong) {
      ctx->Skip(fmt::format("line longer than {} bytes", ctx->limits.max_line_bytes),
                lines.line_number());
      continue;
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;  // blank line
    RequestRecord r;
    r.line = lines.line_number();
    int64_t chat_id = -1, parent = -1;
    std::string reason = ParseLine(kind, parser, line, ctx->block_size, &r, &chat_id, &parent);
    if (!reason.empty()) {
      ctx->Skip(reason, r.line);
      continue;
    }
    if (kind == TraceKind::kBailian) {
      links.chat_id.push_back(chat_id);
      links.parent.push_back(parent);
    }
    if (take_ids) take_ids(&r.block_ids);
    out->push_back(std::move(r));
  }
  if (kind == TraceKind::kBailian) {
    // Resolve each chat to the root of its parent chain (parents may appear after children).
    std::unordered_map<int64_t, int64_t> parent_of;
    parent_of.reserve(links.chat_id.size());
    for (size_t i = 0; i < links.chat_id.size(); ++i) parent_of[links.chat_id[i]] = links.parent[i];
    std::unordered_map<int64_t, int64_t> root_cache;
    for (size_t i = 0; i < links.chat_id.size(); ++i) {
      int64_t c = links.chat_id[i];
      std::vector<int64_t> path;
      int64_t root = c;
      for (size_t steps = 0; steps <= parent_of.size(); ++steps) {
        if (auto rc = root_cache.find(root); rc != root_cache.end()) {
          root = rc->second;
          break;
        }
        path.push_back(root);
        auto it = parent_of.find(root);
        if (it == parent_of.end() || it->second < 0) break;  // root, or parent not in the file
        root = it->second;
      }
      for (int64_t p : path) root_cache[p] = root;
      (*out)[out->size() - links.chat_id.size() + i].conversation = std::to_string(root);
    }
  }
  return Status::Ok();
}

}  // namespace

Status ReadMooncake(InputStream* in, ReadContext* ctx, std::vector<RequestRecord>* out,
                    const TakeIds& take_ids) {
  return ReadTrace(TraceKind::kMooncake, in, ctx, out, take_ids);
}

Status ReadBailian(InputStream* in, ReadContext* ctx, std::vector<RequestRecord>* out,
                   const TakeIds& take_ids) {
  return ReadTrace(TraceKind::kBailian, in, ctx, out, take_ids);
}

}  // namespace ltl
