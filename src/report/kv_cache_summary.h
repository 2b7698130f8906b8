// The terminal's "kv cache" section: eviction policies side by side per cache size, with the ideal
// prefill speed-up 1 / (1 - hit rate). Empty when the profile did not ask for it.
// Internal to src/report/ (tests/build/internal_headers.cmake).
#pragma once

#include <string>

#include "analyze/profile.h"

namespace ltl {

std::string RenderKvCacheSummary(const Profile& p);

}  // namespace ltl
