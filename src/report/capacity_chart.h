// The capacity curve of report.html: hit rate against cache size on a log axis — the dense LRU
// curve (stepped), the across/same-conversation split as stacked areas when conversations are
// known, other policies' points, the asked sizes, the ceiling line, the knee past which a doubling
// buys less than one point, and a GiB axis when the model's KV bytes per token are known.
// Internal to src/report/ (tests/build/internal_headers.cmake).
#pragma once

#include <string>

#include "analyze/profile.h"

namespace ltl {

// The <svg id="capacity-chart"> element followed by its HTML legend. The LRU polyline
// (class "series-lru") has 2 vertices per dense-curve point plus the two ends of the axis.
std::string CapacityChartHtml(const Profile& p);

}  // namespace ltl
