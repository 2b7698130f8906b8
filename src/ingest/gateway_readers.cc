// The CSV and JSON gateway loops and the post-pass over conversations (see gateway_readers.h).
#include "ingest/gateway_readers.h"

#include <fmt/format.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <span>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "common/ascii.h"
#include "common/huge_pages.h"
#include "common/ordered_pipeline.h"
#include "common/replay_order.h"
#include "hash/block_interner.h"
#include "hash/conform_ids.h"
#include "ingest/facts_sharer.h"
#include "read/csv_reader.h"
#include "read/timestamp.h"

namespace ltl {
namespace {

std::string Lower(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return AsciiLowered(s);
}

// Inferred conversations, in replay order: a request continues the latest earlier request whose
// whole message list is the list before one of its assistant messages (the longest first), else
// it starts a conversation of its own, so equal prompts are never one conversation
// (ConversationLinks, docs/SEMANTICS.md). Returns the key per record ("" when the body had no
// message list).
std::vector<std::string> InferConversations(std::span<const RequestRecord> these,
                                            const std::vector<ConversationLinks>& links) {
  std::vector<std::string> key(these.size());
  std::unordered_map<uint64_t, uint32_t> latest;  // whole message list -> conversation number
  uint32_t next = 0;
  for (uint32_t k : OrderForReplay(these).order) {
    const ConversationLinks& l = links[k];
    if (!l.known) continue;
    uint32_t conv = UINT32_MAX;
    for (uint64_t p : l.parents) {
      auto it = latest.find(p);
      if (it != latest.end()) {
        conv = it->second;
        break;
      }
    }
    if (conv == UINT32_MAX) conv = next++;
    latest[l.own] = conv;
    key[k] = fmt::format("p{:08x}", conv);
  }
  return key;
}

// Filler ids first: a value of a field the tool fills per request (LiteLLM's session_id, ...) is a
// session only when it repeats, and never replaces a real id found in the headers or the body.
// Then session fields whose values never repeat are per-request ids in disguise; those records
// fall back to the inferred conversation. Then turns are numbered in time order.
void PostProcess(std::vector<RequestRecord>* records, const std::vector<ConversationLinks>& links,
                 const std::vector<Filler>& fillers, size_t first, GatewayPostPassStats* stats) {
  const std::vector<std::string> inferred = InferConversations(
      std::span<const RequestRecord>(records->data() + first, records->size() - first), links);
  for (size_t i = first; i < records->size(); ++i) {
    RequestRecord& r = (*records)[i];
    if (r.conversation.empty()) r.conversation = inferred[i - first];
  }
  std::unordered_map<std::string, uint32_t> filler_count;
  for (const Filler& f : fillers)
    if (!f.key.empty()) ++filler_count[f.key];
  for (size_t i = first; i < records->size(); ++i) {
    const Filler& f = fillers[i - first];
    if (f.key.empty()) continue;
    RequestRecord& r = (*records)[i];
    if (filler_count[f.key] < 2) {
      ++stats->filler_values_ignored[f.field];
      continue;
    }
    if (!r.session_field.empty() && !r.conversation.empty() && r.conversation[0] == 's') continue;
    r.session_field = f.field;
    r.conversation = f.key;
  }
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
  bool escaped = false;  // a raw CSV cell: its doubled quotes are removed on the worker
};
struct RowSlot {
  uint64_t line = 0;
  std::string pre_skip;   // the reader already rejected the row (bad CSV record, too long, ...)
  Span record;            // JSON: the record
  size_t first_cell = 0;  // CSV: the used columns (CsvLayout::used order), in RowBatch::cells
  size_t cell_count = 0;
  // Filled by the worker.
  RowResult result = RowResult::kSkipped;
  const char* reason = nullptr;
  RequestRecord record_out;
  ConversationLinks links;
  Filler filler;
  const std::string* rendered_by = nullptr;  // the processor's label (layout or chat template)
  bool conformed = false;
};
struct RowBatch {
  uint64_t raw_read = 0;  // bytes of the input read when the batch was submitted
  std::string arena;
  std::vector<RowSlot> rows;
  std::vector<Span> cells;
};

// Rows per batch and arena bytes per batch: large enough that handing a batch to a thread costs
// nothing next to its rows, small enough that a few batches in flight per thread stay small.
constexpr size_t kBatchRows = 512;
constexpr size_t kBatchBytes = 4u << 20;
constexpr size_t kMaxSpareArenas = 8;

// Gives the pages of freed memory back to the system: the read's workers allocated it on their
// threads, in heaps the analysis after the read would not reuse, so it stayed in the peak RSS
// (issue 30).
void TrimHeap() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

unsigned Threads(unsigned asked) {
  return asked ? asked : std::max(1u, std::thread::hardware_concurrency());
}

Span Append(RowBatch* b, std::string_view s, bool escaped = false) {
  Span sp{b->arena.size(), s.size(), escaped};
  b->arena.append(s);
  return sp;
}
std::string_view View(const RowBatch& b, Span s) {
  return std::string_view(b.arena.data() + s.offset, s.size);
}

// Runs the rows of every batch through per-worker GatewayRowProcessors and hands the results to
// the reader's thread in input order (common/ordered_pipeline.h): the records, skips and stats are
// the same for any thread count.
}  // namespace

class RowPipeline : public GatewayRecordSink, public CsvReader::BufferHandoff {
 public:
  RowPipeline(const GatewayConfig& config, const CsvLayout* layout, unsigned threads,
              IngestContext* ctx, const InputStream* in, std::vector<RequestRecord>* out,
              GatewayReadStats* stats)
      : layout_(layout),
        ctx_(ctx),
        in_(in),
        out_(out),
        first_record_(out->size()),
        first_blocks_(ctx->interner ? ctx->interner->distinct_blocks() : 0),
        stats_(stats),
        procs_(MakeProcessors(config, std::max(1u, threads))),
        unescaped_(std::max(1u, threads)),
        cells_(std::max(1u, threads)),
        pipeline_(
            threads <= 1 ? 0 : threads,
            [this](size_t w, RowBatch& b, size_t row) { WorkRow(w, b, b.rows[row]); },
            [this](size_t, RowBatch& b) { Recycle(b); }, [this](RowBatch& b) { Consume(b); },
            MaxInFlight(layout, threads)) {}

