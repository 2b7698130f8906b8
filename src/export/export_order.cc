// Export order (see export_order.h).
#include "export/export_order.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ltl {

ExportOrder OrderForExport(const std::vector<RequestRecord>& records) {
  ExportOrder o;
  o.time_s.resize(records.size());
  bool any_timed = false;
  double earliest = 0;
  for (const auto& r : records) {
    if (!r.has_time) continue;
    earliest = any_timed ? std::min(earliest, r.time_s) : r.time_s;
    any_timed = true;
  }
  // BuildTrace gives leading untimed rows time 0, which sorts them first whenever times are not
  // negative; the earliest timed time sorts them first as well and keeps relative times >= 0.
  double last = earliest;
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].has_time) {
      last = records[i].time_s;
    } else {
      ++o.untimed;
    }
    o.time_s[i] = last;
  }
  o.order.resize(records.size());
  std::iota(o.order.begin(), o.order.end(), 0u);
  std::stable_sort(o.order.begin(), o.order.end(),
                   [&](uint32_t a, uint32_t b) { return o.time_s[a] < o.time_s[b]; });
  return o;
}

namespace {
// Times past year 128,000 (or before -124,000) are clamped so microseconds, and differences of
// two of them, fit in int64.
double ClampSeconds(double s) {
  return std::clamp(s, -4e12, 4e12);
}
}  // namespace

int64_t RoundToMillis(double seconds) {
  return std::llround(ClampSeconds(seconds) * 1e3);
}
int64_t RoundToMicros(double seconds) {
  return std::llround(ClampSeconds(seconds) * 1e6);
}

}  // namespace ltl
