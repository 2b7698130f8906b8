// Cache-trace reader (see cctrace_reader.h): parse each document with simdjson's DOM, turn every
// request into a RequestRecord in its context's id namespace, then lay split segments end to end.
#include "read/cctrace_reader.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <unordered_map>

#include "common/json_memory.h"
#include "read/json_line.h"

namespace ltl {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

constexpr int kMaxNesting = 8;  // sub-agents inside sub-agents, deeper is rejected

bool ReadFinite(element e, double* out) {
  return !e.get_double().get(*out) && std::isfinite(*out);
}

struct ParsedRequest {
  double t = 0;
  std::vector<uint64_t> ids;
  int64_t in = -1, out = -1;
  std::string_view model;
  int stream = -1;
  double api_time = -1;  // seconds the provider took (read with ReadContext::durations)
  bool bad_api_time = false;
};

// Returns nullptr or the fixed skip reason.
const char* ParseRequest(object o, ParsedRequest* r, bool want_api_time = false) {
  element v;
  if (o.at_key("t").get(v)) return "missing t";
  if (!ReadFinite(v, &r->t)) return "t is not a number";
  array ids;
  if (o.at_key("hash_ids").get(v)) return "missing hash_ids";
  if (v.get_array().get(ids)) return "hash_ids is not an array";
  r->ids.clear();
  for (element id : ids) {
    uint64_t u;
    int64_t i;
    if (!id.get_uint64().get(u)) {
      r->ids.push_back(u);
    } else if (!id.get_int64().get(i)) {
      return "negative hash id";
    } else {
      return "hash id is not an integer";
    }
  }
  if (!o.at_key("in").get(v) && !v.is_null() && !ReadDomCount(v, &r->in))
    return "in is not a non-negative integer";
  if (!o.at_key("out").get(v) && !v.is_null() && !ReadDomCount(v, &r->out))
    return "out is not a non-negative integer";
  std::string_view s;
  if (!o.at_key("model").get_string().get(s)) r->model = s;
  r->stream = -1;
  if (!o.at_key("type").get_string().get(s)) r->stream = s == "s" ? 1 : s == "n" ? 0 : -1;
  r->api_time = -1;
  r->bad_api_time = false;
  double api = 0;
  if (want_api_time && !o.at_key("api_time").get(v) && !v.is_null()) {
    // Negative, non-numeric or longer than a day: a bad timing, the load model stands in.
    if (ReadFinite(v, &api) && api >= 0 && api <= 86400)
      r->api_time = api;
    else
      r->bad_api_time = true;
  }
  return nullptr;
}

bool IsSubagent(object o) {
  std::string_view type;
  return !o.at_key("type").get_string().get(type) && type == "subagent";
}

int64_t CountField(object o, std::string_view key) {
  element v;
  int64_t n = 0;
  if (!o.at_key(key).get(v)) ReadDomCount(v, &n);
  return n;
}

// `abc_s12` -> ("abc", 12); anything else -> (id, 0).
std::pair<std::string, uint32_t> SplitSegment(const std::string& id) {
  size_t pos = id.rfind("_s");
  if (pos == std::string::npos || pos + 2 >= id.size() || id.size() - pos - 2 > 6) return {id, 0};
  uint32_t n = 0;
  for (size_t i = pos + 2; i < id.size(); ++i) {
    if (id[i] < '0' || id[i] > '9') return {id, 0};
    n = n * 10 + static_cast<uint32_t>(id[i] - '0');
  }
  return {id.substr(0, pos), n};
}

struct FileSpan {
  size_t first = 0, last = 0;  // record range [first, last)
  std::string base;            // conversation id without the segment suffix
  uint32_t segment = 0;
  double end = 0;    // latest time in the file, relative to its start
  size_t order = 0;  // read order
};

class Builder {
 public:
  Builder(const CctraceOptions& options, ReadContext* ctx, std::vector<RequestRecord>* out,
          CctraceReadStats* stats)
      : options_(options), ctx_(ctx), out_(out), stats_(stats) {}

