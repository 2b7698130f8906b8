// Writes the cache-trace files of one export into a directory atomically: a new directory is
// built under a temporary name beside it and renamed into place; an existing empty directory gets
// each file through a temporary file and a rename. A non-empty directory is refused, so traces of
// two runs are never mixed. Temporaries a killed export left for the same target go first.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "export/cctrace_export.h"

namespace ltl {

Status WriteCctraceDirectory(const std::string& dir, const std::vector<CctraceFile>& files);

}  // namespace ltl
