// The CSV and JSONL gateway loops and the post-pass over conversations (see gateway_readers.h).
#include "ingest/gateway_readers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <numeric>
#include <span>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "common/ordered_pipeline.h"
#include "common/replay_order.h"
#include "hash/block_interner.h"
#include "hash/conform_ids.h"
#include "read/csv_reader.h"
#include "read/timestamp.h"

namespace ltl {
namespace {

std::string Lower(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Conversations from session fields whose values never repeat are per-request ids in disguise;
// those records fall back to the inferred conversation. Then turns are numbered in time order.
void PostProcess(std::vector<RequestRecord>* records, const std::vector<std::string>& inferred,
                 size_t first, GatewayReadStats* stats) {
  constexpr size_t kMinRequestsToJudge = 20;
  std::map<std::string, std::pair<size_t, std::unordered_set<std::string>>> by_field;
  for (size_t i = first; i < records->size(); ++i) {
    const RequestRecord& r = (*records)[i];
    if (r.session_field.empty() || r.conversation.empty() || r.conversation[0] != 's') continue;
    auto& f = by_field[r.session_field];
    ++f.first;
    f.second.insert(r.conversation);
  }
  std::unordered_set<std::string> per_request;
  for (const auto& [field, f] : by_field) {
    if (f.first >= kMinRequestsToJudge && f.second.size() == f.first) {
      per_request.insert(field);
      stats->per_request_session_fields.push_back(field);
    }
  }
  if (!per_request.empty())
    for (size_t i = first; i < records->size(); ++i) {
      RequestRecord& r = (*records)[i];
      if (per_request.count(r.session_field)) r.conversation = inferred[i - first];
    }
  // Turns: 1-based position within the conversation in time order (file order for ties).
  const std::span<RequestRecord> these(records->data() + first, records->size() - first);
  std::unordered_map<std::string, int> turns;
  for (uint32_t k : OrderForReplay(these).order) {  // the order they replay in
    RequestRecord& r = these[k];
    if (!r.conversation.empty()) r.turn = ++turns[r.conversation];
  }
}

// One row on its way through the pipeline: what the reader cut out of the input (as offsets into
// the batch's arena, so the batch can move between threads), then what a worker made of it.
struct Span {
  size_t offset = 0, size = 0;
};
struct RowSlot {
  uint64_t line = 0;
  std::string pre_skip;  // the reader already rejected the row (bad CSV record, too long, ...)
  Span request, response, model, status, timestamp, prompt_tokens, completion_tokens, session;
  const char* session_field = nullptr;
  // Filled by the worker.
  RowResult result = RowResult::kSkipped;
  const char* reason = nullptr;
  RequestRecord record;
  std::string inferred;
  Layout layout = Layout::kAuto;
  bool conformed = false;
};
struct RowBatch {
  std::string arena;
  std::vector<RowSlot> rows;
};

// Rows per batch and arena bytes per batch: large enough that handing a batch to a thread costs
// nothing next to its rows, small enough that a few batches in flight per thread stay small.
constexpr size_t kBatchRows = 512;
constexpr size_t kBatchBytes = 4u << 20;

unsigned Threads(unsigned asked) {
  return asked ? asked : std::max(1u, std::thread::hardware_concurrency());
}

Span Append(RowBatch* b, std::string_view s) {
  Span sp{b->arena.size(), s.size()};
  b->arena.append(s);
  return sp;
}
std::string_view View(const RowBatch& b, Span s) {
  return std::string_view(b.arena.data() + s.offset, s.size);
}

// Runs the rows of every batch through per-worker GatewayRowProcessors and hands the results to
// the reader's thread in input order (common/ordered_pipeline.h): the records, skips and stats are
// the same for any thread count.
class RowPipeline {
 public:
  RowPipeline(const GatewayConfig& config, bool csv, unsigned threads, ReadContext* ctx,
              std::vector<RequestRecord>* out, GatewayReadStats* stats)
      : csv_(csv),
        ctx_(ctx),
        out_(out),
        stats_(stats),
        procs_(MakeProcessors(config, std::max(1u, threads))),
        pipeline_(
            threads <= 1 ? 0 : threads, [this](size_t w, RowBatch& b) { Work(w, b); },
            [this](RowBatch& b) { Consume(b); }) {
    batch_.arena.reserve(kBatchBytes + (1 << 16));
  }

  RowBatch& batch() { return batch_; }
  // Submits the batch under construction once it is full (or, with force, when it has any row).
  void MaybeSubmit(bool force) {
    if (batch_.rows.empty()) return;
    if (!force && batch_.rows.size() < kBatchRows && batch_.arena.size() < kBatchBytes) return;
    pipeline_.Submit(std::move(batch_));
    batch_ = RowBatch();
    batch_.arena.reserve(kBatchBytes + (1 << 16));
  }
  void Finish() {
    MaybeSubmit(true);
    pipeline_.Finish();
  }
  std::vector<std::string>& inferred() { return inferred_; }

 private:
  static std::vector<std::unique_ptr<GatewayRowProcessor>> MakeProcessors(
      const GatewayConfig& config, unsigned n) {
    std::vector<std::unique_ptr<GatewayRowProcessor>> procs;
    for (unsigned w = 0; w < n; ++w) procs.push_back(std::make_unique<GatewayRowProcessor>(config));
    return procs;
  }

  void Work(size_t w, RowBatch& b) {
    GatewayRowProcessor& proc = *procs_[w];
    for (RowSlot& s : b.rows) {
      if (!s.pre_skip.empty()) continue;
      if (csv_) {
        GatewayCsvRow row;
        row.line = s.line;
        row.request = View(b, s.request);
        row.response = View(b, s.response);
        row.model = View(b, s.model);
        row.status = View(b, s.status);
        row.timestamp = View(b, s.timestamp);
        row.prompt_tokens = View(b, s.prompt_tokens);
        row.completion_tokens = View(b, s.completion_tokens);
        row.session_field = s.session_field;
        row.session_value = View(b, s.session);
        s.result = proc.ProcessCsv(row, &s.record, &s.reason);
      } else {
        s.result = proc.ProcessJsonLine(View(b, s.request), s.line, &s.record, &s.reason);
      }
      if (s.result == RowResult::kOk) {
        s.inferred = proc.inferred_conversation();
        s.layout = proc.layout();
        // Logged usage replaces the estimated token count but not the blocks cut by the
        // estimate: make the ids agree with the exact count (docs/EXPORT.md), so profile and
        // export replay the same.
        if (s.record.exact_counts) {
          IdAdjustment adj = ConformRecordBlockIds(&s.record);
          s.conformed = adj.extended > 0 || adj.truncated > 0;
        }
      }
    }
    b.arena = std::string();  // the text is no longer needed: free it before the batch waits
  }

  void Consume(RowBatch& b) {
    for (RowSlot& s : b.rows) {
      if (!s.pre_skip.empty()) {
        ctx_->Skip(s.pre_skip, s.line);
        continue;
      }
      switch (s.result) {
        case RowResult::kOk:
          ++stats_->layouts[LayoutName(s.layout)];
          stats_->conformed_ids += s.conformed;
          inferred_.push_back(std::move(s.inferred));
          if (ctx_->interner) {
            ctx_->interner->Add(s.record.block_ids);
            std::vector<uint64_t>().swap(s.record.block_ids);
          }
          out_->push_back(std::move(s.record));
          break;
        case RowResult::kFiltered:
          ++stats_->filtered_status;
          break;
        case RowResult::kSkipped:
          ctx_->Skip(s.reason, s.line);
          break;
      }
    }
  }

  bool csv_;
  ReadContext* ctx_;
  std::vector<RequestRecord>* out_;
  GatewayReadStats* stats_;
  std::vector<std::unique_ptr<GatewayRowProcessor>> procs_;
  std::vector<std::string> inferred_;
  RowBatch batch_;
  OrderedPipeline<RowBatch> pipeline_;  // last: its workers use the members above
};

}  // namespace

Status ReadGatewayCsv(InputStream* in, ReadContext* ctx, const GatewayConfig& config,
                      std::vector<RequestRecord>* out, GatewayReadStats* stats) {
  CsvReader csv(in, ctx->limits, ctx->limits.buffer_bytes);
  // Header.
  CsvReader::Outcome first = csv.Next();
  if (first == CsvReader::Outcome::kBad)
    return Status::InvalidArgument(fmt::format("{}:{}: unreadable CSV header: {}", ctx->name,
                                               csv.record_line(), csv.bad_reason()));
  if (first == CsvReader::Outcome::kError)
    return Status::Corrupt(fmt::format("{}:1: {}", ctx->name, csv.error().message()));
  if (first == CsvReader::Outcome::kEnd)
    return Status::InvalidArgument(fmt::format("{}:1: input is empty", ctx->name));
  std::vector<std::string> names;
  std::unordered_map<std::string, size_t> index;  // first column of each name wins
  for (std::string_view f : csv.fields()) {
    names.push_back(Lower(f));
    index.emplace(names.back(), names.size() - 1);
  }
  auto col = [&](std::initializer_list<std::string_view> candidates) -> long {
    for (std::string_view c : candidates)
      if (auto it = index.find(std::string(c)); it != index.end())
        return static_cast<long>(it->second);
    return -1;
  };
  // Header names are echoed in error messages, but a file without a header has data (prompt text)
  // in its first row: the names are printed only when every one of them looks like a column name.
  auto name_like = [](const std::string& n) {
    return !n.empty() && n.size() <= 40 &&
           n.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_.@-") == std::string::npos;
  };
  const bool header_like = std::all_of(names.begin(), names.end(), name_like);
  auto printable_name = [&](size_t i) {
    return name_like(names[i]) ? names[i] : fmt::format("<column {}>", i + 1);
  };
  auto found_list = [&] {
    if (!header_like)
      return fmt::format("{} columns; the first row does not look like a header", names.size());
    std::string s;
    for (size_t i = 0; i < names.size() && i < 30; ++i) {
      if (i) s += ", ";
      s += printable_name(i);
    }
    if (names.size() > 30) s += fmt::format(", ... ({} columns)", names.size());
    return s;
  };
  const long c_request =
      col({"request_json", "proxy_server_request", "request_body", "request", "body"});
  if (c_request < 0)
    return Status::InvalidArgument(fmt::format("{}:{}: no request_json column (found: {})",
                                               ctx->name, csv.record_line(), found_list()));
  const long c_response = col({"response_json", "response", "response_body"});
  const long c_model = col({"model_name", "model"});
  const long c_status = col({"status_code", "status"});
  const long c_prompt = col({"prompt_tokens"});
  const long c_completion = col({"completion_tokens"});
  long c_time = -1;
  if (!config.ts_column.empty()) {
    c_time = col({config.ts_column});
    if (c_time < 0)
      return Status::InvalidArgument(
          fmt::format("{}:{}: no column '{}' for --ts-column (found: {})", ctx->name,
                      csv.record_line(), config.ts_column, found_list()));
  } else {
    for (std::string_view n : TimestampColumnNames())
      if ((c_time = col({n})) >= 0) break;
  }
  std::vector<std::pair<long, const char*>> session_cols;
  for (std::string_view n : SessionHeaderNames()) {
    long c = col({n});
    if (c >= 0) session_cols.emplace_back(c, SessionHeaderField(n));
  }

  // A column the reader uses must be unambiguous: two "request_json" columns could hold different
  // bodies, and silently picking one would measure the wrong traffic.
  std::vector<long> used = {c_request, c_response,   c_model, c_status,
                            c_prompt,  c_completion, c_time};
  for (const auto& sc : session_cols) used.push_back(sc.first);
  for (long c : used) {
    if (c < 0) continue;
    for (size_t k = 0; k < names.size(); ++k) {
      if (k != static_cast<size_t>(c) && names[k] == names[static_cast<size_t>(c)])
        return Status::InvalidArgument(
            fmt::format("{}:{}: column '{}' appears more than once (columns {} and {})", ctx->name,
                        csv.record_line(), printable_name(static_cast<size_t>(c)), c + 1, k + 1));
    }
  }

  RowPipeline pipe(config, /*csv=*/true, Threads(ctx->threads), ctx, out, stats);
  const size_t first_record = out->size();
  const uint64_t header_line = csv.record_line();
  uint64_t rows = 0;
  for (;;) {
    auto outcome = csv.Next();
    if (outcome == CsvReader::Outcome::kEnd) break;
    if (outcome == CsvReader::Outcome::kError) {
      pipe.Finish();  // rows before the failure keep their skips in order
      return Status::Corrupt(
          fmt::format("{}:{}: {}", ctx->name, csv.record_line(), csv.error().message()));
    }
    ++rows;
    RowBatch& b = pipe.batch();
    RowSlot& s = b.rows.emplace_back();
    s.line = csv.record_line();
    if (outcome == CsvReader::Outcome::kBad) {
      s.pre_skip = csv.bad_reason();
    } else if (csv.fields().size() != names.size()) {
      s.pre_skip = "CSV record field count differs from the header";
    } else {
      const auto& f = csv.fields();
      auto field = [&](long c) { return c >= 0 ? Append(&b, f[c]) : Span{}; };
      s.request = field(c_request);
      s.response = field(c_response);
      s.model = field(c_model);
      s.status = field(c_status);
      s.timestamp = field(c_time);
      s.prompt_tokens = field(c_prompt);
      s.completion_tokens = field(c_completion);
      for (auto [c, name] : session_cols) {
        if (!f[c].empty()) {
          s.session_field = name;
          s.session = Append(&b, f[c]);
          break;
        }
      }
    }
    pipe.MaybeSubmit(false);
  }
  pipe.Finish();
  if (rows == 0)
    return Status::InvalidArgument(
        fmt::format("{}:{}: no rows after the header", ctx->name, header_line + 1));
  PostProcess(out, pipe.inferred(), first_record, stats);
  return Status::Ok();
}

Status ReadGatewayJsonl(InputStream* in, ReadContext* ctx, const GatewayConfig& config,
                        std::vector<RequestRecord>* out, GatewayReadStats* stats) {
  LineReader lines(in, ctx->limits.max_line_bytes, ctx->limits.buffer_bytes);
  RowPipeline pipe(config, /*csv=*/false, Threads(ctx->threads), ctx, out, stats);
  const size_t first_record = out->size();
  std::string_view line;
  for (;;) {
    auto outcome = lines.Next(&line);
    if (outcome == LineReader::Outcome::kEnd) break;
    if (outcome == LineReader::Outcome::kError) {
      pipe.Finish();
      return Status::Corrupt(
          fmt::format("{}:{}: {}", ctx->name, lines.line_number() + 1, lines.error().message()));
    }
    if (outcome == LineReader::Outcome::kTooLong) {
      RowSlot& s = pipe.batch().rows.emplace_back();
      s.line = lines.line_number();
      s.pre_skip = fmt::format("line longer than {} bytes", ctx->limits.max_line_bytes);
      pipe.MaybeSubmit(false);
      continue;
    }
    if (lines.line_number() == 1 && line.size() >= 3 && line.substr(0, 3) == "\xEF\xBB\xBF")
      line.remove_prefix(3);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    RowBatch& b = pipe.batch();
    RowSlot& s = b.rows.emplace_back();
    s.line = lines.line_number();
    s.request = Append(&b, line);
    pipe.MaybeSubmit(false);
  }
  pipe.Finish();
  PostProcess(out, pipe.inferred(), first_record, stats);
  return Status::Ok();
}

}  // namespace ltl
