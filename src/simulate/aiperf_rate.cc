// AIPerf cache_hit_rate and the exact summation it needs (see aiperf_rate.h).
#include "simulate/aiperf_rate.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ltl {

void ExactSum::Add(double x) {
  size_t i = 0;
  for (double y : partials_) {
    if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
    double hi = x + y;
    double lo = y - (hi - x);
    if (lo != 0.0) partials_[i++] = lo;
    x = hi;
  }
  partials_.resize(i);
  partials_.push_back(x);
}

double ExactSum::Value() const {
  // Sum the non-overlapping partials from the top, with the round-half-even correction of fsum.
  if (partials_.empty()) return 0.0;
  size_t n = partials_.size();
  double hi = partials_[--n];
  double lo = 0;
  while (n > 0) {
    double x = hi;
    double y = partials_[--n];
    hi = x + y;
    double yr = hi - x;
    lo = y - yr;
    if (lo != 0.0) break;
  }
  if (n > 0 && ((lo < 0 && partials_[n - 1] < 0) || (lo > 0 && partials_[n - 1] > 0))) {
    double y = lo * 2;
    double x = hi + y;
    double yr = x - hi;
    if (y == yr) hi = x;
  }
  return hi;
}

double AiperfCacheHitRate(const Trace& trace, bool in_file_order) {
  std::vector<uint32_t> by_record(trace.requests.size());
  for (uint32_t i = 0; i < trace.requests.size(); ++i) by_record[i] = i;
  if (in_file_order)
    std::sort(by_record.begin(), by_record.end(), [&](uint32_t a, uint32_t b) {
      return trace.requests[a].record < trace.requests[b].record;
    });
  std::vector<uint8_t> seen(trace.num_blocks, 0);
  ExactSum sum;
  uint64_t counted = 0;
  BlockCursor cursor(trace);
  for (uint32_t i : by_record) {
    const TraceRequest& r = trace.requests[i];
    if (r.num_blocks == 0) continue;
    const uint32_t* ids = cursor.Blocks(r);
    if (r.replay_only) {  // pre-populates the set, is not a request
      for (uint32_t j = 0; j < r.num_blocks; ++j) seen[ids[j]] = 1;
      continue;
    }
    uint32_t k = 0;
    while (k < r.num_blocks && seen[ids[k]]) ++k;
    sum.Add(static_cast<double>(k) / static_cast<double>(r.num_blocks));
    ++counted;
    for (uint32_t j = 0; j < r.num_blocks; ++j) seen[ids[j]] = 1;
  }
  return counted ? sum.Value() / static_cast<double>(counted) : 0.0;
}

}  // namespace ltl