  // Parses one document; a file that is not a usable trace is skipped (counted) as a whole.
  void AddFile(const std::string& name, const std::string& text) {
    const std::string saved = ctx_->name;
    ctx_->name = name;
    AddDocument(name, text);
    ctx_->name = saved;
  }

  // Lays the segments of each conversation end to end: segment k+1 starts where segment k's last
  // request was. Conversations themselves all start at time 0.
  void Finish() {
    std::map<std::string, std::vector<size_t>> by_base;
    for (size_t i = 0; i < spans_.size(); ++i) by_base[spans_[i].base].push_back(i);
    for (auto& [base, idx] : by_base) {
      std::stable_sort(idx.begin(), idx.end(),
                       [&](size_t a, size_t b) { return spans_[a].segment < spans_[b].segment; });
      double offset = 0;
      for (size_t i : idx) {
        const FileSpan& s = spans_[i];
        for (size_t r = s.first; r < s.last; ++r) (*out_)[r].time_s += offset;
        offset += s.end;
      }
    }
  }

 private:
  void AddDocument(const std::string& name, const std::string& text) {
    element doc;
    if (JsonOrOutOfMemory(parser_.parse(text).get(doc))) return Skip("trace file: invalid JSON", 1);
    object top;
    if (doc.get_object().get(top)) return Skip("trace file: not a JSON object", 1);
    array requests;
    if (top.at_key("requests").get_array().get(requests))
      return Skip("trace file: missing requests array", 1);
    int64_t bs = 0;
    element v;
    if (!top.at_key("block_size").get(v)) {
      if (!ReadDomCount(v, &bs) || bs <= 0)
        return Skip("trace file: block_size is not a positive integer", 1);
      if (bs > (1 << 24))  // issue 35, item 19: 2^31 was called "not a positive integer"
        return Skip("trace file: block_size is above the limit of 16777216 tokens", 1);
    } else if (ctx_->block_size > 0) {
      bs = ctx_->block_size;
    } else {
      return Skip("trace file: missing block_size", 1);
    }
    CctraceConversation conv;
    conv.key = fmt::format("cc{}", stats_->conversations.size());
    std::string_view id;
    if (!top.at_key("id").get_string().get(id) && !id.empty()) {
      conv.id.assign(id);
    } else {
      conv.id = std::filesystem::path(name).filename().string();
    }
    conv.file = name;
    auto [base, segment] = SplitSegment(conv.id);
    conv.segment = segment;

    FileSpan span;
    span.first = out_->size();
    span.base = base;
    span.segment = segment;
    span.order = spans_.size();
    Context c;
    c.block_size = static_cast<uint32_t>(bs);
    c.conversation = &conv;
    ReplayContext(requests, top, c, /*start=*/0, /*depth=*/0, /*position=*/0);
    span.last = out_->size();
    for (size_t r = span.first; r < span.last; ++r)
      span.end = std::max(span.end, (*out_)[r].time_s);
    spans_.push_back(std::move(span));
    ++stats_->files;
    stats_->conversations.push_back(std::move(conv));
  }

  struct Context {
    uint32_t block_size = 0;
    CctraceConversation* conversation = nullptr;
  };

