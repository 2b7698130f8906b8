// ExportTrace (see export_trace.h): order, conversation links, id conformance and remapping, and
// the line formats of the two targets.
#include "export/export_trace.h"

#include <fmt/format.h>

#include <iterator>
#include <string>
#include <unordered_map>

#include "export/export_order.h"
#include "hash/conform_ids.h"
#include "read/trace_readers.h"

namespace ltl {
namespace {

constexpr size_t kFlushBytes = 1 << 20;

// A derived tail id must never also be a full block's id, nor the tail of a different length. Tails
// number at most one per request, so they are collected first (TailIndex) and every full id is then
// looked up among them — no table of all ids is needed unless ids are made dense.
class TailIndex {
 public:
  // Returns false when `id` was already a tail of another length.
  bool Add(uint64_t id, uint32_t tokens) {
    auto [it, inserted] = tails_.emplace(id, tokens);
    return inserted || it->second == tokens;
  }
  // Call after the last Add: builds a bit filter (8+ bits per tail) so that the lookup of nearly
  // every full id is one bit test instead of a hash-table probe.
  void Seal() {
    int bits = 10;
    while ((size_t{1} << bits) < tails_.size() * 8 && bits < 34) ++bits;
    shift_ = 64 - bits;
    filter_.assign((size_t{1} << bits) / 64 + 1, 0);
    for (const auto& [id, tokens] : tails_) {
      uint64_t h = Slot(id);
      filter_[h >> 6] |= uint64_t{1} << (h & 63);
    }
  }
  bool Contains(uint64_t id) const {
    uint64_t h = Slot(id);
    if (!(filter_[h >> 6] >> (h & 63) & 1)) return false;
    return tails_.count(id) != 0;
  }

 private:
  // Fibonacci hashing: spreads dense ids (0, 1, 2, ...) as well as random ones.
  uint64_t Slot(uint64_t id) const { return (id * 0x9e3779b97f4a7c15ull) >> shift_; }

  std::unordered_map<uint64_t, uint32_t> tails_;
  std::vector<uint64_t> filter_;
  int shift_ = 54;
};

// --dense-ids: 0, 1, 2, ... in order of first appearance.
class DenseIds {
 public:
  uint64_t Map(uint64_t id) {
    return ids_.emplace(id, static_cast<uint64_t>(ids_.size())).first->second;
  }
  uint64_t size() const { return ids_.size(); }

