// The registered provider-cache models, in report order, and lookup by name (provider_cache.h).
// Adding a model: write simulate/provider_<name>.cc defining `const ProviderCacheModel& <Name>()`,
// then add one X(<Name>) line below.
#include <fmt/format.h>

#include "common/ascii.h"
#include "simulate/provider_cache.h"

#define LTL_PROVIDER_CACHES(X) \
  X(OpenAiProviderCache)       \
  X(AnthropicProviderCache)

namespace ltl {

#define LTL_DECLARE(model) const ProviderCacheModel& model();
LTL_PROVIDER_CACHES(LTL_DECLARE)
#undef LTL_DECLARE

const std::vector<const ProviderCacheModel*>& ProviderCacheModels() {
#define LTL_LIST(model) &model(),
  static const std::vector<const ProviderCacheModel*> all = {LTL_PROVIDER_CACHES(LTL_LIST)};
#undef LTL_LIST
  return all;
}

std::string ProviderCacheModelNames() {
  std::vector<std::string_view> names;
  for (const ProviderCacheModel* m : ProviderCacheModels()) names.push_back(m->name());
  return JoinNames(names);
}

Result<const ProviderCacheModel*> FindProviderCacheModel(std::string_view name) {
  for (const ProviderCacheModel* m : ProviderCacheModels())
    if (EqualsIgnoreAsciiCase(name, m->name())) return m;
  return Status::InvalidArgument(fmt::format("unknown provider cache '{}' (registered: {})",
                                             AsciiLowered(name), ProviderCacheModelNames()));
}

}  // namespace ltl
