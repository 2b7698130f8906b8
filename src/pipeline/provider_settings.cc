// ResolveProviderCacheOptions (see provider_settings.h).
#include "pipeline/provider_settings.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/ascii.h"
#include "common/safe_label.h"
#include "simulate/provider_cache.h"

namespace ltl {

Result<ProviderCacheOptions> ResolveProviderCacheOptions(const std::string& provider, double ttl_s,
                                                         const std::string& prices_file) {
  ProviderCacheOptions o;
  std::string name = provider;
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name != "auto" && name != "none" && name != "gemini" && !FindProviderCacheModel(name).ok())
    return Status::InvalidArgument(
        fmt::format("--provider-cache: '{}' is not one of auto, none, gemini, {}",
                    EscapeForTerminal(provider), ProviderCacheModelNames()));
  o.provider = name;
  if (!(std::isfinite(ttl_s) && ttl_s >= 0 && ttl_s <= 30 * 86400.0))
    return Status::InvalidArgument(fmt::format(
        "--provider-ttl: {} is out of range [0, 2592000] (seconds; 0 = as documented)", ttl_s));
  o.ttl_s = ttl_s;
  if (!prices_file.empty()) {
    std::ifstream in(prices_file, std::ios::binary);
    if (!in)
      return Status::InvalidArgument(fmt::format(
          "--prices: {}: cannot read: {}", EscapeForTerminal(prices_file), std::strerror(errno)));
    std::ostringstream text;
    text << in.rdbuf();
    if (Status st = MergePriceFile(EscapeForTerminal(prices_file), text.str(), &o.prices); !st.ok())
      return st;
  }
  return o;
}

}  // namespace ltl
