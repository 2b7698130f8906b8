// report.json's "kv_cache" object: eviction policies side by side (see docs/FORMATS.md).
// Internal to src/report/ (tests/build/internal_headers.cmake).
#pragma once

#include <nlohmann/json.hpp>

#include "analyze/profile.h"

namespace ltl {

nlohmann::ordered_json KvCacheToJson(const Profile& p);

// Ideal prefill speed-up of a hit rate: 1 / (1 - rate); infinite at 1.
double PrefillSpeedup(double hit_rate);

}  // namespace ltl
