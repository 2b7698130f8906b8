// The shard file format (shard/shard_codec.h): every field of a shard survives encode/decode; a
// truncated shard (at every length), a flipped payload byte, another version, trailing bytes and a
// count larger than the file are Corrupt statuses naming the shard and an offset.
#include <gtest/gtest.h>

#include <zlib.h>

#include "common/facts_store.h"
#include "shard/shard_codec.h"

namespace ltl {
namespace {

Shard Sample() {
  Shard s;
  s.tokenizer = "cl100k_base";
  s.salt_check = 0x1234567890abcdefull;
  s.template_name = "chatml";
  LoadedInput& in = s.input;
  in.format = InputFormat::kJsonl;
  in.encoding = "zstd";
  in.detection.format = InputFormat::kJsonl;
  in.detection.framing = JsonFraming::kArray;
  in.detection.document_key = "requests";
  in.detection.reason = "a JSON array";
  in.source = "litellm-spendlogs";
  in.source_reason = "its columns";
  in.bytes = 987654;
  in.gateway = true;
  in.filtered_status = 3;
  in.layouts = {{"chatml", 7}, {"anthropic", 2}};
  in.counting = "exact (logged usage) for 1 of 2 requests, approximate for the rest";
  in.counting_estimate = "approximate (4 code points per token)";
  in.conformed_ids = 1;
  in.ignored = 4;
  in.ignored_reason = "a span";
  in.filler_values_ignored = {{"session_id", 5}};
  in.first_skip_reason = "invalid JSON";
  in.untimed = 1;
  in.times.absolute_clock = true;
  in.times.implausible = 1;
  in.times.first_line = 9;
  InputFileSummary f;
  f.name = "logs/a.jsonl.zst";
  f.format = InputFormat::kJsonl;
  f.encoding = "zstd";
  f.framing = "json array";
  f.bytes = 987654;
  f.source = "litellm-spendlogs";
  f.requests = 2;
  f.filtered_status = 3;
  f.ignored = 4;
  f.untimed = 1;
  f.implausible = 1;
  for (uint64_t l = 1; l <= 9; ++l) f.skipped.Add("invalid JSON", l * 10);
  f.skipped.Add("too long", 4);
  in.files.push_back(f);
  RequestRecord a;
  a.line = 2;
  a.time_s = 1753351200.25;
  a.has_time = true;
  a.input_tokens = 40;
  a.output_tokens = 7;
  a.block_size = 16;
  a.block_ids = {1, 2, 0xffffffffffffffffull};
  a.conversation = "s0123";
  a.session_field = "x-session-id";
  a.model = "qwen3-32b";
  a.stream = 1;
  a.status_code = 200;
  a.type = "image";
  a.turn = 3;
  a.provider_cached_tokens = 32;
  a.exact_counts = true;
  a.tools_digest = 0xfeed;
  a.truncated_body = true;
  a.facts.cache_control = 4;
  a.facts.segments = {SegmentFact{0xdeadbeef, 0x12345678, 0, 0, 1, 0},
                      SegmentFact{0xcafef00d, 0xcafef00d, 12, 0xffff, 2, 1},
                      SegmentFact{7, 8, 30, 3, 4, 4}};
  a.facts.tools = {ToolFact{11, 12}, ToolFact{13, 0xffffffffu}};
  a.provider.cache_key = 0x1234567890abcdefull;
  a.provider.retention_24h = true;
  a.provider.automatic = 2;
  a.provider.blocks = {ProviderBlock{9, 100, 0}, ProviderBlock{10, 250, 1},
                       ProviderBlock{11, 400, 2}};
  a.provider.observed_write = 150;
  a.provider.observed_write_1h = 40;
  a.provider.bad_observation = BadObservation::kAbovePrompt;
  RequestRecord b;
  b.line = 5;
  b.block_size = 16;
  b.input_tokens = 3;
  b.model = "qwen3-32b";  // shares the string table entry
  b.subagent = true;
  in.records = {a, b};
  in.post_pass_pending = true;
  ConversationLinks la;
  la.known = true;
  la.own = 77;
  la.parents = {5, 6};
  in.post_pass.links = {la, ConversationLinks{}};
  in.post_pass.fillers = {Filler{"k1", "session_id"}, Filler{}};
  return s;
}

TEST(ShardCodec, EveryFieldRoundTrips) {
  const Shard s = Sample();
  const std::string bytes = EncodeShard(s);
  EXPECT_EQ(bytes.substr(0, 8), "LTLSHRD\n");
  auto d = DecodeShard(bytes, "x.ltlshard");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->tokenizer, s.tokenizer);
  EXPECT_EQ(d->salt_check, s.salt_check);
  EXPECT_EQ(d->template_name, s.template_name);
  EXPECT_EQ(d->origin, "");  // not serialised: ReadShardFile sets the path
  const LoadedInput& a = s.input;
  const LoadedInput& b = d->input;
  EXPECT_EQ(b.format, a.format);
  EXPECT_EQ(b.encoding, a.encoding);
  EXPECT_EQ(b.detection.framing, a.detection.framing);
  EXPECT_EQ(b.detection.document_key, a.detection.document_key);
  EXPECT_EQ(b.detection.reason, a.detection.reason);
  EXPECT_EQ(b.source, a.source);
  EXPECT_EQ(b.source_reason, a.source_reason);
  EXPECT_EQ(b.bytes, a.bytes);
  EXPECT_EQ(b.gateway, a.gateway);
  EXPECT_EQ(b.filtered_status, a.filtered_status);
  EXPECT_EQ(b.layouts, a.layouts);
  EXPECT_EQ(b.counting, a.counting);
  EXPECT_EQ(b.counting_estimate, a.counting_estimate);
  EXPECT_EQ(b.conformed_ids, a.conformed_ids);
  EXPECT_EQ(b.ignored, a.ignored);
  EXPECT_EQ(b.ignored_reason, a.ignored_reason);
  EXPECT_EQ(b.filler_values_ignored, a.filler_values_ignored);
  EXPECT_EQ(b.first_skip_reason, a.first_skip_reason);
  EXPECT_EQ(b.untimed, a.untimed);
  EXPECT_EQ(b.times.absolute_clock, a.times.absolute_clock);
  EXPECT_EQ(b.times.implausible, a.times.implausible);
  EXPECT_EQ(b.times.first_line, a.times.first_line);
  ASSERT_EQ(b.files.size(), 1u);
  const InputFileSummary& fa = a.files[0];
  const InputFileSummary& fb = b.files[0];
  EXPECT_EQ(fb.name, fa.name);
  EXPECT_EQ(fb.framing, fa.framing);
  EXPECT_EQ(fb.requests, fa.requests);
  EXPECT_EQ(fb.rows(), fa.rows());
  EXPECT_EQ(fb.skipped.total(), 10u);
  ASSERT_EQ(fb.skipped.by_reason().size(), 2u);
  EXPECT_EQ(fb.skipped.by_reason().at("invalid JSON").count, 9u);
  EXPECT_EQ(fb.skipped.by_reason().at("invalid JSON").lines,
            (std::vector<uint64_t>{10, 20, 30, 40, 50}));
  ASSERT_EQ(b.records.size(), 2u);
  const RequestRecord& ra = a.records[0];
  const RequestRecord& rb = b.records[0];
  EXPECT_EQ(rb.line, ra.line);
  EXPECT_EQ(rb.time_s, ra.time_s);
  EXPECT_EQ(rb.has_time, ra.has_time);
  EXPECT_EQ(rb.input_tokens, ra.input_tokens);
  EXPECT_EQ(rb.output_tokens, ra.output_tokens);
  EXPECT_EQ(rb.block_size, ra.block_size);
  EXPECT_EQ(rb.block_ids, ra.block_ids);
  EXPECT_EQ(rb.conversation, ra.conversation);
  EXPECT_EQ(rb.session_field, ra.session_field);
  EXPECT_EQ(rb.model, ra.model);
  EXPECT_EQ(rb.stream, ra.stream);
  EXPECT_EQ(rb.status_code, ra.status_code);
  EXPECT_EQ(rb.type, ra.type);
  EXPECT_EQ(rb.turn, ra.turn);
  EXPECT_EQ(rb.provider_cached_tokens, ra.provider_cached_tokens);
  EXPECT_EQ(rb.exact_counts, ra.exact_counts);
  EXPECT_EQ(rb.tools_digest, ra.tools_digest);
  EXPECT_EQ(rb.truncated_body, ra.truncated_body);
  EXPECT_EQ(rb.facts.cache_control, 4);
  PromptFacts scratch;
  const PromptFacts& facts_b =
      ReadFacts(rb.facts, &scratch);  // the lists went to the shard's store
  ASSERT_EQ(facts_b.segments.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    const SegmentFact& x = ra.facts.segments[k];
    const SegmentFact& y = facts_b.segments[k];
    EXPECT_EQ(y.digest, x.digest);
    EXPECT_EQ(y.masked_digest, x.masked_digest);
    EXPECT_EQ(y.token_start, x.token_start);
    EXPECT_EQ(y.item, x.item);
    EXPECT_EQ(y.kind, x.kind);
    EXPECT_EQ(y.role, x.role);
  }
  ASSERT_EQ(facts_b.tools.size(), 2u);
  EXPECT_EQ(facts_b.tools[1].name_digest, 13u);
  EXPECT_EQ(facts_b.tools[1].definition_digest, 0xffffffffu);
  EXPECT_EQ(rb.provider.cache_key, 0x1234567890abcdefull);
  EXPECT_TRUE(rb.provider.retention_24h);
  EXPECT_EQ(rb.provider.automatic, 2);
  ASSERT_EQ(rb.provider.blocks.size(), 3u);
  EXPECT_EQ(rb.provider.blocks[1].prefix, 10u);
  EXPECT_EQ(rb.provider.blocks[1].tokens, 250u);
  EXPECT_EQ(rb.provider.blocks[2].breakpoint, 2);
  EXPECT_EQ(rb.provider.observed_write, 150);
  EXPECT_EQ(rb.provider.observed_write_1h, 40);
  EXPECT_EQ(rb.provider.bad_observation, BadObservation::kAbovePrompt);
  EXPECT_EQ(b.records[1].facts.cache_control, -1);
  EXPECT_TRUE(b.records[1].facts.empty());
  EXPECT_TRUE(b.records[1].subagent);
  EXPECT_FALSE(b.records[1].has_time);
  EXPECT_EQ(b.records[1].output_tokens, -1);
  EXPECT_EQ(b.records[1].type, "text");
  ASSERT_TRUE(b.post_pass_pending);
  ASSERT_EQ(b.post_pass.links.size(), 2u);
  EXPECT_TRUE(b.post_pass.links[0].known);
  EXPECT_EQ(b.post_pass.links[0].own, 77u);
  EXPECT_EQ(b.post_pass.links[0].parents, (std::vector<uint64_t>{5, 6}));
  EXPECT_FALSE(b.post_pass.links[1].known);
  EXPECT_EQ(b.post_pass.fillers[0].key, "k1");
  EXPECT_EQ(b.post_pass.fillers[0].field, "session_id");
  EXPECT_EQ(EncodeShard(*d), bytes);
}

TEST(ShardCodec, TruncatedAtEveryLengthIsCorruptNamingTheOffset) {
  const std::string bytes = EncodeShard(Sample());
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto d = DecodeShard(std::string_view(bytes).substr(0, n), "t.ltlshard");
    ASSERT_FALSE(d.ok()) << n;
    EXPECT_EQ(d.status().code(), Status::Code::kCorrupt);
    EXPECT_EQ(d.status().message().rfind("t.ltlshard: offset ", 0), 0u) << d.status().message();
  }
  auto d = DecodeShard(std::string_view(bytes).substr(0, bytes.size() - 1), "t.ltlshard");
  EXPECT_NE(d.status().message().find("truncated shard"), std::string::npos)
      << d.status().message();
}