  // Replays one cache context: the parent conversation (depth 0) or a sub-agent (depth >= 1).
  // `holder` is the object holding `requests` (for tool_tokens / system_tokens); `start` the
  // context's start time in the file's clock; `position` the top-level entry for depth >= 1.
  void ReplayContext(array requests, object holder, const Context& c, double start, int depth,
                     uint64_t position) {
    std::unordered_map<uint64_t, uint64_t> ids;  // this context's namespace
    const bool sub = depth > 0;
    auto reason = [sub](const char* r) {
      return sub ? fmt::format("sub-agent request: {}", r) : std::string(r);
    };
    double prev = start;
    ParsedRequest req;

    if (options_.warm_prefix) {
      const int64_t warm =
          (CountField(holder, "tool_tokens") + CountField(holder, "system_tokens")) / c.block_size;
      for (element e : requests) {
        object o;
        if (e.get_object().get(o) || IsSubagent(o) || ParseRequest(o, &req)) continue;
        if (warm > 0 && !req.ids.empty()) {
          RequestRecord w;
          w.replay_only = true;
          w.subagent = sub;
          w.time_s = start;
          w.has_time = true;
          w.block_size = c.block_size;
          w.conversation = c.conversation->key;
          size_t n = std::min<size_t>(static_cast<size_t>(warm), req.ids.size());
          for (size_t j = 0; j < n; ++j) w.block_ids.push_back(Global(ids, req.ids[j]));
          w.input_tokens = static_cast<int64_t>(n) * c.block_size;
          stats_->warm_blocks += n;
          out_->push_back(std::move(w));
        }
        break;
      }
    }

    uint64_t index = 0;
    for (element e : requests) {
      ++index;
      const uint64_t pos = sub ? position : index;
      object o;
      if (e.get_object().get(o)) {
        Skip(reason("request is not a JSON object"), pos);
        continue;
      }
      if (IsSubagent(o)) {
        if (depth + 1 > kMaxNesting) {
          Skip("sub-agents nested too deeply", pos);
          continue;
        }
        element tv;
        double t = 0;
        if (o.at_key("t").get(tv)) {
          Skip(reason("sub-agent without t"), pos);
          continue;
        }
        if (!ReadFinite(tv, &t)) {
          Skip(reason("sub-agent t is not a number"), pos);
          continue;
        }
        array inner;
        if (o.at_key("requests").get_array().get(inner)) {
          Skip(reason("sub-agent without requests array"), pos);
          continue;
        }
        ++stats_->subagents;
        ++c.conversation->subagents;
        // A sub-agent starts at its spawn time; it never starts before the parent's previous
        // request (the file lists it in replay order).
        ReplayContext(inner, o, c, std::max(prev, start + t), depth + 1, pos);
        continue;
      }
      if (const char* r = ParseRequest(o, &req, ctx_->durations)) {
        Skip(reason(r), pos);
        continue;
      }
      RequestRecord rec;
      rec.line = pos;
      rec.time_s = std::max(prev, start + req.t);  // keep the file's order within a context
      prev = rec.time_s;
      rec.has_time = true;
      rec.block_size = c.block_size;
      rec.block_ids.reserve(req.ids.size());
      for (uint64_t id : req.ids) rec.block_ids.push_back(Global(ids, id));
      rec.input_tokens = static_cast<int64_t>(req.ids.size()) * c.block_size;
      rec.output_tokens = req.out;
      rec.duration_s = req.api_time;
      rec.bad_duration = req.bad_api_time;
      rec.model.assign(req.model);
      rec.stream = req.stream;
      rec.conversation = c.conversation->key;
      rec.session_field = "cctrace file";
      rec.subagent = sub;
      rec.exact_counts = true;
      rec.provider.shared_prefix_tokens = static_cast<uint32_t>(std::clamp<int64_t>(
          CountField(holder, "tool_tokens") + CountField(holder, "system_tokens"), 0, UINT32_MAX));
      (sub ? stats_->subagent_in : stats_->parent_in) += std::max<int64_t>(req.in, 0);
      (sub ? stats_->subagent_out : stats_->parent_out) += std::max<int64_t>(req.out, 0);
      out_->push_back(std::move(rec));
    }
  }

  uint64_t Global(std::unordered_map<uint64_t, uint64_t>& ids, uint64_t local) {
    auto [it, inserted] = ids.emplace(local, next_id_);
    if (inserted) ++next_id_;
    return it->second;
  }

  void Skip(const std::string& reason, uint64_t position) { ctx_->Skip(reason, position); }

