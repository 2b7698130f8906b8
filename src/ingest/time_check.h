// Implausible request times: a time that cannot be the moment a request was served (a zero or
// absurd value, a unit mismatch such as epoch microseconds among milliseconds) would stretch the
// time axis over centuries. Both profile and export run this one rule right after reading, and
// such a time is then treated as missing (the request takes its neighbour's time,
// common/replay_order.h), counted, and named in the report or on stderr.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/request_record.h"

namespace ltl {

// The rule (docs/ROBUSTNESS.md "Times"): the anchor is the median of the timed requests. When the
// anchor lies in [2000-01-01, now + 1 day] the input is on an absolute clock and any time outside
// that window is implausible; on any clock, a time more than 10 years from the anchor is.
inline constexpr double kEarliestPlausibleEpoch = 946684800.0;  // 2000-01-01T00:00:00Z
inline constexpr double kMaxTimeFromAnchorS = 10 * 365.25 * 86400;

struct TimeCheck {
  bool absolute_clock = false;  // the anchor is a plausible epoch time
  uint64_t implausible = 0;     // timed requests whose time was dropped
  uint64_t first_line = 0;      // input line/record of the first of them (0 = none)
  // One line for a report or stderr, "" when nothing was dropped (never prints a time value
  // the input could use to carry text; only counts and the rule).
  std::string Message() const;
};

// The window the timed requests' times define (`times` holds each timed request's time).
struct TimeWindow {
  double anchor = 0;
  bool absolute_clock = false;
  double latest = 0;  // now + 1 day
  bool Implausible(double t) const;
};
TimeWindow PlausibleTimes(std::vector<double> times, double now_s);

// Marks every implausible time as missing (has_time = false) and returns what it did. `Row` has
// `line`, `time_s` and `has_time` (RequestRecord, the cctrace export's calls); replay-only records
// are left alone. `now_s` is the current epoch time (a parameter so tests can fix it).
template <class Row>
TimeCheck DropImplausibleTimes(std::vector<Row>* rows, double now_s) {
  auto counts = [](const Row& r) {
    if constexpr (requires { r.replay_only; })
      return r.has_time && !r.replay_only;
    else
      return r.has_time;
  };
  std::vector<double> times;
  for (const Row& r : *rows)
    if (counts(r)) times.push_back(r.time_s);
  TimeCheck check;
  if (times.empty()) return check;
  const TimeWindow window = PlausibleTimes(std::move(times), now_s);
  check.absolute_clock = window.absolute_clock;
  for (Row& r : *rows) {
    if (!counts(r) || !window.Implausible(r.time_s)) continue;
    r.has_time = false;
    if (check.implausible++ == 0) check.first_line = r.line;
  }
  return check;
}

// Seconds since the epoch now (system clock).
double EpochNow();

}  // namespace ltl
