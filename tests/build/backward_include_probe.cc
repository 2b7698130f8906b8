// Stage-boundary probe (tests/build/stage_boundaries.cmake): the simulate stage must not see the
// report stage above it, so this must fail to compile with "file not found".
#include "report/report_json.h"
#include "simulate/trace.h"