  CctraceOptions options_;
  ReadContext* ctx_;
  std::vector<RequestRecord>* out_;
  CctraceReadStats* stats_;
  simdjson::dom::parser parser_;
  std::vector<FileSpan> spans_;
  uint64_t next_id_ = 1;
};

// Reads a whole stream into *text; false (and a skip) when it is larger than the line limit.
Status Slurp(InputStream* in, size_t limit, std::string* text, bool* too_large) {
  *too_large = false;
  text->clear();
  char buf[1 << 16];
  for (;;) {
    auto n = in->Read(buf, sizeof buf);
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    if (text->size() + *n > limit) {
      *too_large = true;
      return Status::Ok();
    }
    text->append(buf, *n);
  }
  return Status::Ok();
}

bool IsTraceFileName(const std::string& name) {
  auto ends = [&](std::string_view s) {
    return name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return name[0] != '.' && (ends(".json") || ends(".json.gz") || ends(".json.zst"));
}

}  // namespace

Status ReadCctraceStream(InputStream* in, const CctraceOptions& options, ReadContext* ctx,
                         std::vector<RequestRecord>* out, CctraceReadStats* stats) {
  std::string text;
  bool too_large = false;
  Status st = Slurp(in, ctx->limits.max_line_bytes, &text, &too_large);
  if (!st.ok()) return Status::Corrupt(fmt::format("{}: {}", ctx->name, st.message()));
  stats->bytes += in->raw_bytes_read();
  Builder b(options, ctx, out, stats);
  if (too_large)
    ctx->Skip(fmt::format("trace file larger than {} bytes", ctx->limits.max_line_bytes), 1);
  else
    b.AddFile(ctx->name, text);
  b.Finish();
  return Status::Ok();
}

Status ReadCctraceDirectory(const std::string& dir, const CctraceOptions& options, ReadContext* ctx,
                            std::vector<RequestRecord>* out, CctraceReadStats* stats) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::string> names;
  // A trace-named entry that cannot be read is a skipped row of its own (named, counted), never an
  // abort and never silent: a symbolic link loop, a dangling link, a file that cannot be opened,
  // truncated or corrupt compressed data.
  auto skip_file = [&](const std::string& path, const std::string& reason) {
    const std::string saved = ctx->name;
    ctx->name = path;
    ctx->Skip(reason, 1);
    ctx->name = saved;
  };
  std::vector<std::pair<std::string, std::string>> unreadable;  // (name, reason), listed first
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    std::error_code type_ec;
    const bool regular = it->is_regular_file(type_ec);
    if (type_ec) {  // stat failed: the entry cannot be followed
      std::error_code link_ec;
      const bool link = it->is_symlink(link_ec);
      if (type_ec == std::errc::too_many_symbolic_link_levels)
        unreadable.emplace_back(name, "trace directory entry is a symbolic link loop");
      else if (link && type_ec == std::errc::no_such_file_or_directory)
        unreadable.emplace_back(name, "trace directory entry is a dangling symbolic link");
      else
        unreadable.emplace_back(name, "trace directory entry cannot be examined");
      continue;
    }
    if (!regular) continue;
    if (IsTraceFileName(name))
      names.push_back(name);
    else
      ++stats->ignored_files;
  }
  if (ec) return Status::IoError(fmt::format("{}: cannot list directory: {}", dir, ec.message()));
  std::sort(names.begin(), names.end());
  std::sort(unreadable.begin(), unreadable.end());
  for (const auto& [name, reason] : unreadable) skip_file((fs::path(dir) / name).string(), reason);
  if (names.empty() && unreadable.empty())
    return Status::InvalidArgument(fmt::format(
        "{}: is a directory without cache trace files (*.json, *.json.gz, *.json.zst)", dir));
  Builder b(options, ctx, out, stats);
  std::string text;
  for (const std::string& name : names) {
    const std::string path = (fs::path(dir) / name).string();
    auto opened = OpenInput(path);
    if (!opened.ok()) {
      skip_file(path, "trace file cannot be opened");
      continue;
    }
    bool too_large = false;
    Status st = Slurp(opened->get(), ctx->limits.max_line_bytes, &text, &too_large);
    stats->bytes += opened.value()->raw_bytes_read();
    if (!st.ok()) {  // truncated or corrupt gzip/zstd, or a read error
      skip_file(path, "trace file truncated, corrupt or unreadable");
      continue;
    }
    if (too_large) {
      skip_file(path, fmt::format("trace file larger than {} bytes", ctx->limits.max_line_bytes));
      continue;
    }
    b.AddFile(path, text);
  }
  b.Finish();
  return Status::Ok();
}

}  // namespace ltl
