// The body of the mooncake and bailian fuzz targets (one target per format, sharing this code).
// Properties beyond "no crash": reading the same bytes with a 64-byte buffer fed 1..257 bytes at a
// time and with a 64 KiB buffer (larger than any fuzz input) fed whole gives identical records and
// identical skip counts; every non-blank line is either a record or a counted skip (nothing
// silently dropped); every record's block list matches its input length.
#pragma once

#include "fuzz/fuzz_util.h"
#include "read/trace_readers.h"

namespace ltl::fuzz {

using TraceReadFn = Status (*)(InputStream*, ReadContext*, std::vector<RequestRecord>*);

inline void FuzzTraceReader(TraceReadFn read, const uint8_t* data, size_t size) {
  if (size < 1) return;
  const size_t chunk = 1 + data[0];
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);

  auto run = [&](size_t buffer, size_t chunk_bytes, SkipCounter* skips,
                 std::vector<RequestRecord>* out) {
    MemoryStream in(text, chunk_bytes);
    ReadContext ctx;
    ctx.name = "fuzz";
    ctx.skips = skips;
    ctx.limits.buffer_bytes = buffer;
    return read(&in, &ctx, out);
  };
  SkipCounter small_skips, big_skips;
  std::vector<RequestRecord> small, big;
  Status a = run(64, chunk, &small_skips, &small);
  Status b = run(1 << 16, text.size() + 1, &big_skips, &big);
  LTL_FUZZ_CHECK(a.ok() && b.ok());  // a memory stream never fails
  LTL_FUZZ_CHECK(SameRecords(small, big));
  LTL_FUZZ_CHECK(SameSkips(small_skips, big_skips));
  LTL_FUZZ_CHECK(small.size() + small_skips.total() == NonBlankLines(text));
  for (const RequestRecord& r : small) {
    LTL_FUZZ_CHECK(r.block_size > 0);
    LTL_FUZZ_CHECK(r.block_ids.size() ==
                   (static_cast<uint64_t>(r.input_tokens) + r.block_size - 1) / r.block_size);
  }
}

}  // namespace ltl::fuzz
