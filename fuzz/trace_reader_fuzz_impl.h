// The body of the mooncake and bailian fuzz targets (one target per format, sharing this code).
// Properties beyond "no crash": reading the same bytes with a 64-byte buffer fed 1..257 bytes at a
// time and with a 64 KiB buffer (larger than any fuzz input) fed whole gives identical records and
// identical skip counts; every non-blank line is either a record or a counted skip (nothing
// silently dropped); every record's block list matches its input length. The small-buffer read
// streams each record's ids into a sink (as the ingest stage streams them into the interner): the
// sink sees the same ids, in record order, that the other read leaves in the records.
#pragma once

#include "fuzz/fuzz_util.h"
#include "read/trace_readers.h"

namespace ltl::fuzz {

using TraceReadFn = Status (*)(InputStream*, ReadContext*, std::vector<RequestRecord>*,
                               const TakeIds&);

inline void FuzzTraceReader(TraceReadFn read, const uint8_t* data, size_t size) {
  if (size < 1) return;
  const size_t chunk = 1 + data[0];
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);

  auto run = [&](size_t buffer, size_t chunk_bytes, SkipCounter* skips,
                 std::vector<RequestRecord>* out, const TakeIds& take_ids) {
    MemoryStream in(text, chunk_bytes);
    ReadContext ctx;
    ctx.name = "fuzz";
    ctx.skips = skips;
    ctx.limits.buffer_bytes = buffer;
    return read(&in, &ctx, out, take_ids);
  };
  SkipCounter small_skips, big_skips;
  std::vector<RequestRecord> small, big;
  std::vector<std::vector<uint64_t>> taken;
  Status a = run(64, chunk, &small_skips, &small, [&](std::vector<uint64_t>* ids) {
    taken.push_back(std::move(*ids));
    ids->clear();
  });
  Status b = run(1 << 16, text.size() + 1, &big_skips, &big, {});
  LTL_FUZZ_CHECK(a.ok() && b.ok());  // a memory stream never fails
  LTL_FUZZ_CHECK(taken.size() == small.size());
  for (size_t i = 0; i < small.size(); ++i) {
    LTL_FUZZ_CHECK(small[i].block_ids.empty());  // the sink took them
    small[i].block_ids = std::move(taken[i]);
  }
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
