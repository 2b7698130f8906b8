// --show-prefix-text N: a second pass over a gateway log that renders again only the rows that
// first contained each listed prefix, and stores the first N characters of each prefix in the
// leaderboard rows. Opt-in: without the flag no prompt text reaches any output.
// Internal to src/pipeline/ (tests/build/internal_headers.cmake).
#pragma once

#include <cstddef>
#include <string>

#include "analyze/leaderboards.h"
#include "common/status.h"
#include "ingest/ingest_context.h"
#include "read/input_format.h"

namespace ltl {

// `ctx` is the first pass's context (its gateway options are reused; nothing is counted or
// printed again). `block_size` is the gateway block size used by the first pass.
Status FillPrefixText(const std::string& path, InputFormat format, const IngestContext& ctx,
                      uint32_t block_size, size_t n_chars, Leaderboards* lb);

}  // namespace ltl