TEST(ShardCodec, FlippedByteVersionAndTrailingBytesAreRefused) {
  const std::string bytes = EncodeShard(Sample());
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x40;
  auto d = DecodeShard(flipped, "f.ltlshard");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("CRC-32"), std::string::npos) << d.status().message();
  std::string v3 = bytes;
  v3[8] = 3;
  d = DecodeShard(v3, "v.ltlshard");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("shard version 3"), std::string::npos);
  d = DecodeShard(bytes + "x", "x.ltlshard");
  ASSERT_FALSE(d.ok());
  d = DecodeShard("{\"timestamp\": 1}\n", "j.ltlshard");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("not a shard"), std::string::npos);
}

// A payload whose checksum is right but whose record count claims more than the file holds: the
// count check refuses it before allocating.
TEST(ShardCodec, CountBeyondTheFileIsRefusedBeforeAllocating) {
  Shard s = Sample();
  s.input.records.clear();
  s.input.post_pass_pending = false;
  s.input.post_pass = GatewayPostPass();
  std::string bytes = EncodeShard(s);
  // The record count is the u64 right before the post-pass flag, end mark (1 + 4 bytes at the end).
  const size_t at = bytes.size() - 5 - 8;
  ASSERT_EQ(bytes[at], 0);
  bytes[at + 6] = 0x7f;  // ~2^54 records
  std::string payload = bytes.substr(28);
  uLong c = crc32(0L, Z_NULL, 0);
  c = crc32(c, reinterpret_cast<const Bytef*>(payload.data()), static_cast<uInt>(payload.size()));
  for (int i = 0; i < 4; ++i) bytes[24 + i] = static_cast<char>(c >> (8 * i));
  auto d = DecodeShard(bytes, "c.ltlshard");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("cannot fit"), std::string::npos) << d.status().message();
  EXPECT_NE(d.status().message().find("c.ltlshard: offset "), std::string::npos);
}

