// The body of the gateway-log fuzz targets (CSV and JSONL). Properties beyond "no crash":
//  - reading the same bytes with a 64-byte buffer fed 1..256 bytes at a time and with a 1 MiB
//    buffer fed whole gives identical records, skip counts, filtered counts and status;
//  - records carry only anonymous keys: a conversation is "", a keyed session digest ('s' and 16
//    hex digits) or an inferred conversation number ('p' and 8 hex digits), a session field is ""
//    or one of the fixed report names (never input text);
//  - the layout byte chooses --template, so every layout renders fuzzed bodies.
#pragma once

#include "fuzz/fuzz_util.h"
#include "ingest/gateway_readers.h"
#include "render/layout.h"

namespace ltl::fuzz {

struct GatewayRun {
  Status status;
  std::vector<RequestRecord> records;
  SkipCounter skips;
  GatewayReadStats stats;
};

inline bool AnonymousKey(const std::string& k) {
  if (k.empty()) return true;
  const bool session = k.size() == 17 && k[0] == 's';
  const bool inferred = k.size() == 9 && k[0] == 'p';  // InferConversations' counter
  if (!session && !inferred) return false;
  return k.find_first_not_of("0123456789abcdef", 1) == std::string::npos;
}

// Returns the run with the small buffer (after checking it against the big one).
inline GatewayRun FuzzGateway(const Detection& detection, const uint8_t* data, size_t size,
                              std::string_view* text_out) {
  GatewayRun small;
  if (size < 2) return small;
  const size_t chunk = 1 + data[0];
  GatewayConfig config;
  constexpr size_t kLayouts = sizeof kAllLayouts / sizeof kAllLayouts[0];  // every layout
  config.layout = kAllLayouts[data[1] % kLayouts];
  config.key = SipKey{0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};
  config.block_size = 1 + (data[1] / kLayouts) % 32;
  std::string_view text(reinterpret_cast<const char*>(data) + 2, size - 2);
  *text_out = text;

  auto run = [&](size_t buffer, size_t chunk_bytes, GatewayRun* out) {
    MemoryStream in(text, chunk_bytes);
    IngestContext ctx;
    ctx.name = "fuzz";
    ctx.skips = &out->skips;
    ctx.limits.buffer_bytes = buffer;
    out->status = ReadGateway(&in, detection, &ctx, config, &out->records, &out->stats);
  };
  GatewayRun big;
  run(64, chunk, &small);
  run(1 << 16, text.size() + 1, &big);
  LTL_FUZZ_CHECK(small.status.code() == big.status.code() &&
                 small.status.message() == big.status.message());
  LTL_FUZZ_CHECK(SameRecords(small.records, big.records));
  LTL_FUZZ_CHECK(SameSkips(small.skips, big.skips));
  LTL_FUZZ_CHECK(small.stats.filtered_status == big.stats.filtered_status);
  LTL_FUZZ_CHECK(small.stats.ignored == big.stats.ignored);
  LTL_FUZZ_CHECK(small.stats.source == big.stats.source);
  LTL_FUZZ_CHECK(small.stats.layouts == big.stats.layouts);

  for (const RequestRecord& r : small.records) {
    LTL_FUZZ_CHECK(AnonymousKey(r.conversation));
    // Session field names come from fixed tables ("header x-session-id", "metadata.user_id
    // (Claude Code)"): letters and punctuation, never an input value (fuzzed values hold digits,
    // quotes, braces...).
    LTL_FUZZ_CHECK(r.session_field.size() < 64 &&
                   r.session_field.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                                     "ABCDEFGHIJKLMNOPQRSTUVWXYZ_.-() ") ==
                       std::string::npos);
    LTL_FUZZ_CHECK(r.block_size == config.block_size);
  }
  return small;
}

}  // namespace ltl::fuzz
