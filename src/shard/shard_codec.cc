// Shard encoding and checked decoding (see shard_codec.h).
#include "shard/shard_codec.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <unordered_map>

#include "common/atomic_file.h"
#include "common/facts_store.h"
#include "common/segment_map.h"

namespace ltl {
namespace {

constexpr size_t kHeaderBytes = 8 + 4 + 4 + 8 + 4;
constexpr uint32_t kEndMark = 0x21444e45;  // "END!"

uint32_t Crc32(std::string_view s) {
  uLong c = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths: feed large payloads in pieces.
  while (!s.empty()) {
    const uInt n = static_cast<uInt>(std::min<size_t>(s.size(), 1u << 30));
    c = crc32(c, reinterpret_cast<const Bytef*>(s.data()), n);
    s.remove_prefix(n);
  }
  return static_cast<uint32_t>(c);
}

// Writes the format into a buffer of the size a first, counting pass of the same calls found
// (out == nullptr: counts only), so an encoding allocates its output once and writes each byte
// once (EncodeShardTo).
class Writer {
 public:
  explicit Writer(char* out = nullptr) : out_(out) {}
  size_t size() const { return n_; }
  void Bytes(const void* p, size_t n) {
    if (out_ != nullptr && n > 0) std::memcpy(out_ + n_, p, n);
    n_ += n;
  }
  void U8(uint8_t v) { Bytes(&v, 1); }
  void U32(uint32_t v) { Little(v); }
  void U64(uint64_t v) { Little(v); }
  // n little-endian u64s at once (block ids: most of a shard's bytes).
  void U64s(const uint64_t* v, size_t n) {
    if (n == 0) return;
    if constexpr (std::endian::native == std::endian::little) {
      Bytes(v, n * sizeof(uint64_t));
    } else {
      for (size_t i = 0; i < n; ++i) U64(v[i]);
    }
  }
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  void F64(double v) {
    uint64_t b;
    static_assert(sizeof b == sizeof v);
    std::memcpy(&b, &v, sizeof b);
    U64(b);
  }
  void Str(std::string_view s) {
    U32(static_cast<uint32_t>(s.size()));
    Bytes(s.data(), s.size());
  }

 private:
  // An unsigned value's bytes, least significant first, in one copy.
  template <typename T>
  void Little(T v) {
    char b[sizeof(T)];
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(b, &v, sizeof(T));
    } else {
      for (size_t i = 0; i < sizeof(T); ++i) b[i] = static_cast<char>(v >> (8 * i));
    }
    Bytes(b, sizeof(T));
  }
  char* out_;
  size_t n_ = 0;
};

class Reader {
 public:
  Reader(std::string_view bytes, size_t base, const std::string& name)
      : p_(bytes), base_(base), name_(name) {}
  const Status& status() const { return st_; }
  bool ok() const { return st_.ok(); }
  size_t offset() const { return base_ + pos_; }
  size_t left() const { return p_.size() - pos_; }

