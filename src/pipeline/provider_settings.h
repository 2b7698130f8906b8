// Resolution of a profile run's provider-cache settings (--provider-cache, --provider-ttl,
// --prices) into the analyze stage's ProviderCacheOptions. Errors are one printable line naming
// the option, or the price file and the JSON path.
// Internal to src/pipeline/ (tests/build/internal_headers.cmake).
#pragma once

#include <string>

#include "analyze/provider_cache_section.h"
#include "common/status.h"

namespace ltl {

Result<ProviderCacheOptions> ResolveProviderCacheOptions(const std::string& provider, double ttl_s,
                                                         const std::string& prices_file);

}  // namespace ltl
