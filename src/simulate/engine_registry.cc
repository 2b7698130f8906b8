// The registered engine KV pools (engine_pool.h). Adding one: a file defining
// `const KvEngine& <Name>Engine()` and one X(<Name>Engine) line below.
#include "simulate/engine_pool.h"

#define LTL_ENGINES(X) X(VllmEngine) X(SglangEngine)

namespace ltl {
namespace {

const std::vector<const KvEngine*>& Engines() {
#define LTL_LIST(e) &e(),
  static const std::vector<const KvEngine*> all = {LTL_ENGINES(LTL_LIST)};
#undef LTL_LIST
  return all;
}

}  // namespace

const KvEngine* FindEngine(std::string_view name) {
  for (const KvEngine* e : Engines())
    if (e->name() == name) return e;
  return nullptr;
}

std::string EngineNames() {
  std::string out;
  for (const KvEngine* e : Engines()) out += (out.empty() ? "" : ", ") + std::string(e->name());
  return out;
}

}  // namespace ltl