// Three turns of one conversation, each repeating the turn before and adding to it, between turns
// of another conversation: each turn is stored as a reference to its previous turn plus its own
// new ids and segments (version 6), so the shard is much shorter than the ids themselves, and
// every id, segment and tool comes back where it was.
Shard Conversations() {
  Shard s = Sample();
  s.input.post_pass_pending = false;
  s.input.post_pass = GatewayPostPass();
  s.input.records.clear();
  std::vector<uint64_t> ids_a, ids_b;
  std::vector<SegmentFact> seg_a, seg_b;
  const std::vector<ToolFact> tools = {ToolFact{1, 2}, ToolFact{3, 4}};
  for (int turn = 0; turn < 3; ++turn) {
    for (int c = 0; c < 2; ++c) {
      std::vector<uint64_t>& ids = c == 0 ? ids_a : ids_b;
      std::vector<SegmentFact>& seg = c == 0 ? seg_a : seg_b;
      for (uint64_t k = 0; k < 500; ++k)
        ids.push_back((uint64_t{1} << 63) | (uint64_t(c) << 40) | (uint64_t(turn) << 20) | k);
      seg.push_back(SegmentFact{uint32_t(100 * turn + c), 7, uint32_t(seg.size() * 10), 0, 1, 1});
      RequestRecord r;
      r.line = s.input.records.size() + 2;
      r.block_size = 16;
      r.input_tokens = static_cast<int64_t>(ids.size()) * 16;
      r.conversation = c == 0 ? "conv-a" : "conv-b";
      r.block_ids = ids;
      r.facts.segments = seg;
      r.facts.tools = tools;
      s.input.records.push_back(r);
    }
  }
  return s;
}

