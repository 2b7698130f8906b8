// Export order: the order and times at which exported requests replay — the same rule `profile`
// replays them by (common/replay_order.h), so profiling an export replays the same sequence as
// profiling the log it came from — and the rounding of times for the written lines.
#pragma once

#include <cstdint>
#include <vector>

#include "common/replay_order.h"
#include "common/request_record.h"

namespace ltl {

// The replay order of common/replay_order.h (the one BuildTrace uses).
inline ReplayOrder OrderForExport(const std::vector<RequestRecord>& records) {
  return OrderForReplay(records);
}

// Whole milliseconds / microseconds of a time in seconds, rounded to nearest (monotone, so sorted
// times stay non-decreasing).
int64_t RoundToMillis(double seconds);
int64_t RoundToMicros(double seconds);

}  // namespace ltl