  RowBatch& batch() { return batch_; }
  // Submits the batch under construction once it is full (or, with force, when it has any row).
  void MaybeSubmit(bool force) {
    if (batch_.rows.empty()) return;
    if (in_place_ && !force) return;  // the rows are in the reader's buffer until it is given
    if (!force && batch_.rows.size() < kBatchRows && batch_.arena.size() < kBatchBytes) return;
    batch_.raw_read = in_ ? in_->raw_bytes_read() : 0;
    const size_t rows = batch_.rows.size();
    pipeline_.Submit(std::move(batch_), rows);  // row by row, by every worker (ordered_pipeline.h)
    batch_ = RowBatch();  // the arena grows as rows arrive: a short input never pays for 4 MiB
    // The row and cell lists of a consumed batch, with their capacity (Consume, this thread).
    if (!spare_rows_.empty()) {
      batch_.rows = std::move(spare_rows_.back());
      batch_.cells = std::move(spare_cells_.back());
      spare_rows_.pop_back();
      spare_cells_.pop_back();
    }
    if (in_place_) return;  // the next batch's rows come in the reader's next buffer
    std::lock_guard<std::mutex> lock(spare_mu_);
    if (!spare_arenas_.empty()) {
      batch_.arena = std::move(spare_arenas_.back());
      spare_arenas_.pop_back();
      batch_.arena.clear();  // a CSV reader's buffer kept from an earlier file holds its bytes
    }
  }
  void Finish() {
    MaybeSubmit(true);
    pipeline_.Finish();
  }
  // Points workers kept from the run's previous file (GatewayReadState) at the next one: what a
  // read collects starts afresh; the processors, threads, scratch and spare buffers stay. The
  // previous read's Finish left no batch in flight and its links and fillers were taken.
  void Rebind(const CsvLayout* layout, IngestContext* ctx, const InputStream* in,
              std::vector<RequestRecord>* out, GatewayReadStats* stats) {
    layout_ = layout;
    ctx_ = ctx;
    in_ = in;
    out_ = out;
    first_record_ = out->size();
    first_blocks_ = ctx->interner ? ctx->interner->distinct_blocks() : 0;
    stats_ = stats;
    links_.clear();
    fillers_.clear();
    facts_ = FactsSharer();  // a store per read: its records share it (ingest/facts_sharer.h)
    batch_.arena = std::string();
    in_place_ = false;
  }
  std::vector<ConversationLinks>& links() { return links_; }
  std::vector<Filler>& fillers() { return fillers_; }

