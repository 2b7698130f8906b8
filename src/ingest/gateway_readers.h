// Gateway log readers: CSV (a request_json column, optional response_json, model_name,
// status_code, timestamp and session columns) and JSONL (one request per line, the body directly
// or under a known key). Each row goes through GatewayRowProcessor; bad rows are skipped and
// counted by reason; non-2xx rows are counted and not replayed. After reading, session fields whose
// values never repeat are recognised as per-request ids, and turns are numbered per conversation.
// With ctx->threads > 1 the reading thread cuts rows into batches, ctx->threads workers process
// them, and the results are taken back in input order: records, skips and stats do not depend on
// the thread count. Logged usage fits a record's ids to the exact count on the worker
// (hash/conform_ids.h); with ctx->interner the ids are then interned in input order and dropped.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/request_record.h"
#include "common/status.h"
#include "ingest/gateway_row.h"
#include "ingest/ingest_context.h"
#include "ingest/source_detect.h"
#include "read/csv_reader.h"
#include "read/input_stream.h"
#include "read/json_records.h"

namespace ltl {

struct GatewayReadStats {
  uint64_t filtered_status = 0;  // non-2xx rows, not replayed
  // What rendered the requests (a layout name, "chat template FILE", ...) -> requests.
  std::map<std::string, uint64_t> layouts;
  // Session fields whose every value was unique (e.g. LiteLLM's random per-request session_id):
  // not used as conversations; conversations were inferred from the prompt instead.
  std::vector<std::string> per_request_session_fields;
  // Records with logged usage whose ids were fitted to the exact count (hash/conform_ids.h).
  uint64_t conformed_ids = 0;
  std::string source, source_reason;  // the source table used, and why (ingest/source_detect.h)
  uint64_t ignored = 0;               // records of another kind (Langfuse spans, ...)
  std::string ignored_reason;
  // Values of fields the tool fills per request that never repeated: not sessions (per field).
  std::map<std::string, uint64_t> filler_values_ignored;
  std::string first_skip_reason;  // the first skip's reason (for "0 requests" messages)
  uint64_t rows = 0;              // records seen (requests, skips, failed and ignored rows)
  // A CSV piece (ReadContext::piece) whose end is not a record boundary of the whole file, as
  // CsvReader::ended_at_record_boundary tells: its records may differ from the whole read's.
  bool piece_unsure = false;
};

// The compiled source for a CSV header or the first JSON record: --source when given, else
// detected; --*-field overrides applied. *reason says why.
Result<std::shared_ptr<const CompiledSource>> ChooseSource(const IngestContext& ctx,
                                                           const SourceChoice& detected,
                                                           std::string* reason);

// Where a gateway reader hands each record, in input order (rows or skips).
class GatewayRecordSink {
 public:
  virtual ~GatewayRecordSink() = default;
  // Called once the source (and, for CSV, the column layout) is known, before the first row.
  virtual void Begin(const GatewayConfig& config, const CsvLayout* layout) = 0;
  // A CSV row's used cells (CsvLayout::used order), or a JSON record's text.
  virtual void Row(uint64_t line, const std::vector<std::string_view>* cells,
                   std::string_view record) = 0;
  virtual void PreSkip(std::string reason, uint64_t line) = 0;
  virtual void End() {}
  // A sink that keeps CSV records in the reader's own buffers (CsvReader::BufferHandoff) gets
  // RawRow instead of Row: the cells as the reader found them (doubled quotes still in, removed
  // where they are read), inside the buffer that starts at `buffer`.
  virtual CsvReader::BufferHandoff* handoff() { return nullptr; }
  virtual void RawRow(uint64_t /*line*/, const char* /*buffer*/,
                      const std::vector<CsvReader::RawField>& /*cells*/) {}
};

// A value of a field the tool fills per request (LiteLLM's session_id, ...): a session only when
// the keyed value repeats (across every file of a run).
struct Filler {
  std::string key;    // keyed value ("" = none)
  std::string field;  // the field that carried it
};

// What the post-pass needs of each record besides the record itself, one entry per record in
// record order: kept when the post-pass is deferred, so it can run once over the records of many
// files (ingest/merge_inputs.h) or of hashed shards (shard/).
struct GatewayPostPass {
  std::vector<ConversationLinks> links;
  std::vector<Filler> fillers;
};
struct GatewayPostPassStats {
  std::vector<std::string> per_request_session_fields;    // see GatewayReadStats
  std::map<std::string, uint64_t> filler_values_ignored;  // see GatewayReadStats
};

class RowPipeline;  // gateway_readers.cc: the workers of one read

// The workers of a gateway read kept from one file to the next of a run (IngestContext::
// read_state, set by LoadRunInputs): their threads, their GatewayRowProcessors with the memory of
// conversations the processors share (the cutters' and the facts' memo stores, filled up to their
// budget), their scratch, and the emptied read buffers and batch lists. Built and freed (and the
// heap trimmed) per file, they cost about 0.1 s and 6,000 page faults a file on the 1 GB benchmark
// log cut into 16 files (docs/PERFORMANCE.md, "Several files"). A read takes them only when they
// were built for the same salt, block size and source (within a run every other option is the
// same: one IngestContext), else it builds its own and the kept ones are freed. The records are
// the same either way: the memos are caches that compare the bytes they hold, so a conversation
// continued in the next file finds its last turn there as it would in one file. Not thread-safe:
// one run's files are read one after another.
class GatewayReadState {
 public:
  GatewayReadState();
  GatewayReadState(const GatewayReadState&) = delete;
  GatewayReadState& operator=(const GatewayReadState&) = delete;
  ~GatewayReadState();  // Release()

