// Export order: the order and times at which exported requests replay. Requests are sorted by time,
// stably, exactly as `profile` replays them (BuildTrace), so that profiling an export replays the
// same sequence as profiling the log it came from.
#pragma once

#include <cstdint>
#include <vector>

#include "common/request_record.h"

namespace ltl {

struct ExportOrder {
  std::vector<uint32_t> order;  // record indices in replay order
  std::vector<double> time_s;   // per record index: the time written (untimed rows inherited one)
  uint64_t untimed = 0;         // records that carried no timestamp
};

// A record without a time takes the time of the previous timed record in file order (the earliest
// timed record's time when none precedes it, 0 when no record has a time), as BuildTrace does.
ExportOrder OrderForExport(const std::vector<RequestRecord>& records);

// Whole milliseconds / microseconds of a time in seconds, rounded to nearest (monotone, so sorted
// times stay non-decreasing).
int64_t RoundToMillis(double seconds);
int64_t RoundToMicros(double seconds);

}  // namespace ltl