  void Row(uint64_t line, const std::vector<std::string_view>* cells,
           std::string_view record) override {
    RowBatch& b = batch();
    RowSlot& s = b.rows.emplace_back();
    s.line = line;
    if (cells) {
      s.first_cell = b.cells.size();
      s.cell_count = cells->size();
      for (std::string_view c : *cells) b.cells.push_back(Append(&b, c));
    } else {
      s.record = Append(&b, record);
    }
    MaybeSubmit(false);
  }
  // The cells as the CSV reader found them, where it read them: the batch takes the reader's
  // buffer when the reader gives it (Give), so the bytes are never copied; the worker unescapes.
  void RawRow(uint64_t line, const char* buffer,
              const std::vector<CsvReader::RawField>& cells) override {
    in_place_ = true;
    RowBatch& b = batch();
    RowSlot& s = b.rows.emplace_back();
    s.line = line;
    s.first_cell = b.cells.size();
    s.cell_count = cells.size();
    for (const CsvReader::RawField& c : cells)
      b.cells.push_back(
          Span{static_cast<size_t>(c.bytes.data() - buffer), c.bytes.size(), c.escaped});
  }
  CsvReader::BufferHandoff* handoff() override { return this; }
  std::string Take() override {
    std::lock_guard<std::mutex> lock(spare_mu_);
    if (spare_arenas_.empty()) return std::string();
    std::string a = std::move(spare_arenas_.back());
    spare_arenas_.pop_back();
    return a;
  }
  void Give(std::string full) override {
    if (batch_.rows.empty()) {
      std::lock_guard<std::mutex> lock(spare_mu_);
      if (spare_arenas_.size() < kMaxSpareArenas) spare_arenas_.push_back(std::move(full));
      return;
    }
    batch_.arena = std::move(full);
    MaybeSubmit(true);
  }
  void Begin(const GatewayConfig&, const CsvLayout*) override {}
  void PreSkip(std::string reason, uint64_t line) override {
    RowSlot& s = batch().rows.emplace_back();
    s.line = line;
    s.pre_skip = std::move(reason);
    MaybeSubmit(false);
  }

 private:
  // Batches in flight. A CSV batch holds one of the reader's buffers (1 MiB by default) until
  // its rows are done, and the workers share the oldest batch row by row, so a batch for each
  // worker and two ahead keep them busy: the pipeline's default (4 per worker + 2) held ~12 MiB
  // of buffers at two threads, each faulted in once (issue 30). JSON batches copy their rows into
  // arenas that are reused (Recycle) and keep the default.
  static size_t MaxInFlight(const CsvLayout* layout, unsigned threads) {
    return layout && threads > 1 ? threads + 2 : 0;
  }

  static std::vector<std::unique_ptr<GatewayRowProcessor>> MakeProcessors(
      const GatewayConfig& config, unsigned n) {
    std::vector<std::unique_ptr<GatewayRowProcessor>> procs;
    // One memory of conversations for all workers (gateway_row.h): a conversation's turns land on
    // any worker, and each turn continues from its last one wherever that was cut. The first
    // processor's stores hold the whole budget the workers share.
    for (unsigned w = 0; w < n; ++w)
      procs.push_back(w == 0 ? std::make_unique<GatewayRowProcessor>(config)
                             : std::make_unique<GatewayRowProcessor>(config, *procs[0]));
    return procs;
  }

  // One row, on worker w. The workers share a batch, each taking its next row (OrderedPipeline's
  // parts): a row may only touch its own slot, the batch's text and cells, and w's state.
  void WorkRow(size_t w, RowBatch& b, RowSlot& s) {
    GatewayRowProcessor& proc = *procs_[w];
    std::vector<std::string_view>& cells = cells_[w];
    if (!s.pre_skip.empty()) return;
    if (layout_) {
      // Escaped cells are unescaped into the worker's scratch, sized first so views stay valid.
      size_t escaped = 0;
      for (size_t k = s.first_cell; k < s.first_cell + s.cell_count; ++k)
        if (b.cells[k].escaped) escaped += b.cells[k].size;
      std::string& scratch = unescaped_[w];
      if (scratch.size() < escaped + CsvReader::kUnescapeSlack)
        scratch.resize(escaped + CsvReader::kUnescapeSlack);
      size_t at = 0;
      cells.clear();
      for (size_t k = s.first_cell; k < s.first_cell + s.cell_count; ++k) {
        const Span& c = b.cells[k];
        if (!c.escaped) {
          cells.push_back(View(b, c));
          continue;
        }
        const size_t n = CsvReader::Unescape(View(b, c), scratch.data() + at);
        cells.emplace_back(scratch.data() + at, n);
        at += n;
      }
      s.result = proc.ProcessCsv(*layout_, cells, s.line, &s.record_out, &s.reason);
    } else {
      s.result = proc.ProcessJson(View(b, s.record), s.line, &s.record_out, &s.reason);
    }
    if (s.result == RowResult::kOk) {
      s.links = proc.links();
      s.rendered_by = proc.rendered_by();
      s.filler = Filler{proc.filler_key(),
                        proc.filler_field() ? std::string(proc.filler_field()) : std::string()};
      // Logged usage replaces the estimated token count but not the blocks cut by the
      // estimate: make the ids agree with the exact count (docs/EXPORT.md), so profile and
      // export replay the same.
      if (s.record_out.exact_counts) {
        IdAdjustment adj = ConformRecordBlockIds(&s.record_out);
        s.conformed = adj.extended > 0 || adj.truncated > 0;
      }
    }
  }

