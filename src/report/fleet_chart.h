// The fleet section of report.html: hit rate against per-worker cache size, one line per routing
// policy, with the pooled cache (one cache of N x size) and the unbounded ceiling as reference
// lines; then the same numbers and the load spread as a table.
#pragma once

#include <string>

#include "simulate/fleet_result.h"

namespace ltl {

// <svg id="fleet-chart">: one <polyline class="fleet-series" data-policy=NAME> per policy with
// one vertex per per-worker size, a <polyline class="fleet-pooled">, a <line class="ceiling">.
std::string FleetChartSvg(const FleetResult& fleet, uint32_t block_size);

// The whole <section id="fleet"> (chart, legend, table, notes).
std::string FleetSectionHtml(const FleetResult& fleet, uint32_t block_size, double warmup);

}  // namespace ltl
