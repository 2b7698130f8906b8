// libFuzzer target: the per-conversation cache trace reader (one JSON document per file, nested
// sub-agents). Properties beyond "no crash": reading the same bytes fed 1..256 bytes at a time and
// fed whole gives identical records, skip counts and statistics; reading is deterministic across
// two fresh readers; every record has a block size and a block list that covers its input length
// at most (replay-only warm records included).
#include "fuzz/fuzz_util.h"
#include "read/cctrace_reader.h"

namespace {

struct Run {
  ltl::Status status;
  std::vector<ltl::RequestRecord> records;
  ltl::SkipCounter skips;
  ltl::CctraceReadStats stats;
};

void ReadOnce(std::string_view text, size_t chunk, bool warm, Run* run) {
  ltl::fuzz::MemoryStream in(text, chunk);
  ltl::ReadContext ctx;
  ctx.name = "fuzz.json";
  ctx.skips = &run->skips;
  ctx.limits.buffer_bytes = 64;
  ltl::CctraceOptions options;
  options.warm_prefix = warm;
  run->status = ltl::ReadCctraceStream(&in, options, &ctx, &run->records, &run->stats);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t chunk = 1 + data[0];
  const bool warm = data[0] & 1;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  Run small, big;
  ReadOnce(text, chunk, warm, &small);
  ReadOnce(text, text.size() + 1, warm, &big);
  LTL_FUZZ_CHECK(small.status.ok() == big.status.ok() &&
                 small.status.message() == big.status.message());
  LTL_FUZZ_CHECK(ltl::fuzz::SameRecords(small.records, big.records));
  LTL_FUZZ_CHECK(ltl::fuzz::SameSkips(small.skips, big.skips));
  LTL_FUZZ_CHECK(small.stats.files == big.stats.files &&
                 small.stats.subagents == big.stats.subagents &&
                 small.stats.warm_blocks == big.stats.warm_blocks &&
                 small.stats.parent_in == big.stats.parent_in &&
                 small.stats.subagent_out == big.stats.subagent_out);
  for (const ltl::RequestRecord& r : small.records) LTL_FUZZ_CHECK(r.block_size > 0);
  return 0;
}