  // Once every row of the batch is done (on the worker that did the last one).
  void Recycle(RowBatch& b) {
    // The text is no longer needed: the arena goes back to the reader before the batch waits. A
    // reused arena has its capacity and its pages already mapped: a fresh 4 MiB arena per batch
    // cost a page fault per 4 KiB and the copies of growing (the reading thread's largest cost
    // in exact mode, perf).
    if (!in_place_) b.arena.clear();  // a reader's buffer keeps its size (its pages stay mapped)
    std::string arena = std::move(b.arena);
    b.arena = std::string();
    std::lock_guard<std::mutex> lock(spare_mu_);
    if (arena.capacity() <= 2 * kBatchBytes && spare_arenas_.size() < kMaxSpareArenas)
      spare_arenas_.push_back(std::move(arena));
  }

  void Skip(const std::string& reason, uint64_t line) {
    if (stats_->first_skip_reason.empty()) stats_->first_skip_reason = reason;
    ctx_->Skip(reason, line);
  }

  // The records vector is sized from the records per input byte so far instead of doubling: each
  // doubling moved every record (504 bytes) and faulted in the pages of both copies (perf: 14% of
  // the page faults on the 1 GB benchmark log). The headroom costs address space only: capacity
  // never written is never touched. Without a known input size (stdin) it grows as before.
  void ReserveRecords(size_t adding, uint64_t raw_read) {
    const size_t need = out_->size() + adding;
    if (need <= out_->capacity()) return;
    constexpr size_t kMinSample = 256;  // records of this input before the rate is trusted
    const size_t here = out_->size() - first_record_;
    const uint64_t total = in_ ? in_->raw_size() : 0;
    size_t want = std::max(need, 2 * out_->capacity());
    if (total > 0 && raw_read > 0 && here >= kMinSample) {
      const double estimate = static_cast<double>(here) * static_cast<double>(total) /
                              static_cast<double>(std::min(raw_read, total));
      const auto expected = first_record_ + static_cast<size_t>(estimate * 1.1) + kMinSample;
      want = std::max({need, expected, out_->capacity() + out_->capacity() / 4});
    }
    out_->reserve(want);
    // The part not yet written takes one fault per 2 MiB (common/huge_pages.h).
    AdviseHugePages(out_->data() + out_->size(),
                    (out_->capacity() - out_->size()) * sizeof(RequestRecord));
  }

  // The interner's table grows towards the distinct blocks the input will hold, estimated from
  // the blocks per input byte so far (BlockInterner::ExpectBlocks), as the records vector does.
  void ExpectBlocks(uint64_t raw_read) {
    constexpr size_t kMinSample = 256;  // records of this input before the rate is trusted
    const uint64_t total = in_ ? in_->raw_size() : 0;
    if (!ctx_->interner || total == 0 || raw_read == 0 || out_->size() - first_record_ < kMinSample)
      return;
    const uint64_t here = ctx_->interner->distinct_blocks() - first_blocks_;
    const double estimate = static_cast<double>(here) * static_cast<double>(total) /
                            static_cast<double>(std::min(raw_read, total));
    ctx_->interner->ExpectBlocks(first_blocks_ + static_cast<uint64_t>(estimate * 1.05));
  }

  void Consume(RowBatch& b) {
    ReserveRecords(b.rows.size(), b.raw_read);
    ExpectBlocks(b.raw_read);
    for (RowSlot& s : b.rows) {
      if (!s.pre_skip.empty()) {
        Skip(s.pre_skip, s.line);
        continue;
      }
      switch (s.result) {
        case RowResult::kOk:
          ++stats_->layouts[*s.rendered_by];
          stats_->conformed_ids += s.conformed;
          // The facts go to the read's store (its in-order step: the same for any thread count).
          facts_.Share(&s.record_out.facts, s.links, s.record_out.conversation);
          links_.push_back(std::move(s.links));
          fillers_.push_back(std::move(s.filler));
          if (ctx_->interner) {
            ctx_->interner->Add(s.record_out.block_ids);
            std::vector<uint64_t>().swap(s.record_out.block_ids);
          }
          out_->push_back(std::move(s.record_out));
          break;
        case RowResult::kFiltered:
          ++stats_->filtered_status;
          break;
        case RowResult::kIgnored:
          ++stats_->ignored;
          if (stats_->ignored_reason.empty()) stats_->ignored_reason = s.reason;
          break;
        case RowResult::kSkipped:
          Skip(s.reason, s.line);
          break;
      }
    }
    // The lists keep their capacity for a batch to come (no growth, no fresh pages per batch).
    b.rows.clear();
    b.cells.clear();
    if (spare_rows_.size() < kMaxSpareArenas) {
      spare_rows_.push_back(std::move(b.rows));
      spare_cells_.push_back(std::move(b.cells));
    }
  }

