// ComputeDistributions: token, timing, model, status and conversation distributions of the
// replayed requests (report sections "distributions" and the terminal's second line).
#pragma once

#include <vector>

#include "analyze/profile.h"
#include "common/request_record.h"
#include "simulate/trace.h"

namespace ltl {

// Nearest-rank quantiles of `values` (sorted in place).
Quantiles ComputeQuantiles(std::vector<int64_t>& values);
// Log2-binned histogram of positive values (zeros go to a [0,1) bin).
std::vector<HistogramBin> Log2Histogram(const std::vector<int64_t>& values);

Distributions ComputeDistributions(const std::vector<RequestRecord>& records, const Trace& trace);

}  // namespace ltl