TEST(ShardCodec, TurnsTakeTheirPrefixFromThePreviousTurn) {
  const Shard s = Conversations();
  size_t id_bytes = 0;
  for (const RequestRecord& r : s.input.records) id_bytes += r.block_ids.size() * 8;
  const std::string bytes = EncodeShard(s);
  // Only each turn's 500 new ids are written: 6 x 500 x 8 bytes of the 42,000 ids' bytes.
  EXPECT_LT(bytes.size(), 6 * 500 * 8 + 2000) << id_bytes;
  EXPECT_GT(id_bytes, 40000u);
  auto d = DecodeShard(bytes, "c.ltlshard");
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->input.records.size(), s.input.records.size());
  for (size_t i = 0; i < s.input.records.size(); ++i) {
    const RequestRecord& a = s.input.records[i];
    const RequestRecord& b = d->input.records[i];
    EXPECT_EQ(b.conversation, a.conversation) << i;
    EXPECT_EQ(b.block_ids, a.block_ids) << i;
    PromptFacts scratch;
    const PromptFacts& fb = ReadFacts(b.facts, &scratch);
    ASSERT_EQ(fb.segments.size(), a.facts.segments.size()) << i;
    for (size_t k = 0; k < a.facts.segments.size(); ++k) {
      EXPECT_EQ(fb.segments[k].digest, a.facts.segments[k].digest) << i;
      EXPECT_EQ(fb.segments[k].token_start, a.facts.segments[k].token_start) << i;
    }
    ASSERT_EQ(fb.tools.size(), 2u) << i;
    EXPECT_EQ(fb.tools[1].definition_digest, 4u) << i;
    // As the read does (ingest/facts_sharer.h), the loaded shard keeps its lists in one store,
    // each turn's shared segments once: 2 conversations x 3 turns of 1 new segment each.
    ASSERT_TRUE(b.facts.shared.store) << i;
    EXPECT_TRUE(b.facts.segments.empty()) << i;
  }
  EXPECT_EQ(d->input.records.front().facts.shared.store->kept_segments(), 6u);
  EXPECT_EQ(d->input.records.front().facts.shared.store->tool_lists(), 2u);  // {} and the list
  EXPECT_EQ(EncodeShard(*d), bytes);
}