  const CsvLayout* layout_;
  IngestContext* ctx_;
  const InputStream* in_;  // for the records vector's size (ReserveRecords)
  std::vector<RequestRecord>* out_;
  size_t first_record_;    // records of earlier inputs in *out_
  uint64_t first_blocks_;  // distinct blocks interned from earlier inputs
  GatewayReadStats* stats_;
  std::vector<std::unique_ptr<GatewayRowProcessor>> procs_;
  std::vector<std::string> unescaped_;  // per worker: the row's escaped cells, unescaped
  std::vector<std::vector<std::string_view>> cells_;  // per worker: the row's cells
  std::vector<ConversationLinks> links_;
  std::vector<Filler> fillers_;
  FactsSharer facts_;  // the records' cache-buster facts, shared (ingest/facts_sharer.h)
  RowBatch batch_;
  bool in_place_ = false;  // CSV rows stay in the reader's buffers (RawRow, Give)
  std::mutex spare_mu_;
  std::vector<std::string> spare_arenas_;  // emptied arenas of finished batches, for the reader
  std::vector<std::vector<RowSlot>> spare_rows_;  // consumed batches' lists (reader's thread only)
  std::vector<std::vector<Span>> spare_cells_;
  OrderedPipeline<RowBatch> pipeline_;  // last: its workers use the members above
};

Result<std::shared_ptr<const CompiledSource>> ChooseSource(const IngestContext& ctx,
                                                           const SourceChoice& detected,
                                                           std::string* reason) {
  const GatewayOptions& g = ctx.gateway;
  const SourceSpec* spec = detected.source;
  *reason = detected.reason;
  if (!g.source.empty()) {
    spec = FindSource(g.source);
    if (!spec) {
      std::string names;
      for (const SourceSpec* s : AllSources()) {
        if (!names.empty()) names.append(", ");
        names.append(s->name);
      }
      return Status::InvalidArgument(
          fmt::format("unknown --source '{}' (llmtrafficlens list-sources: {})", g.source, names));
    }
    *reason = "--source " + g.source;
  }
  FieldOverrides ov;
  ov.body = g.body_field;
  ov.status = g.status_field;
  ov.session = g.session_field;
  ov.time = !g.time_field.empty() ? g.time_field : g.ts_column;
  ov.model = g.model_field;
  if (ov.any()) *reason += "; with field overrides";
  return CompileSource(*spec, ov);
}

namespace {

// The CSV loop: header -> source and column layout, then every row's used cells to the sink.
Status ReadCsvRecords(InputStream* in, IngestContext* ctx, GatewayConfig* config,
                      GatewayRecordSink* sink, GatewayReadStats* stats) {
  CsvReader csv(in, ctx->limits, ctx->limits.buffer_bytes);
  // Header: a piece after a file's first reads it from the file's start (read_context.h).
  const bool later_piece = ctx->piece && ctx->piece->index > 0;
  std::unique_ptr<InputStream> head_in;
  std::optional<CsvReader> head_csv;
  if (later_piece) {
    auto opened = OpenInput(ctx->piece->path);
    if (!opened.ok()) return opened.status();
    head_in = std::move(opened).value();
    head_csv.emplace(head_in.get(), ctx->limits, ctx->limits.buffer_bytes);
  }
  CsvReader& head = later_piece ? *head_csv : csv;
  CsvReader::Outcome first = head.Next();
  if (first == CsvReader::Outcome::kBad)
    return Status::InvalidArgument(fmt::format("{}:{}: unreadable CSV header: {}", ctx->name,
                                               head.record_line(), head.bad_reason()));
  if (first == CsvReader::Outcome::kError)
    return Status::Corrupt(fmt::format("{}:1: {}", ctx->name, head.error().message()));
  if (first == CsvReader::Outcome::kEnd)
    return Status::InvalidArgument(fmt::format("{}:1: input is empty", ctx->name));
  std::vector<std::string> names;
  for (std::string_view f : head.fields()) names.push_back(Lower(f));
  csv.ExpectFields(names.size());  // a broken quote then costs its rows, not the rest of the file
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
  if (!config->source) {
    std::string why;
    auto chosen = ChooseSource(*ctx, DetectCsvSource(names), &why);
    if (!chosen.ok()) return chosen.status();
    config->source = std::move(chosen).value();
    stats->source = std::string(config->source->spec->name);
    stats->source_reason = why;
  }
  const CsvLayout layout = MapCsvHeader(*config->source, names);
  if (!layout.has_body) {
    if (!ctx->gateway.body_field.empty())
      return Status::InvalidArgument(
          fmt::format("{}:{}: no column '{}' for --body-field (found: {})", ctx->name,
                      head.record_line(), ctx->gateway.body_field, found_list()));
    return Status::InvalidArgument(fmt::format(
        "{}:{}: no request_json column (found: {}); --body-field COLUMN names the request body "
        "(also --status-field, --session-field, --time-field, --model-field), --source NAME "
        "picks a known log shape (llmtrafficlens list-sources)",
        ctx->name, head.record_line(), found_list()));
  }
  const std::string& time_override =
      !ctx->gateway.time_field.empty() ? ctx->gateway.time_field : ctx->gateway.ts_column;
  if (!time_override.empty() && layout.refs[static_cast<size_t>(FieldId::kTime)][0].slot < 0)
    return Status::InvalidArgument(fmt::format("{}:{}: no column '{}' for --ts-column (found: {})",
                                               ctx->name, head.record_line(), Lower(time_override),
                                               found_list()));

  // A column the reader uses must be unambiguous: two "request_json" columns could hold different
  // bodies, and silently picking one would measure the wrong traffic.
  for (size_t c : layout.used) {
    for (size_t k = 0; k < names.size(); ++k) {
      if (k != c && names[k] == names[c])
        return Status::InvalidArgument(fmt::format(
            "{}:{}: column '{}' appears more than once (columns {} and {})", ctx->name,
            head.record_line(), printable_name(c), std::min(c, k) + 1, std::max(c, k) + 1));
    }
  }

  sink->Begin(*config, &layout);
  const uint64_t header_line = head.record_line();
  if (later_piece) {
    csv.ExpectFields(names.size());
    csv.StartMidFile(ctx->piece->first_line);
  }
  uint64_t rows = 0;
  std::vector<std::string_view> cells;
  std::vector<CsvReader::RawField> raw_cells;
  CsvReader::BufferHandoff* handoff = sink->handoff();
  const bool raw = handoff != nullptr;
  csv.SetBufferHandoff(handoff);
  for (;;) {
    auto outcome = csv.Next();
    if (outcome == CsvReader::Outcome::kEnd) break;
    if (outcome == CsvReader::Outcome::kError) {
      csv.HandOffBuffer();
      sink->End();  // rows before the failure keep their skips in order
      return Status::Corrupt(
          fmt::format("{}:{}: {}", ctx->name, csv.record_line(), csv.error().message()));
    }
    ++rows;
    if (outcome == CsvReader::Outcome::kBad) {
      sink->PreSkip(csv.bad_reason(), csv.record_line());
    } else if (csv.raw_fields().size() != names.size()) {
      sink->PreSkip("CSV record field count differs from the header", csv.record_line());
    } else if (raw) {
      const auto& f = csv.raw_fields();
      raw_cells.clear();
      for (size_t c : layout.used) raw_cells.push_back(f[c]);
      sink->RawRow(csv.record_line(), csv.buffer_data(), raw_cells);
    } else {
      const auto& f = csv.fields();
      cells.clear();
      for (size_t c : layout.used) cells.push_back(f[c]);
      sink->Row(csv.record_line(), &cells, {});
    }
  }
  csv.HandOffBuffer();
  sink->End();
  if (ctx->piece) {  // a piece's rows are some of the file's: none is no error
    stats->piece_unsure = !ctx->piece->last && !csv.ended_at_record_boundary();
    return Status::Ok();
  }
  if (rows == 0)
    return Status::InvalidArgument(
        fmt::format("{}:{}: no rows after the header", ctx->name, header_line + 1));
  return Status::Ok();
}

// The JSON loop: records in any framing; the first one decides the source; nested records (OTLP
// spans) are split here, one row each.
Status ReadJsonRecords(InputStream* in, IngestContext* ctx, const Detection& d,
                       GatewayConfig* config, GatewayRecordSink* sink, GatewayReadStats* stats) {
  JsonRecordReader reader(in, d.framing, d.document_key, ctx->limits.max_line_bytes,
                          ctx->limits.buffer_bytes);
  if (ctx->piece && ctx->piece->index > 0) {
    // A later piece: the file's first record decides the source, as in the whole file's read.
    if (!config->source) {
      auto opened = OpenInput(ctx->piece->path);
      if (!opened.ok()) return opened.status();
      JsonRecordReader head(opened->get(), d.framing, d.document_key, ctx->limits.max_line_bytes,
                            ctx->limits.buffer_bytes);
      std::string_view first;
      JsonRecordReader::Outcome o;
      while ((o = head.Next(&first)) == JsonRecordReader::Outcome::kBad ||
             o == JsonRecordReader::Outcome::kTooLong) {
      }
      if (o == JsonRecordReader::Outcome::kRecord) {
        std::string why;
        auto chosen = ChooseSource(*ctx, DetectJsonSource(first), &why);
        if (!chosen.ok()) return chosen.status();
        config->source = std::move(chosen).value();
        stats->source = std::string(config->source->spec->name);
        stats->source_reason = why;
      }
    }
    reader.StartMidFile(ctx->piece->first_line);
  }
  bool begun = false;
  std::string_view rec;
  std::vector<std::string> nested;
  auto pre_skip = [&](std::string reason, uint64_t line) {
    if (!begun) {  // before the first record: skip directly, in order
      if (stats->first_skip_reason.empty()) stats->first_skip_reason = reason;
      ctx->Skip(reason, line);
      return;
    }
    sink->PreSkip(std::move(reason), line);
  };
  for (;;) {
    auto outcome = reader.Next(&rec);
    if (outcome == JsonRecordReader::Outcome::kEnd) break;
    if (outcome == JsonRecordReader::Outcome::kError) {
      if (begun) sink->End();
      return Status::Corrupt(
          fmt::format("{}:{}: {}", ctx->name, reader.lines_read(), reader.error().message()));
    }
    if (outcome == JsonRecordReader::Outcome::kTooLong) {
      pre_skip(fmt::format("line longer than {} bytes", ctx->limits.max_line_bytes),
               reader.record_line());
      continue;
    }
    if (outcome == JsonRecordReader::Outcome::kBad) {
      pre_skip(reader.bad_reason(), reader.record_line());
      continue;
    }
    if (!begun) {  // the first record decides the source
      if (!config->source) {
        std::string why;
        auto chosen = ChooseSource(*ctx, DetectJsonSource(rec), &why);
        if (!chosen.ok()) return chosen.status();
        config->source = std::move(chosen).value();
        stats->source = std::string(config->source->spec->name);
        stats->source_reason = why;
      }
      sink->Begin(*config, nullptr);
      begun = true;
    }
    const uint64_t line = reader.record_line();
    if (config->source->spec->records_at.empty()) {
      sink->Row(line, nullptr, rec);
      continue;
    }
    nested.clear();
    if (!ExpandNestedRecords(*config->source->spec, rec, &nested)) {
      sink->PreSkip("invalid JSON", line);
      continue;
    }
    for (const std::string& n : nested) sink->Row(line, nullptr, n);
  }
  if (begun) sink->End();
  return Status::Ok();
}

// Hands rows straight to a callback on the reading thread (export --to cctrace).
class CallbackSink : public GatewayRecordSink {
 public:
  CallbackSink(IngestContext* ctx, const GatewayRowCallback& fn, GatewayReadStats* stats)
      : ctx_(ctx), fn_(fn), stats_(stats) {}
  void Begin(const GatewayConfig& config, const CsvLayout* layout) override {
    locator_ = std::make_unique<RowLocator>(config.source);
    layout_ = layout;
  }
  void Row(uint64_t line, const std::vector<std::string_view>* cells,
           std::string_view record) override {
    ++stats_->rows;
    const char* reason = "";
    LocateResult r = cells ? locator_->LocateCsv(*layout_, *cells, line, &row_, &reason)
                           : locator_->LocateJson(record, line, &row_, &reason);
    switch (r) {
      case LocateResult::kOk:
        locator_->LocateTiming(&row_);
        if (const char* why = fn_(row_)) Skip(why, line);
        break;
      case LocateResult::kSkipped:
        Skip(reason, line);
        break;
      case LocateResult::kFiltered:
        ++stats_->filtered_status;
        break;
      case LocateResult::kIgnored:
        ++stats_->ignored;
        if (stats_->ignored_reason.empty()) stats_->ignored_reason = reason;
        break;
    }
  }
  void PreSkip(std::string reason, uint64_t line) override {
    ++stats_->rows;
    Skip(reason, line);
  }

