// HashShard / MergeShards (see shard.h).
#include "shard/shard.h"

#include <fmt/format.h>

#include "common/safe_label.h"
#include "hash/salt_file.h"
#include "ingest/merge_inputs.h"
#include "tokenize/tokenizer.h"

namespace ltl {

void RestoreSharedIds(Shard* shard) {
  if (shard->id_prefixes.empty()) return;
  std::vector<RequestRecord>& records = shard->input.records;
  std::vector<uint64_t> whole;
  for (size_t i = 0; i < records.size(); ++i) {
    const SharedIdPrefix p = shard->id_prefixes[i];
    if (p.count == 0) continue;
    const std::vector<uint64_t>& from = records[i - p.back].block_ids;  // whole already
    whole.assign(from.begin(), from.begin() + p.count);
    whole.insert(whole.end(), records[i].block_ids.begin(), records[i].block_ids.end());
    records[i].block_ids.swap(whole);
  }
  std::vector<SharedIdPrefix>().swap(shard->id_prefixes);
}

void InternShard(Shard* shard, BlockInterner* interner) {
  if (interner->sampling()) RestoreSharedIds(shard);
  const size_t base = interner->records();
  std::vector<RequestRecord>& records = shard->input.records;
  for (size_t i = 0; i < records.size(); ++i) {
    const SharedIdPrefix p = shard->id_prefixes.empty() ? SharedIdPrefix{} : shard->id_prefixes[i];
    if (p.count > 0)
      interner->AddSharing(base + i - p.back, p.count, records[i].block_ids);
    else
      interner->Add(records[i].block_ids);
    std::vector<uint64_t>().swap(records[i].block_ids);
  }
  std::vector<SharedIdPrefix>().swap(shard->id_prefixes);
}

uint64_t SaltCheck(const SipKey& key) {
  // Any fixed message: the digest tells keys apart without revealing one.
  uint64_t d = SipHash24(key, std::string_view("llmtrafficlens shard salt check"));
  return d == 0 ? 1 : d;
}

Result<Shard> HashShard(const std::string& path, InputFormat format, IngestContext* ctx) {
  IngestContext c = *ctx;
  c.interner = nullptr;  // the shard keeps the ids as hashed
  c.gateway.defer_post_pass = true;
  auto loaded = LoadInput(path, format, &c);
  if (!loaded.ok()) return loaded.status();
  Shard s;
  s.input = std::move(loaded).value();
  if (s.input.format == InputFormat::kCctrace)
    return Status::InvalidArgument(fmt::format(
        "{}: a cache trace (cctrace) is profiled directly, not through a shard", c.name));
  if (s.input.gateway) {
    auto salt = LoadOrCreateSalt(c.gateway.salt_file);  // the file the reader just used
    if (!salt.ok()) return salt.status();
    s.salt_check = SaltCheck(salt->key);
    if (c.gateway.tokenizer) s.tokenizer = c.gateway.tokenizer->name();
    s.template_name = c.gateway.template_name;
  }
  s.origin = path;
  return s;
}

namespace {

std::string OriginOf(const Shard& s) {
  if (!s.origin.empty()) return s.origin;
  return s.input.files.empty() ? "shard" : s.input.files.front().name;
}

// The block size of a shard's records (0 = no record has one).
uint32_t BlockSizeOf(const Shard& s) {
  for (const RequestRecord& r : s.input.records)
    if (r.block_size) return r.block_size;
  return 0;
}

// Appends piece `b` of a file to `a` (its earlier pieces): records, post-pass input and counts,
// as the file's read in one piece gives them (read/record_boundaries.h).
Status JoinPiece(Shard* a, Shard b) {
  RestoreSharedIds(a);  // the records' references are counted within each piece
  RestoreSharedIds(&b);
  LoadedInput& x = a->input;
  LoadedInput& y = b.input;
  const std::string name = OriginOf(b);
  if (x.files.size() != 1 || y.files.size() != 1 || x.files.front().name != y.files.front().name ||
      y.piece != x.piece + 1 || x.post_pass_pending != y.post_pass_pending)
    return Status::InvalidArgument(
        fmt::format("{}: piece {} of a file does not follow piece {} of the same file", name,
                    y.piece + 1, x.piece + 1));
  x.piece = y.piece;
  x.records.reserve(x.records.size() + y.records.size());
  for (RequestRecord& r : y.records) x.records.push_back(std::move(r));
  if (x.post_pass_pending) {
    for (auto& l : y.post_pass.links) x.post_pass.links.push_back(std::move(l));
    for (auto& f : y.post_pass.fillers) x.post_pass.fillers.push_back(std::move(f));
  }
  if (x.source.empty()) {
    x.source = y.source;
    x.source_reason = y.source_reason;
  }
  AddInputCounts(y, &x);
  InputFileSummary& f = x.files.front();
  const InputFileSummary& g = y.files.front();
  if (f.source.empty()) f.source = g.source;
  f.bytes += g.bytes;
  f.requests += g.requests;
  f.filtered_status += g.filtered_status;
  f.ignored += g.ignored;
  f.skipped.Merge(g.skipped);
  return Status::Ok();
}

// The pieces of each file joined into one shard per file, its time steps then run over the
// whole file's records; a file read in pieces that gave no request is refused as hash-shard
// refuses the file.
Result<std::vector<Shard>> JoinPieces(std::vector<Shard> shards) {
  bool any = false;
  for (const Shard& s : shards) any |= s.input.times_pending;
  if (!any) return shards;
  std::vector<Shard> out;
  out.reserve(shards.size());
  for (Shard& s : shards) {
    if (s.input.piece > 0) {
      if (out.empty() || !out.back().input.times_pending)
        return Status::InvalidArgument(fmt::format(
            "{}: piece {} of a file without the piece before it", OriginOf(s), s.input.piece + 1));
      if (Status st = JoinPiece(&out.back(), std::move(s)); !st.ok()) return st;
    } else {
      out.push_back(std::move(s));
    }
  }
  for (Shard& s : out) {
    LoadedInput& in = s.input;
    if (!in.times_pending) continue;
    in.piece = 0;
    FinishFileTimes(&in);
    if (in.gateway) in.counting = CountingSentence(in.records, in.counting_estimate);
    if (RealRecordCount(in) == 0)
      return Status::InvalidArgument(
          NoRequestsMessage(in.files.front().name, in, in.files.front().skipped));
  }
  return out;
}

}  // namespace

Result<LoadedInput> MergeShards(std::vector<Shard> shards, BlockInterner* interner) {
  if (shards.empty()) return Status::InvalidArgument("no shard");
  auto joined = JoinPieces(std::move(shards));
  if (!joined.ok()) return joined.status();
  shards = std::move(joined).value();
  std::vector<LoadedInput> parts;
  parts.reserve(shards.size());
  // What every shard must agree with (copied: the loop moves each shard's input away). Messages
  // name the two shards' files (issue 35, item 16): two shards of one log differ only there.
  const bool first_gateway = shards.front().input.gateway;
  const uint64_t first_salt = shards.front().salt_check;
  const std::string first_tokenizer = shards.front().tokenizer;
  const std::string first_estimate = shards.front().input.counting_estimate;
  const std::string first_template = shards.front().template_name;
  const InputFormat first_format = shards.front().input.format;
  const std::string first_name = OriginOf(shards.front());
  uint32_t block_size = 0;  // of the first shard that has records
  std::string block_size_name;
  for (Shard& s : shards) {
    const std::string name = OriginOf(s);
    if (s.input.gateway && first_gateway && s.salt_check != first_salt)
      return Status::InvalidArgument(fmt::format(
          "{}: hashed with another salt than {}: its block ids cannot match; hash every file "
          "with the same --salt-file",
          name, first_name));
    if (s.input.gateway && first_gateway &&
        (s.tokenizer != first_tokenizer || s.input.counting_estimate != first_estimate))
      return Status::InvalidArgument(fmt::format(
          "{}: cut with other settings than {} ({} vs {}): hash every file with the same "
          "--tokenizer, --model-dir and --chat-template",
          name, first_name, s.input.counting_estimate, first_estimate));
    if (s.input.gateway && first_gateway && !s.template_name.empty() && !first_template.empty() &&
        s.template_name != first_template)
      return Status::InvalidArgument(fmt::format(
          "{}: rendered with --template {}, {} with --template {}: the same request renders to "
          "other text, so its block ids cannot match; hash every file with the same --template",
          name, SafeLabel(s.template_name), first_name, SafeLabel(first_template)));
    // Inputs of different kinds (a hashed trace beside a gateway log) are refused by MergeInputs
    // with their own message; the block size is compared between inputs of one kind.
    const bool same_kind =
        s.input.gateway == first_gateway && (first_gateway || s.input.format == first_format);
    if (const uint32_t b = BlockSizeOf(s); same_kind && b) {
      if (block_size == 0) {
        block_size = b;
        block_size_name = name;
      } else if (b != block_size) {
        return Status::InvalidArgument(fmt::format(
            "{}: cut into blocks of {} tokens, {} into blocks of {}: block ids of different "
            "sizes cannot match; hash every file with the same --block-size",
            name, b, block_size_name, block_size));
      }
    }
    if (interner) InternShard(&s, interner);
    RestoreSharedIds(&s);  // ids kept in the records: whole
    parts.push_back(std::move(s.input));
  }
  return MergeInputs(std::move(parts));
}

}  // namespace ltl