 private:
  std::unordered_map<uint64_t, uint64_t> ids_;
};

// "12.345" from 12345000 µs: exact decimal seconds, at least one fractional digit, no float noise.
void AppendSeconds(std::string* out, int64_t micros) {
  if (micros < 0) {
    out->push_back('-');
    micros = -micros;
  }
  int64_t whole = micros / 1000000, frac = micros % 1000000;
  fmt::format_to(std::back_inserter(*out), "{}.", whole);
  char digits[7];
  fmt::format_to(digits, "{:06}", frac);
  int len = 6;
  while (len > 1 && digits[len - 1] == '0') --len;
  out->append(digits, static_cast<size_t>(len));
}

const char* SafeType(const std::string& type) {
  // Only the three values consumers know are written; nothing else from a record reaches a line.
  if (type == "image") return "image";
  if (type == "file") return "file";
  return "text";
}

struct ConversationState {
  int64_t last_chat_id = -1;
  int turns = 0;
};

}  // namespace

const char* ExportTargetName(ExportTarget t) {
  return t == ExportTarget::kMooncake ? "mooncake" : "bailian";
}

Result<ExportTarget> ParseExportTarget(std::string_view name) {
  if (name == "mooncake") return ExportTarget::kMooncake;
  if (name == "bailian") return ExportTarget::kBailian;
  return Status::InvalidArgument(
      fmt::format("unknown export target '{}' (choose mooncake or bailian)", name));
}

uint32_t DefaultExportBlockSize(ExportTarget t) {
  return t == ExportTarget::kMooncake ? kMooncakeDefaultBlockSize : kBailianDefaultBlockSize;
}

Status ExportTrace(const std::vector<RequestRecord>& records, const ExportOptions& options,
                   IngestContext* ctx, const std::function<Status(std::string_view)>& write,
                   ExportStats* stats) {
  *stats = ExportStats{};
  const uint32_t bs = options.block_size;
  if (bs == 0) return Status::InvalidArgument("export block size must be positive");
  for (const auto& r : records) {
    if (r.input_tokens > 0 && !r.block_ids.empty() && !CanReblock(r.block_size, bs))
      return Status::InvalidArgument(fmt::format(
          "{}:{}: blocks of {} tokens cannot be made into blocks of {} (the export block size "
          "must be a multiple of the input's)",
          ctx->name, r.line, r.block_size, bs));
  }

  const ReplayOrder order = OrderForExport(records);
  auto usable = [&](const RequestRecord& r, bool count_skips) {
    if (r.input_tokens <= 0) {
      if (count_skips) ctx->Skip("input_length is 0 (replay tools reject it)", r.line);
      return false;
    }
    if (r.block_ids.empty()) {
      if (count_skips) ctx->Skip("no block ids for a non-empty prompt", r.line);
      return false;
    }
    return true;
  };
  auto collision = [&](const RequestRecord& r) {
    return Status::Corrupt(fmt::format(
        "{}:{}: a derived tail block id equals another block's id (a 1 in 2^63 hash collision); "
        "export again with another salt",
        ctx->name, r.line));
  };

  std::vector<uint64_t> ids;
  IdAdjustment adj;
  TailIndex tails;
  for (uint32_t idx : order.order) {
    const RequestRecord& r = records[idx];
    if (!usable(r, false)) continue;
    ConformBlockIds(r, bs, &ids, &adj);
    if (adj.tail && !tails.Add(ids.back(), static_cast<uint32_t>(r.input_tokens % bs)))
      return collision(r);
  }
  tails.Seal();

  DenseIds dense;
  std::unordered_map<std::string, ConversationState> conversations;
  int64_t next_chat_id = 0;
  bool have_origin = false;
  int64_t origin_ms = 0, origin_us = 0;
  std::string buf;
  buf.reserve(kFlushBytes + (1 << 16));
  auto out = std::back_inserter(buf);
  for (uint32_t idx : order.order) {
    const RequestRecord& r = records[idx];
    if (!usable(r, true)) continue;
    ConformBlockIds(r, bs, &ids, &adj);
    stats->reblocked += adj.reblocked;
    stats->extended += adj.extended > 0;
    stats->truncated += adj.truncated > 0;
    stats->tails += adj.tail;
    const size_t full = adj.tail ? ids.size() - 1 : ids.size();
    for (size_t j = 0; j < full; ++j)
      if (tails.Contains(ids[j])) return collision(r);
    if (options.dense_ids)
      for (uint64_t& id : ids) id = dense.Map(id);

    const double t = order.time_s[idx];
    if (!have_origin) {
      origin_ms = RoundToMillis(t);
      origin_us = RoundToMicros(t);
      have_origin = true;
    }
    int64_t output = r.output_tokens;
    if (output < 0) {
      output = options.default_output_length;
      ++stats->default_output;
    }
    if (options.target == ExportTarget::kMooncake) {
      int64_t ms = RoundToMillis(t) - (options.absolute_time ? 0 : origin_ms);
      fmt::format_to(out, "{{\"timestamp\": {}, \"input_length\": {}, \"output_length\": {}, ", ms,
                     r.input_tokens, output);
    } else {
      int64_t chat_id = next_chat_id++;
      int64_t parent = -1;
      int turn = 1;
      if (!r.conversation.empty()) {
        auto [it, inserted] = conversations.try_emplace(r.conversation);
        parent = it->second.last_chat_id;
        turn = ++it->second.turns;
        it->second.last_chat_id = chat_id;
      }
      fmt::format_to(out, "{{\"chat_id\": {}, \"parent_chat_id\": {}, \"timestamp\": ", chat_id,
                     parent);
      AppendSeconds(&buf, RoundToMicros(t) - (options.absolute_time ? 0 : origin_us));
      fmt::format_to(out,
                     ", \"input_length\": {}, \"output_length\": {}, \"type\": \"{}\", "
                     "\"turn\": {}, ",
                     r.input_tokens, output, SafeType(r.type), turn);
    }
    buf.append("\"hash_ids\": [");
    for (size_t j = 0; j < ids.size(); ++j) {
      if (j) buf.append(", ");
      fmt::format_int digits(ids[j]);
      buf.append(digits.data(), digits.size());
    }
    if (options.target == ExportTarget::kMooncake) {
      fmt::format_to(out, "], \"block_size\": {}}}\n", bs);
    } else {
      buf.append("]}\n");
    }
    ++stats->written;
    stats->input_tokens += static_cast<uint64_t>(r.input_tokens);
    stats->untimed += !r.has_time;
    if (buf.size() >= kFlushBytes) {
      LTL_RETURN_IF_ERROR(write(buf));
      buf.clear();
    }
  }
  if (!buf.empty()) LTL_RETURN_IF_ERROR(write(buf));
  stats->distinct_ids = dense.size();
  stats->conversations = conversations.size();
  return Status::Ok();
}

}  // namespace ltl
