// The source registry: every table listed in sources.def, in that order.
#include <string_view>

#include "ingest/source_spec.h"

namespace ltl {

#define LTL_SOURCE(name) extern const SourceSpec name;
#include "ingest/sources/sources.def"
#undef LTL_SOURCE

const std::vector<const SourceSpec*>& AllSources() {
  static const std::vector<const SourceSpec*> all = {
#define LTL_SOURCE(name) &name,
#include "ingest/sources/sources.def"
#undef LTL_SOURCE
  };
  return all;
}

const SourceSpec* FindSource(std::string_view name) {
  for (const SourceSpec* s : AllSources())
    if (s->name == name) return s;
  return nullptr;
}

}  // namespace ltl