  // Frees the kept workers and gives the freed pages back to the system (their memory was
  // allocated on the worker threads, in heaps the analysis after the read would not reuse: issue
  // 30). Call once the run's last file is read.
  void Release();
  // Reads that took the workers an earlier read left (for the tests).
  size_t reuses() const { return reuses_; }

  // ReadGateway's side: the kept workers if they fit `config` on `threads` threads (else null,
  // and the kept ones are freed), and the workers to keep after a read that ended normally.
  std::unique_ptr<RowPipeline> Take(const GatewayConfig& config, unsigned threads);
  void Keep(std::unique_ptr<RowPipeline> pipe, const GatewayConfig& config, unsigned threads);

 private:
  std::unique_ptr<RowPipeline> kept_;
  const SourceSpec* spec_ = nullptr;  // what kept_ was built for
  SipKey key_;
  uint32_t block_size_ = 0;
  unsigned threads_ = 0;
  size_t reuses_ = 0;
};

// Reads a gateway log (CSV, or JSON records in any framing) into records: rows are located,
// rendered, cut and hashed on ctx->threads workers (results in input order), then the post-pass
// sets sessions (fillers aside), per-request fields and turns — unless `deferred` is given, which
// then receives the post-pass input for FinishGatewayRecords. With ctx->read_state the workers come
// from there when they fit and go back there after the read (GatewayReadState).
Status ReadGateway(InputStream* in, const Detection& detection, IngestContext* ctx,
                   const GatewayConfig& config, std::vector<RequestRecord>* out,
                   GatewayReadStats* stats, GatewayPostPass* deferred = nullptr);

// The post-pass over all of *records (one `pending` entry per record, in order): inferred
// conversations in replay order, filler sessions, per-request session fields, turns. Its outcome
// depends only on the records and their replay order, not on how they were split into files.
void FinishGatewayRecords(std::vector<RequestRecord>* records, const GatewayPostPass& pending,
                          GatewayPostPassStats* stats);

// Reads a gateway log on this thread and hands every located row (timing included) to `fn`, which
// returns nullptr or a fixed skip reason. Skips, failed and ignored rows are counted in *stats.
using GatewayRowCallback = std::function<const char*(const LocatedRow&)>;
Status ForEachGatewayRow(InputStream* in, const Detection& detection, IngestContext* ctx,
                         const GatewayRowCallback& fn, GatewayReadStats* stats);

}  // namespace ltl