 private:
  void Skip(const std::string& reason, uint64_t line) {
    if (stats_->first_skip_reason.empty()) stats_->first_skip_reason = reason;
    ctx_->Skip(reason, line);
  }
  IngestContext* ctx_;
  const GatewayRowCallback& fn_;
  GatewayReadStats* stats_;
  std::unique_ptr<RowLocator> locator_;
  const CsvLayout* layout_ = nullptr;
  LocatedRow row_;
};

Status ReadRecords(InputStream* in, const Detection& d, IngestContext* ctx, GatewayConfig* config,
                   GatewayRecordSink* sink, GatewayReadStats* stats) {
  if (d.format == InputFormat::kCsv) return ReadCsvRecords(in, ctx, config, sink, stats);
  if (d.format == InputFormat::kJsonl) return ReadJsonRecords(in, ctx, d, config, sink, stats);
  return Status::InvalidArgument(
      fmt::format("{}: {} input is not a gateway log", ctx->name, FormatName(d.format)));
}

// Builds the pipeline once the source (and, for CSV, the column layout) is known.
class PipelineSink : public GatewayRecordSink {
 public:
  PipelineSink(IngestContext* ctx, const InputStream* in, std::vector<RequestRecord>* out,
               GatewayReadStats* stats)
      : ctx_(ctx), in_(in), out_(out), stats_(stats) {}
  void Begin(const GatewayConfig& config, const CsvLayout* layout) override {
    if (layout) layout_ = *layout;
    const CsvLayout* used = layout ? &layout_ : nullptr;
    const unsigned threads = Threads(ctx_->threads);
    config_ = config;
    if (ctx_->read_state) pipe_ = ctx_->read_state->Take(config, threads);
    if (pipe_)
      pipe_->Rebind(used, ctx_, in_, out_, stats_);
    else
      pipe_ = std::make_unique<RowPipeline>(config, used, threads, ctx_, in_, out_, stats_);
  }
  void Row(uint64_t line, const std::vector<std::string_view>* cells,
           std::string_view record) override {
    ++stats_->rows;
    pipe_->Row(line, cells, record);
  }
  CsvReader::BufferHandoff* handoff() override { return pipe_.get(); }
  void RawRow(uint64_t line, const char* buffer,
              const std::vector<CsvReader::RawField>& cells) override {
    ++stats_->rows;
    pipe_->RawRow(line, buffer, cells);
  }
  void PreSkip(std::string reason, uint64_t line) override {
    ++stats_->rows;
    pipe_->PreSkip(std::move(reason), line);
  }
  void End() override {
    if (pipe_) pipe_->Finish();
  }
  RowPipeline* pipe() { return pipe_.get(); }
  // After a read that ended normally: the workers go to ctx->read_state for the run's next file,
  // or are freed (GatewayReadState::Release, which says why the heap is trimmed).
  void Release() {
    if (ctx_->read_state) {
      ctx_->read_state->Keep(std::move(pipe_), config_, Threads(ctx_->threads));
      return;
    }
    pipe_.reset();
    TrimHeap();
  }