// Decoded for interning, a shard leaves out the ids each turn shares with its reference; interning
// it takes them from the interner and gives what interning the whole ids gives, and putting them
// back gives the whole ids.
TEST(ShardCodec, IdsLeftOutForInterningInternAsTheWholeIds) {
  const Shard s = Conversations();
  const std::string bytes = EncodeShard(s);
  auto lean = DecodeShard(bytes, "l.ltlshard", /*leave_shared_ids=*/true);
  ASSERT_TRUE(lean.ok()) << lean.status().message();
  ASSERT_EQ(lean->id_prefixes.size(), s.input.records.size());
  EXPECT_EQ(lean->id_prefixes[2].back, 2u);  // conv-a's second turn: its first turn's 500 ids
  EXPECT_EQ(lean->id_prefixes[2].count, 500u);
  EXPECT_EQ(lean->input.records[2].block_ids.size(), 500u);
  Shard restored = *lean;
  RestoreSharedIds(&restored);
  EXPECT_TRUE(restored.id_prefixes.empty());
  for (size_t i = 0; i < s.input.records.size(); ++i)
    EXPECT_EQ(restored.input.records[i].block_ids, s.input.records[i].block_ids) << i;
  BlockInterner from_lean, from_whole;
  InternShard(&*lean, &from_lean);
  for (const RequestRecord& r : s.input.records) from_whole.Add(r.block_ids);
  ASSERT_EQ(from_lean.records(), from_whole.records());
  EXPECT_EQ(from_lean.distinct_blocks(), from_whole.distinct_blocks());
  EXPECT_EQ(from_lean.block_accesses(), from_whole.block_accesses());
  std::vector<uint32_t> a, b;
  for (size_t r = 0; r < from_whole.records(); ++r) {
    from_whole.Materialize(r, &a);
    from_lean.Materialize(r, &b);
    EXPECT_EQ(b, a) << r;
    EXPECT_TRUE(lean->input.records[r].block_ids.empty()) << r;
  }
}

// The payload of `bytes` re-sealed with a correct checksum after `edit` changed it.
std::string Reseal(std::string bytes) {
  std::string payload = bytes.substr(28);
  uLong c = crc32(0L, Z_NULL, 0);
  c = crc32(c, reinterpret_cast<const Bytef*>(payload.data()), static_cast<uInt>(payload.size()));
  for (int i = 0; i < 4; ++i) bytes[24 + i] = static_cast<char>(c >> (8 * i));
  return bytes;
}

// A reference before the first record, or more ids or segments taken from it than it holds, is a
// Corrupt status naming the record, not a read outside the records.
TEST(ShardCodec, ReferenceBeyondTheRecordsOrTheirIdsIsRefused) {
  const Shard s = Conversations();
  const std::string bytes = EncodeShard(s);
  // The first id written for the third record (conv-a's second turn: its own 500 new ids follow
  // the 500 taken from the first record), located by its value; before it: count, back, taken.
  const uint64_t first_new = (uint64_t{1} << 63) | (uint64_t{1} << 20);
  const std::string needle(reinterpret_cast<const char*>(&first_new), 8);
  const size_t at = bytes.find(needle);
  ASSERT_NE(at, std::string::npos);
  auto put32 = [](std::string* b, size_t off, uint32_t v) {
    for (int i = 0; i < 4; ++i) (*b)[off + i] = static_cast<char>(v >> (8 * i));
  };
  auto get32 = [&](size_t off) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(static_cast<uint8_t>(bytes[off + i])) << (8 * i);
    return v;
  };
  ASSERT_EQ(get32(at - 12), 1000u);  // its ids
  ASSERT_EQ(get32(at - 8), 2u);      // two records back: conv-a's first turn
  ASSERT_EQ(get32(at - 4), 500u);    // the ids taken from it
  std::string far = bytes;
  put32(&far, at - 8, 3);
  auto d = DecodeShard(Reseal(far), "r.ltlshard");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("record 3 refers to a record 3 back"), std::string::npos)
      << d.status().message();
  std::string many = bytes;
  put32(&many, at - 4, 501);
  d = DecodeShard(Reseal(many), "r.ltlshard");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(
      d.status().message().find("takes 501 of its 1000 block ids from a reference holding 500"),
      std::string::npos)
      << d.status().message();
  EXPECT_EQ(d.status().code(), Status::Code::kCorrupt);
}

}  // namespace
}  // namespace ltl
