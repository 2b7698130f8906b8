// DropImplausibleTimes (see time_check.h).
#include "ingest/time_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "common/units.h"

namespace ltl {

double EpochNow() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

TimeWindow PlausibleTimes(std::vector<double> times, double now_s) {
  TimeWindow w;
  w.latest = now_s + 86400;
  if (times.empty()) return w;
  // The lower median: with two requests, the earlier one is the anchor.
  auto mid = times.begin() + static_cast<std::ptrdiff_t>((times.size() - 1) / 2);
  std::nth_element(times.begin(), mid, times.end());
  w.anchor = *mid;
  w.absolute_clock = w.anchor >= kEarliestPlausibleEpoch && w.anchor <= w.latest;
  return w;
}

bool TimeWindow::Implausible(double t) const {
  if (!std::isfinite(t) || std::fabs(t - anchor) > kMaxTimeFromAnchorS) return true;
  return absolute_clock && (t < kEarliestPlausibleEpoch || t > latest);
}

std::string TimeCheck::Message() const {
  if (implausible == 0) return "";
  return fmt::format(
      "{} request time{} implausible (first at line/record {}): {}; treated as missing "
      "(each takes the previous request's time)",
      WithCommas(static_cast<int64_t>(implausible)), implausible == 1 ? " is" : "s are", first_line,
      absolute_clock ? "before 2000-01-01, after tomorrow, or more than 10 years from the median "
                       "time"
                     : "more than 10 years from the median time (a unit mismatch?)");
}

}  // namespace ltl