 private:
  IngestContext* ctx_;
  const InputStream* in_;
  std::vector<RequestRecord>* out_;
  GatewayReadStats* stats_;
  CsvLayout layout_;
  GatewayConfig config_;  // what pipe_ was built for (GatewayReadState::Keep)
  std::unique_ptr<RowPipeline> pipe_;
};

}  // namespace

GatewayReadState::GatewayReadState() = default;
GatewayReadState::~GatewayReadState() {
  Release();
}

void GatewayReadState::Release() {
  if (!kept_) return;
  kept_.reset();
  TrimHeap();
}

std::unique_ptr<RowPipeline> GatewayReadState::Take(const GatewayConfig& config, unsigned threads) {
  if (!kept_) return nullptr;
  // Within a run only the source can differ from file to file (each file's header or first
  // record decides it); the salt and block size are checked too, as what the memos are keyed by.
  const bool fits = config.source && config.source->spec == spec_ && config.key.k0 == key_.k0 &&
                    config.key.k1 == key_.k1 && config.block_size == block_size_ &&
                    threads == threads_;
  if (!fits) {
    kept_.reset();
    return nullptr;
  }
  ++reuses_;
  return std::move(kept_);
}

void GatewayReadState::Keep(std::unique_ptr<RowPipeline> pipe, const GatewayConfig& config,
                            unsigned threads) {
  kept_ = std::move(pipe);
  spec_ = config.source ? config.source->spec : nullptr;
  key_ = config.key;
  block_size_ = config.block_size;
  threads_ = threads;
}

Status ReadGateway(InputStream* in, const Detection& d, IngestContext* ctx,
                   const GatewayConfig& base, std::vector<RequestRecord>* out,
                   GatewayReadStats* stats, GatewayPostPass* deferred) {
  GatewayConfig config = base;
  PipelineSink sink(ctx, in, out, stats);
  const size_t first_record = out->size();
  Status st = ReadRecords(in, d, ctx, &config, &sink, stats);
  if (!st.ok()) return st;
  if (!sink.pipe()) return Status::Ok();
  if (deferred) {
    deferred->links = std::move(sink.pipe()->links());
    deferred->fillers = std::move(sink.pipe()->fillers());
    sink.Release();
    return Status::Ok();
  }
  std::vector<ConversationLinks> links = std::move(sink.pipe()->links());
  std::vector<Filler> fillers = std::move(sink.pipe()->fillers());
  sink.Release();
  GatewayPostPassStats post;
  PostProcess(out, links, fillers, first_record, &post);
  stats->filler_values_ignored = std::move(post.filler_values_ignored);
  stats->per_request_session_fields = std::move(post.per_request_session_fields);
  return Status::Ok();
}

void FinishGatewayRecords(std::vector<RequestRecord>* records, const GatewayPostPass& pending,
                          GatewayPostPassStats* stats) {
  PostProcess(records, pending.links, pending.fillers, 0, stats);
}

Status ForEachGatewayRow(InputStream* in, const Detection& d, IngestContext* ctx,
                         const GatewayRowCallback& fn, GatewayReadStats* stats) {
  GatewayConfig config;
  CallbackSink sink(ctx, fn, stats);
  return ReadRecords(in, d, ctx, &config, &sink, stats);
}

}  // namespace ltl