  void Fail(const std::string& what) {
    if (st_.ok())
      st_ = Status::Corrupt(fmt::format("{}: offset {}: corrupt shard: {}", name_, offset(), what));
  }
  bool Need(size_t n, const char* what) {
    if (!st_.ok()) return false;
    if (left() < n) {
      st_ =
          Status::Corrupt(fmt::format("{}: offset {}: truncated shard: {} needs {} bytes, {} left",
                                      name_, offset(), what, n, left()));
      return false;
    }
    return true;
  }
  uint8_t U8(const char* what) {
    if (!Need(1, what)) return 0;
    return static_cast<uint8_t>(p_[pos_++]);
  }
  bool Bool(const char* what) {
    const uint8_t v = U8(what);
    if (v > 1) Fail(fmt::format("{} is {}, not 0 or 1", what, v));
    return v == 1;
  }
  uint32_t U32(const char* what) { return Little<uint32_t>(what); }
  uint64_t U64(const char* what) { return Little<uint64_t>(what); }
  // n little-endian u64s into out[0..n) (Writer::U64s).
  void U64s(uint64_t* out, size_t n, const char* what) {
    if (n == 0 || !Need(n * sizeof(uint64_t), what)) return;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(out, p_.data() + pos_, n * sizeof(uint64_t));
      pos_ += n * sizeof(uint64_t);
    } else {
      for (size_t i = 0; i < n; ++i) out[i] = U64(what);
    }
  }
  int64_t I64(const char* what) { return static_cast<int64_t>(U64(what)); }
  double F64(const char* what) {
    uint64_t b = U64(what);
    double v;
    std::memcpy(&v, &b, sizeof v);
    return v;
  }
  std::string Str(const char* what) {
    const uint32_t n = U32(what);
    if (!Need(n, what)) return {};
    std::string s(p_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  // A count of elements of at least `min_bytes` each: never more than the bytes left can hold.
  uint64_t Count(size_t min_bytes, const char* what, bool wide = false) {
    const uint64_t n = wide ? U64(what) : U32(what);
    if (ok() && n > left() / std::max<size_t>(min_bytes, 1)) {
      Fail(fmt::format("{}: {} entries cannot fit in the {} bytes left", what, n, left()));
      return 0;
    }
    return n;
  }

 private:
  // An unsigned value stored least significant byte first (Writer::Little).
  template <typename T>
  T Little(const char* what) {
    if (!Need(sizeof(T), what)) return 0;
    T v = 0;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(&v, p_.data() + pos_, sizeof(T));
    } else {
      for (size_t i = 0; i < sizeof(T); ++i) v |= T{static_cast<uint8_t>(p_[pos_ + i])} << (8 * i);
    }
    pos_ += sizeof(T);
    return v;
  }
  std::string_view p_;
  size_t pos_ = 0;
  size_t base_;
  const std::string& name_;
  Status st_;
};

// Strings the records repeat (models, conversation keys, session fields, types, filler fields):
// written once, referred to by index.
class StringTable {
 public:
  uint32_t Index(const std::string& s) {
    auto [it, inserted] = index_.try_emplace(s, static_cast<uint32_t>(strings_.size()));
    if (inserted) strings_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::unordered_map<std::string, uint32_t> index_;
  std::vector<std::string> strings_;
};

constexpr uint8_t kMaxFormat = static_cast<uint8_t>(InputFormat::kJsonl);
constexpr uint8_t kMaxFraming = static_cast<uint8_t>(JsonFraming::kDocument);

void WriteSkips(Writer& w, const SkipCounter& c) {
  w.U32(static_cast<uint32_t>(c.by_reason().size()));
  for (const auto& [reason, e] : c.by_reason()) {
    w.Str(reason);
    w.U64(e.count);
    w.U32(static_cast<uint32_t>(e.lines.size()));
    for (uint64_t l : e.lines) w.U64(l);
  }
}

// Puts back one reason as the counter held it: its example lines, then the rest of the count.
// SkipCounter offers only Add and Merge, so the rest is added by doubling (O(log count) merges,
// whatever count a shard claims); the examples are full by then, so no line is added twice.
void RestoreSkips(const std::string& reason, uint64_t count, const std::vector<uint64_t>& lines,
                  SkipCounter* c) {
  for (uint64_t l : lines) c->Add(reason, l);
  uint64_t rest = count - lines.size();
  if (rest == 0) return;
  SkipCounter power;
  power.Add(reason, lines.back());  // count 1; its line is never taken (examples are full)
  while (rest > 0) {
    if (rest & 1) c->Merge(power);
    rest >>= 1;
    if (rest > 0) {
      const SkipCounter copy = power;
      power.Merge(copy);
    }
  }
}

SkipCounter ReadSkips(Reader& r) {
  SkipCounter c;
  const uint64_t reasons = r.Count(4 + 8 + 4, "skip reasons");
  for (uint64_t i = 0; i < reasons && r.ok(); ++i) {
    std::string reason = r.Str("skip reason");
    const uint64_t count = r.U64("skip count");
    const uint64_t n = r.Count(8, "skip lines");
    if (n > SkipCounter::kExamplesPerReason || n > count || count > (uint64_t{1} << 62))
      r.Fail(fmt::format("skip reason with {} example lines for {} rows", n, count));
    std::vector<uint64_t> lines;
    for (uint64_t k = 0; k < n && r.ok(); ++k) lines.push_back(r.U64("skip line"));
    if (r.ok() && lines.size() != std::min<uint64_t>(count, SkipCounter::kExamplesPerReason))
      r.Fail(fmt::format("skip reason with {} example lines for {} rows", lines.size(), count));
    if (r.ok()) RestoreSkips(reason, count, lines, &c);
  }
  return c;
}

template <typename Map>
void WriteCounts(Writer& w, const Map& m) {
  w.U32(static_cast<uint32_t>(m.size()));
  for (const auto& [k, v] : m) {
    w.Str(k);
    w.U64(v);
  }
}

std::map<std::string, uint64_t> ReadCounts(Reader& r, const char* what) {
  std::map<std::string, uint64_t> m;
  const uint64_t n = r.Count(4 + 8, what);
  for (uint64_t i = 0; i < n && r.ok(); ++i) {
    std::string k = r.Str(what);
    m[std::move(k)] = r.U64(what);
  }
  return m;
}

InputFormat ReadFormat(Reader& r, const char* what) {
  const uint8_t f = r.U8(what);
  if (f > kMaxFormat) r.Fail(fmt::format("{} {} is not a known format", what, f));
  return static_cast<InputFormat>(f);
}

// Record flags (one byte).
enum : uint8_t {
  kHasTime = 1,
  kExact = 2,
  kTruncated = 4,
  kSubagent = 8,
  kReplayOnly = 16,
};

// What a record takes from an earlier record of the shard, its reference (version 6): a turn of a
// conversation repeats the previous turn's prompt, so in version 5 most of a shard's bytes were
// block ids and segments written again (the 1 GB benchmark log in 16 files: docs/PERFORMANCE.md
// "Dask"). Shorter shards are encoded, shipped to the Dask driver and decoded in less time.
struct RecordRef {
  uint32_t back = 0;      // records back to the reference (0: none)
  uint32_t ids = 0;       // leading block ids taken from it
  uint32_t segments = 0;  // leading segments taken from it
  bool tools = false;     // its tool list is this record's (a non-empty list)
};

bool SameSegment(const SegmentFact& a, const SegmentFact& b) {
  return a.digest == b.digest && a.masked_digest == b.masked_digest &&
         a.token_start == b.token_start && a.item == b.item && a.kind == b.kind && a.role == b.role;
}
bool SameTool(const ToolFact& a, const ToolFact& b) {
  return a.name_digest == b.name_digest && a.definition_digest == b.definition_digest;
}
template <typename T, typename Eq>
uint32_t CommonPrefix(const std::vector<T>& a, const std::vector<T>& b, Eq eq) {
  const size_t n = std::min(a.size(), b.size());
  size_t k = 0;
  while (k < n && eq(a[k], b[k])) ++k;
  return static_cast<uint32_t>(k);
}

// Each record's reference: the earlier record sharing the most leading block ids, found through the
// ids at every 16th position (and each record's last id). Block ids are chained (an id stands for
// its whole prefix), so a record holding my id at position p shares my first p + 1 ids, and those
// positions are found by a binary search; the match is then extended id by id. The previous record
// is the reference when no record shares an id (its tool list is often the same). Depends on the
// records alone, so a shard's bytes do not depend on how it was made.
std::vector<RecordRef> FindRefs(const std::vector<RequestRecord>& records) {
  constexpr size_t kStride = 16;
  std::vector<RecordRef> refs(records.size());
  std::unordered_map<uint64_t, size_t> holder;  // id at a sampled position -> last record with it
  PromptFacts own_scratch, ref_scratch;
  for (size_t i = 0; i < records.size(); ++i) {
    const std::vector<uint64_t>& ids = records[i].block_ids;
    // Largest j whose grid position (j + 1) * kStride - 1 an earlier record holds.
    size_t lo = 0, hi = ids.size() / kStride;
    size_t found = i;  // none
    while (lo < hi) {
      const size_t mid = (lo + hi + 1) / 2;
      auto it = holder.find(ids[mid * kStride - 1]);
      if (it == holder.end()) {
        hi = mid - 1;
      } else {
        lo = mid;
        found = it->second;
      }
    }
    if (!ids.empty())
      if (auto it = holder.find(ids.back()); it != holder.end()) found = it->second;
    if (found == i && !ids.empty())  // a shared prefix shorter than kStride
      if (auto it = holder.find(ids.front()); it != holder.end()) found = it->second;
    if (found == i && i > 0) found = i - 1;
    if (found != i) {
      RecordRef& ref = refs[i];
      ref.back = static_cast<uint32_t>(i - found);
      ref.ids = CommonPrefix(ids, records[found].block_ids, std::equal_to<uint64_t>());
      const PromptFacts& own = ReadFacts(records[i].facts, &own_scratch);
      const PromptFacts& other = ReadFacts(records[found].facts, &ref_scratch);
      ref.segments = CommonPrefix(own.segments, other.segments, SameSegment);
      ref.tools = !own.tools.empty() && own.tools.size() == other.tools.size() &&
                  CommonPrefix(own.tools, other.tools, SameTool) == own.tools.size();
    }
    for (size_t p = kStride - 1; p < ids.size(); p += kStride) holder[ids[p]] = i;
    if (!ids.empty()) {
      holder[ids.back()] = i;
      holder[ids.front()] = i;
    }
  }
  return refs;
}

// The payload's fields before the string table (the shard's settings, counts and files).
void WriteHead(Writer& w, const Shard& shard) {
  const LoadedInput& in = shard.input;
  w.Str(shard.tokenizer);
  w.U64(shard.salt_check);
  w.Str(shard.template_name);
  w.U8(static_cast<uint8_t>(in.format));
  w.Str(in.encoding);
  w.U8(static_cast<uint8_t>(in.detection.format));
  w.U8(static_cast<uint8_t>(in.detection.framing));
  w.Str(in.detection.document_key);
  w.Str(in.detection.reason);
  w.Str(in.source);
  w.Str(in.source_reason);
  w.U64(in.bytes);
  w.U8(in.gateway);
  w.U64(in.filtered_status);
  WriteCounts(w, in.layouts);
  w.U32(static_cast<uint32_t>(in.per_request_session_fields.size()));
  for (const auto& f : in.per_request_session_fields) w.Str(f);
  w.Str(in.counting);
  w.Str(in.counting_estimate);
  w.U64(in.conformed_ids);
  w.U64(in.ignored);
  w.Str(in.ignored_reason);
  WriteCounts(w, in.filler_values_ignored);
  w.Str(in.first_skip_reason);
  w.U64(in.untimed);
  w.U8(in.times.absolute_clock);
  w.U64(in.times.implausible);
  w.U64(in.times.first_line);
  w.U8(in.formats_differ);
  w.U32(in.piece);
  w.U8(in.times_pending);
  w.U32(static_cast<uint32_t>(in.files.size()));
  for (const InputFileSummary& f : in.files) {
    w.Str(f.name);
    w.U8(static_cast<uint8_t>(f.format));
    w.Str(f.encoding);
    w.Str(f.framing);
    w.U64(f.bytes);
    w.Str(f.source);
    w.U64(f.requests);
    w.U64(f.filtered_status);
    w.U64(f.ignored);
    w.U64(f.untimed);
    w.U64(f.implausible);
    WriteSkips(w, f.skipped);
  }
}

// The records and the post-pass input, their repeated strings as indices into `table` (filled
// by the first pass; the second finds the same indices).
void WriteRecords(Writer& w, const LoadedInput& in, const std::vector<RecordRef>& refs,
                  StringTable& table) {
  PromptFacts facts_scratch;  // ReadFacts's
  for (size_t i = 0; i < in.records.size(); ++i) {
    const RequestRecord& r = in.records[i];
    w.U64(r.line);
    w.F64(r.time_s);
    w.I64(r.input_tokens);
    w.I64(r.output_tokens);
    w.U32(r.block_size);
    w.U32(table.Index(r.conversation));
    w.U32(table.Index(r.session_field));
    w.U32(table.Index(r.model));
    w.U32(table.Index(r.type));
    w.U8(static_cast<uint8_t>(static_cast<int8_t>(r.stream)));
    w.U32(static_cast<uint32_t>(r.status_code));
    w.U32(static_cast<uint32_t>(r.turn));
    w.I64(r.provider_cached_tokens);
    w.U64(r.tools_digest);
    w.U8((r.has_time ? kHasTime : 0) | (r.exact_counts ? kExact : 0) |
         (r.truncated_body ? kTruncated : 0) | (r.subagent ? kSubagent : 0) |
         (r.replay_only ? kReplayOnly : 0));
    // Block ids (version 6): the count, the reference, the ids taken from it, then the rest.
    const RecordRef& ref = refs[i];
    w.U32(static_cast<uint32_t>(r.block_ids.size()));
    w.U32(ref.back);
    w.U32(ref.ids);
    w.U64s(r.block_ids.data() + ref.ids, r.block_ids.size() - ref.ids);
    // Cache-busters facts (version 2): segments 16 bytes each, tools 8 bytes each; from version 6
    // the segments taken from the reference and whether its tool list is this record's.
    const PromptFacts& facts = ReadFacts(r.facts, &facts_scratch);
    w.U32(static_cast<uint32_t>(facts.cache_control));
    w.U32(static_cast<uint32_t>(facts.segments.size()));
    w.U32(ref.segments);
    for (size_t k = ref.segments; k < facts.segments.size(); ++k) {
      const SegmentFact& f = facts.segments[k];
      w.U32(f.digest);
      w.U32(f.masked_digest);
      w.U32(f.token_start);
      w.U32(static_cast<uint32_t>(f.item) | static_cast<uint32_t>(f.kind) << 16 |
            static_cast<uint32_t>(f.role) << 24);
    }
    w.U8(ref.tools);
    if (!ref.tools) {
      w.U32(static_cast<uint32_t>(facts.tools.size()));
      for (const ToolFact& t : facts.tools) {
        w.U32(t.name_digest);
        w.U32(t.definition_digest);
      }
    }
    // Provider-cache facts (version 3): request facts, blocks 13 bytes each, observations.
    const ProviderFacts& pf = r.provider;
    w.U32(r.file);
    w.U64(pf.cache_key);
    w.U8(static_cast<uint8_t>((pf.retention_24h ? 1 : 0) | pf.automatic << 1));
    w.I64(pf.observed_write);
    w.I64(pf.observed_write_1h);
    w.U8(static_cast<uint8_t>(pf.bad_observation));
    w.U32(pf.shared_prefix_tokens);
    w.U32(static_cast<uint32_t>(pf.blocks.size()));
    for (const ProviderBlock& b : pf.blocks) {
      w.U64(b.prefix);
      w.U32(b.tokens);
      w.U8(b.breakpoint);
    }
  }
  w.U8(in.post_pass_pending);
  if (in.post_pass_pending) {
    for (const ConversationLinks& l : in.post_pass.links) {
      w.U8(l.known);
      w.U64(l.own);
      w.U8(static_cast<uint8_t>(l.parents.size()));
      for (uint64_t p : l.parents) w.U64(p);
    }
    for (const Filler& f : in.post_pass.fillers) {
      w.U32(table.Index(f.key));
      w.U32(table.Index(f.field));
    }
  }
}

// The payload around the records: the head, the string table and the record count before them,
// the end mark after (records false: counts the rest, the records' size being known).
void WritePayload(Writer& w, const Shard& shard, const std::vector<RecordRef>& refs,
                  StringTable& table, bool records) {
  WriteHead(w, shard);
  w.U32(static_cast<uint32_t>(table.strings().size()));
  for (const auto& str : table.strings()) w.Str(str);
  w.U64(shard.input.records.size());
  if (records) WriteRecords(w, shard.input, refs, table);
  w.U32(kEndMark);
}

}  // namespace

size_t EncodeShardTo(const Shard& shard, const std::function<char*(size_t)>& allocate) {
  // First pass, counting: the records fill the string table, which precedes them.
  const std::vector<RecordRef> refs = FindRefs(shard.input.records);
  StringTable table;
  Writer records;
  WriteRecords(records, shard.input, refs, table);
  Writer rest;
  WritePayload(rest, shard, refs, table, /*records=*/false);
  const size_t payload = records.size() + rest.size();
  char* out = allocate(kHeaderBytes + payload);
  Writer w(out + kHeaderBytes);
  WritePayload(w, shard, refs, table, /*records=*/true);
  if (w.size() != payload) std::abort();  // the two passes run the same calls: never
  Writer h(out);
  h.Bytes(kShardMagic.data(), kShardMagic.size());
  h.U32(kShardVersion);
  h.U32(0);
  h.U64(payload);
  h.U32(Crc32(std::string_view(out + kHeaderBytes, payload)));
  return kHeaderBytes + payload;
}

std::string EncodeShard(const Shard& shard) {
  std::string out;
  EncodeShardTo(shard, [&out](size_t n) {
    out.resize(n);
    return out.data();
  });
  return out;
}

Result<Shard> DecodeShard(std::string_view bytes, const std::string& name, bool leave_shared_ids) {
  if (bytes.size() < kShardMagic.size() || bytes.substr(0, kShardMagic.size()) != kShardMagic)
    return Status::Corrupt(
        fmt::format("{}: offset 0: not a shard (no llmtrafficlens shard header)", name));
  Reader hr(bytes, 0, name);
  for (size_t i = 0; i < kShardMagic.size(); ++i) hr.U8("magic");
  const uint32_t version = hr.U32("version");
  if (hr.ok() && version != kShardVersion)
    return Status::Corrupt(fmt::format(
        "{}: offset 8: shard version {} is not readable by this build (it reads version {}); "
        "hash the file again with this version",
        name, version, kShardVersion));
  const uint32_t flags = hr.U32("flags");
  if (hr.ok() && flags != 0) hr.Fail(fmt::format("unknown flags {:#x}", flags));
  const uint64_t size = hr.U64("payload size");
  const uint32_t crc = hr.U32("checksum");
  if (!hr.ok()) return hr.status();
  if (size != bytes.size() - kHeaderBytes)
    return Status::Corrupt(fmt::format(
        "{}: offset {}: {} shard: the header promises {} payload bytes, the file holds {}", name,
        bytes.size(), size > bytes.size() - kHeaderBytes ? "truncated" : "corrupt", size,
        bytes.size() - kHeaderBytes));
  const std::string_view body = bytes.substr(kHeaderBytes);
  if (Crc32(body) != crc)
    return Status::Corrupt(fmt::format(
        "{}: offset {}: corrupt shard: the payload's CRC-32 does not match the header's", name,
        kHeaderBytes));

  Reader r(body, kHeaderBytes, name);
  Shard shard;
  LoadedInput& in = shard.input;
  shard.tokenizer = r.Str("tokenizer");
  shard.salt_check = r.U64("salt check");
  shard.template_name = r.Str("template");
  in.format = ReadFormat(r, "format");
  in.encoding = r.Str("encoding");
  in.detection.format = ReadFormat(r, "detected format");
  const uint8_t framing = r.U8("framing");
  if (framing > kMaxFraming) r.Fail(fmt::format("framing {} is not known", framing));
  in.detection.framing = static_cast<JsonFraming>(framing);
  in.detection.document_key = r.Str("document key");
  in.detection.reason = r.Str("detection reason");
  in.source = r.Str("source");
  in.source_reason = r.Str("source reason");
  in.bytes = r.U64("bytes");
  in.gateway = r.Bool("gateway flag");
  in.filtered_status = r.U64("filtered rows");
  in.layouts = ReadCounts(r, "layouts");
  const uint64_t fields = r.Count(4, "per-request session fields");
  for (uint64_t i = 0; i < fields && r.ok(); ++i)
    in.per_request_session_fields.push_back(r.Str("session field"));
  in.counting = r.Str("counting");
  in.counting_estimate = r.Str("counting estimate");
  in.conformed_ids = r.U64("conformed ids");
  in.ignored = r.U64("ignored records");
  in.ignored_reason = r.Str("ignored reason");
  in.filler_values_ignored = ReadCounts(r, "filler values");
  in.first_skip_reason = r.Str("first skip reason");
  in.untimed = r.U64("untimed");
  in.times.absolute_clock = r.Bool("clock flag");
  in.times.implausible = r.U64("implausible times");
  in.times.first_line = r.U64("first implausible line");
  in.formats_differ = r.Bool("formats flag");
  in.piece = r.U32("piece index");
  in.times_pending = r.Bool("time steps flag");
  const uint64_t files = r.Count(8, "files");
  for (uint64_t i = 0; i < files && r.ok(); ++i) {
    InputFileSummary f;
    f.name = r.Str("file name");
    f.format = ReadFormat(r, "file format");
    f.encoding = r.Str("file encoding");
    f.framing = r.Str("file framing");
    f.bytes = r.U64("file bytes");
    f.source = r.Str("file source");
    f.requests = r.U64("file requests");
    f.filtered_status = r.U64("file filtered rows");
    f.ignored = r.U64("file ignored records");
    f.untimed = r.U64("file untimed");
    f.implausible = r.U64("file implausible times");
    f.skipped = ReadSkips(r);
    in.files.push_back(std::move(f));
  }
  if (r.ok() && in.files.empty()) r.Fail("no file summary");
  std::vector<std::string> strings;
  const uint64_t nstrings = r.Count(4, "string table");
  strings.reserve(nstrings);
  for (uint64_t i = 0; i < nstrings && r.ok(); ++i) strings.push_back(r.Str("string"));
  auto str = [&](const char* what) -> std::string {
    const uint32_t k = r.U32(what);
    if (r.ok() && k >= strings.size()) {
      r.Fail(fmt::format("{} refers to string {} of {}", what, k, strings.size()));
      return {};
    }
    return r.ok() ? strings[k] : std::string();
  };
  // A record takes at least 103 bytes (no ids, no facts, the tool-list flag set): the count is
  // checked against that.
  constexpr size_t kMinRecordBytes =
      8 + 8 + 8 + 8 + 4 + 4 * 4 + 1 + 4 + 4 + 8 + 8 + 1 + 3 * 4 + 3 * 4 + 1;
  const uint64_t nrec = r.Count(kMinRecordBytes, "records", /*wide=*/true);
  in.records.reserve(nrec);
  std::shared_ptr<FactsStore> store;  // the records' facts, made at the first record with any
  std::vector<uint32_t> entries;      // per record: its store entry (kNoEntry: no lists)
  entries.reserve(nrec);
  std::vector<uint32_t> id_counts;  // per record: its ids, left out ones included
  id_counts.reserve(nrec);
  PromptFacts ref_facts;  // ReadFacts's scratch
  for (uint64_t i = 0; i < nrec && r.ok(); ++i) {
    RequestRecord rec;
    rec.line = r.U64("line");
    rec.time_s = r.F64("time");
    rec.input_tokens = r.I64("input tokens");
    rec.output_tokens = r.I64("output tokens");
    rec.block_size = r.U32("block size");
    rec.conversation = str("conversation key");
    rec.session_field = str("session field");
    rec.model = str("model");
    rec.type = str("type");
    const uint8_t stream = r.U8("stream");  // -1 (unknown) is written as 0xff
    rec.stream = stream == 0xff ? -1 : static_cast<int>(stream);
    rec.status_code = static_cast<int32_t>(r.U32("status code"));
    rec.turn = static_cast<int32_t>(r.U32("turn"));
    rec.provider_cached_tokens = r.I64("provider cached tokens");
    rec.tools_digest = r.U64("tools digest");
    const uint8_t flags = r.U8("record flags");
    if (flags >= 32) r.Fail(fmt::format("record flags {:#x} are not known", flags));
    rec.has_time = flags & kHasTime;
    rec.exact_counts = flags & kExact;
    rec.truncated_body = flags & kTruncated;
    rec.subagent = flags & kSubagent;
    rec.replay_only = flags & kReplayOnly;
    if (r.ok() && rec.has_time && !std::isfinite(rec.time_s))
      r.Fail("a record's time is not finite");
    if (r.ok() && rec.input_tokens < 0)
      r.Fail(fmt::format("record {} has {} input tokens", i + 1, rec.input_tokens));
    // The reference (version 6): an earlier record; what is taken from it must exist there.
    const uint32_t ids = r.U32("block ids");
    const uint32_t back = r.U32("reference");
    const uint32_t ref_ids = r.U32("block ids from the reference");
    const RequestRecord* ref = nullptr;
    if (r.ok() && back > in.records.size())
      r.Fail(fmt::format("record {} refers to a record {} back", i + 1, back));
    else if (back > 0)
      ref = &in.records[in.records.size() - back];
    const uint32_t ref_holds = ref ? id_counts[in.records.size() - back] : 0;
    if (r.ok() && (ref_ids > ids || ref_ids > ref_holds))
      r.Fail(fmt::format("record {} takes {} of its {} block ids from a reference holding {}",
                         i + 1, ref_ids, ids, ref_holds));
    if (r.ok() && ids - ref_ids > r.left() / 8)
      r.Fail(fmt::format("block ids: {} entries cannot fit in the {} bytes left", ids - ref_ids,
                         r.left()));
    if (r.ok() && leave_shared_ids && ref_ids > 0) {
      // Only the rest; the reference and count go to id_prefixes (one per record from here on).
      shard.id_prefixes.resize(in.records.size());
      shard.id_prefixes.push_back(SharedIdPrefix{back, ref_ids});
      rec.block_ids.resize(ids - ref_ids);
      r.U64s(rec.block_ids.data(), ids - ref_ids, "block id");
    } else if (r.ok()) {
      if (!shard.id_prefixes.empty()) shard.id_prefixes.emplace_back();
      rec.block_ids.resize(ids);
      if (ref_ids > 0) std::copy_n(ref->block_ids.data(), ref_ids, rec.block_ids.data());
      r.U64s(rec.block_ids.data() + ref_ids, ids - ref_ids, "block id");
    }
    id_counts.push_back(ids);
    rec.facts.cache_control = static_cast<int32_t>(r.U32("cache_control position"));
    if (r.ok() && rec.facts.cache_control < -2)
      r.Fail(
          fmt::format("record {} has cache_control position {}", i + 1, rec.facts.cache_control));
    const uint32_t nseg = r.U32("segments");
    const uint32_t ref_seg = r.U32("segments from the reference");
    // The reference's lists (from the shard's store, where it went: below).
    const PromptFacts* rf = ref ? &ReadFacts(ref->facts, &ref_facts) : nullptr;
    if (r.ok() && (ref_seg > nseg || ref_seg > (rf ? rf->segments.size() : 0)))
      r.Fail(fmt::format("record {} takes {} of its {} segments from a reference holding {}", i + 1,
                         ref_seg, nseg, rf ? rf->segments.size() : 0));
    if (r.ok() && nseg - ref_seg > r.left() / 16)
      r.Fail(fmt::format("segments: {} entries cannot fit in the {} bytes left", nseg - ref_seg,
                         r.left()));
    if (r.ok()) {
      rec.facts.segments.resize(nseg);
      if (ref_seg > 0) std::copy_n(rf->segments.begin(), ref_seg, rec.facts.segments.begin());
    }
    uint32_t prev_start = r.ok() && ref_seg > 0 ? rec.facts.segments[ref_seg - 1].token_start : 0;
    for (uint64_t k = ref_seg; k < nseg && r.ok(); ++k) {
      SegmentFact& f = rec.facts.segments[k];
      f.digest = r.U32("segment digest");
      f.masked_digest = r.U32("segment masked digest");
      f.token_start = r.U32("segment start");
      const uint32_t packed = r.U32("segment kind");
      f.item = static_cast<uint16_t>(packed & 0xffff);
      f.kind = static_cast<uint8_t>(packed >> 16);
      f.role = static_cast<uint8_t>(packed >> 24);
      if (r.ok() && (f.kind > static_cast<uint8_t>(SegmentKind::kOther) ||
                     f.role > static_cast<uint8_t>(SegmentRole::kOther)))
        r.Fail(
            fmt::format("record {} segment {} has kind {} role {}", i + 1, k + 1, f.kind, f.role));
      if (r.ok() && f.token_start < prev_start)
        r.Fail(fmt::format("record {} segment {} starts before the one before it", i + 1, k + 1));
      prev_start = f.token_start;
    }
    const bool ref_tools = r.Bool("tools from the reference");
    if (r.ok() && ref_tools && (!rf || rf->tools.empty()))
      r.Fail(fmt::format("record {} takes its tools from a reference without tools", i + 1));
    if (r.ok() && ref_tools) {
      rec.facts.tools = rf->tools;
    } else {
      const uint64_t ntools = r.Count(8, "tools");
      rec.facts.tools.resize(r.ok() ? ntools : 0);
      for (uint64_t k = 0; k < ntools && r.ok(); ++k) {
        rec.facts.tools[k].name_digest = r.U32("tool name digest");
        rec.facts.tools[k].definition_digest = r.U32("tool definition digest");
      }
    }
    ProviderFacts& pf = rec.provider;
    rec.file = r.U32("file index");
    if (r.ok() && rec.file >= in.files.size() && !in.files.empty())
      r.Fail(fmt::format("record {} names file {} of {}", i + 1, rec.file + 1, in.files.size()));
    pf.cache_key = r.U64("prompt cache key");
    const uint8_t pflags = r.U8("provider flags");
    if (r.ok() && (pflags >= 8 || (pflags >> 1) > 2))
      r.Fail(fmt::format("record {} has provider flags {:#x}", i + 1, pflags));
    pf.retention_24h = pflags & 1;
    pf.automatic = static_cast<uint8_t>(pflags >> 1);
    pf.observed_write = r.I64("observed cache write");
    pf.observed_write_1h = r.I64("observed 1-hour cache write");
    const uint8_t bad = r.U8("bad observation");
    if (r.ok() && bad >= kBadObservationCodes)
      r.Fail(fmt::format("record {} has bad-observation code {}", i + 1, bad));
    pf.bad_observation = static_cast<BadObservation>(r.ok() ? bad : 0);
    pf.shared_prefix_tokens = r.U32("shared prefix tokens");
    const uint64_t nblocks = r.Count(13, "provider blocks");
    pf.blocks.resize(r.ok() ? nblocks : 0);
    uint32_t prev_end = 0;
    for (uint64_t k = 0; k < nblocks && r.ok(); ++k) {
      ProviderBlock& b = pf.blocks[k];
      b.prefix = r.U64("provider block prefix");
      b.tokens = r.U32("provider block end");
      b.breakpoint = r.U8("provider block breakpoint");
      if (r.ok() && (b.breakpoint > 2 || b.tokens < prev_end))
        r.Fail(fmt::format("record {} provider block {} is not in order or has breakpoint {}",
                           i + 1, k + 1, b.breakpoint));
      prev_end = b.tokens;
    }
    // The lists go to the shard's store, sharing the reference's leading segments (as the read
    // shares them: ingest/facts_sharer.h), so a loaded shard holds a conversation's repeated
    // segments once, not once per turn.
    uint32_t entry = FactsStore::kNoEntry;
    if (r.ok() && !(rec.facts.segments.empty() && rec.facts.tools.empty())) {
      if (!store) store = std::make_shared<FactsStore>();
      const uint32_t parent = ref ? entries[in.records.size() - back] : FactsStore::kNoEntry;
      const size_t list_bytes = rec.facts.bytes();
      entry = store->Add(rec.facts, parent,
                         static_cast<uint32_t>(std::min<size_t>(list_bytes, UINT32_MAX)));
      std::vector<SegmentFact>().swap(rec.facts.segments);
      std::vector<ToolFact>().swap(rec.facts.tools);
      rec.facts.shared = SharedFacts{store, entry};
    }
    entries.push_back(entry);
    in.records.push_back(std::move(rec));
  }
  in.post_pass_pending = r.Bool("post-pass flag");
  if (r.ok() && in.post_pass_pending && !in.gateway)
    r.Fail("a hashed trace with a gateway post-pass");
  if (in.post_pass_pending) {
    in.post_pass.links.resize(r.ok() ? in.records.size() : 0);
    for (ConversationLinks& l : in.post_pass.links) {
      if (!r.ok()) break;
      l.known = r.Bool("link flag");
      l.own = r.U64("link");
      const uint8_t np = r.U8("parent count");
      if (np > ConversationLinks::kMaxParents)
        r.Fail(fmt::format("{} conversation parents (at most {})", np,
                           ConversationLinks::kMaxParents));
      for (uint8_t k = 0; k < np && r.ok(); ++k) l.parents.push_back(r.U64("parent link"));
    }
    in.post_pass.fillers.resize(r.ok() ? in.records.size() : 0);
    for (Filler& f : in.post_pass.fillers) {
      if (!r.ok()) break;
      f.key = str("filler key");
      f.field = str("filler field");
    }
  }
  const uint32_t end = r.U32("end mark");
  if (r.ok() && end != kEndMark) r.Fail("the end mark is missing");
  if (r.ok() && r.left() != 0) r.Fail(fmt::format("{} bytes after the end mark", r.left()));
  if (!r.ok()) return r.status();
  return shard;
}

Status WriteShardFile(const std::string& path, const Shard& shard) {
  return WriteFileAtomically(path, EncodeShard(shard));
}

Result<Shard> ReadShardFile(const std::string& path, bool leave_shared_ids) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::IoError(fmt::format("{}: cannot open the shard", path));
  // Read whole at the size the file has (one buffer, one pass), then whatever follows if it grew.
  std::string bytes;
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > 0) {
    bytes.resize(static_cast<size_t>(size));
    f.read(bytes.data(), static_cast<std::streamsize>(size));
    bytes.resize(static_cast<size_t>(f.gcount()));
  }
  if (f) bytes.append(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  if (f.bad()) return Status::IoError(fmt::format("{}: cannot read the shard", path));
  auto shard = DecodeShard(bytes, path, leave_shared_ids);
  if (shard.ok()) shard->origin = path;
  return shard;
}

bool IsShardFile(const std::string& path) {
  // Only a regular file is peeked at: a FIFO or a device would lose the bytes read here.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream f(path, std::ios::binary);
  char magic[8] = {};
  if (!f.read(magic, sizeof magic)) return false;
  return std::string_view(magic, sizeof magic) == kShardMagic;
}

}  // namespace ltl
