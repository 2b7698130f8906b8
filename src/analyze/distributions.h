// ComputeDistributions: token, timing, model, status and conversation distributions of the
// replayed requests (report sections "distributions" and the terminal's second line).
#pragma once

#include <cstddef>
#include <vector>

#include "analyze/profile.h"
#include "common/request_record.h"
#include "simulate/trace.h"

namespace ltl {

// Nearest-rank quantiles of `values` (sorted in place).
Quantiles ComputeQuantiles(std::vector<int64_t>& values);
// Log2-binned histogram of positive values (zeros go to a [0,1) bin).
std::vector<HistogramBin> Log2Histogram(const std::vector<int64_t>& values);

// Requests-per-second over time: about 100 bins of a round width (1 s ... 1 day, then whole days
// in 1-2-5 steps), so even an absurd span gives a small chart; never more than kMaxQpsBins.
inline constexpr size_t kMaxQpsBins = 10000;
double QpsBinWidth(double duration_s);

Distributions ComputeDistributions(const std::vector<RequestRecord>& records, const Trace& trace);

}  // namespace ltl
