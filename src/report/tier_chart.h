// report.html charts of the tiers section: hits by tier stacked across hierarchy sizes, and the
// estimated TTFT quantiles with and without the cache (inline SVG over svg_chart's scales).
// Internal to src/report/ (tests/build/internal_headers.cmake).
#pragma once

#include <string>

#include "analyze/profile.h"

namespace ltl {

// One stacked bar per "scaled" row (and the asked hierarchy), smallest first; segment k = tier k's
// share of the measured tokens.
std::string TierStackSvg(const TiersSection& s);
// Grouped bars: p50, p90, p95, p99 of TTFT without a cache and with the asked hierarchy.
std::string TtftSvg(const TiersSection& s);

}  // namespace ltl
