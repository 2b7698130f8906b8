// ReplayOrder: the one rule for the order in which requests replay and the time each replays at,
// shared by the trace builder, the exports and turn numbering. Requests sort by time, stably (ties
// keep input order). A request without a time takes the time of the previous timed request in
// input order, which keeps it at its input position; requests before the first timed one take the
// earliest time in the input, so they sort first without being dated 1970; with no time at all,
// every time is 0 (relative).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

namespace ltl {

struct ReplayOrder {
  std::vector<uint32_t> order;  // input indices in replay order
  std::vector<double> time_s;   // per input index: the time it replays at
  uint64_t untimed = 0;         // requests that carried no time
};

// `items` is any sequence whose elements have `bool has_time` and `double time_s`.
template <typename Items>
ReplayOrder OrderForReplay(const Items& items) {
  ReplayOrder o;
  const size_t n = items.size();
  o.time_s.resize(n);
  bool any = false;
  double earliest = 0;
  // A non-finite time counts as none (the readers never produce one, ingest/time_check.h; this
  // keeps the sort's ordering strict whatever the caller hands in).
  auto timed = [](const auto& it) { return it.has_time && std::isfinite(it.time_s); };
  for (const auto& it : items) {
    if (!timed(it)) continue;
    earliest = any ? std::min(earliest, it.time_s) : it.time_s;
    any = true;
  }
  double last = earliest;
  size_t i = 0;
  for (const auto& it : items) {
    if (timed(it))
      last = it.time_s;
    else
      ++o.untimed;
    o.time_s[i++] = last;
  }
  o.order.resize(n);
  std::iota(o.order.begin(), o.order.end(), 0u);
  std::stable_sort(o.order.begin(), o.order.end(),
                   [&o](uint32_t a, uint32_t b) { return o.time_s[a] < o.time_s[b]; });
  return o;
}

}  // namespace ltl
