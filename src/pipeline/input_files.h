// The FILE... arguments of `profile`, `export` and `hash-shard`: paths, globs (expanded here, so a
// quoted pattern works where no shell expands it: 'logs/2025-*/*.jsonl.zst'), "-" for stdin (alone)
// and PostgreSQL URIs, each with the name messages and reports show.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace ltl {

struct InputName {
  std::string path;  // what to open
  std::string name;  // as shown in messages and the report
};

// Expands the arguments in order; a pattern's matches are sorted (glob(3)). A pattern that matches
// nothing, a repeated file, or "-" among other inputs is an error.
Result<std::vector<InputName>> ExpandInputs(const std::vector<std::string>& args);

// How a run over `inputs` is named in the report: the one file's name, or "N files".
std::string RunInputName(const std::vector<InputName>& inputs);

}  // namespace ltl
