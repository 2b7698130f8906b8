// Stage-boundary probe (tests/build/stage_boundaries.cmake): the simulate stage may include the
// stages it links (hash, tokenize, common), so this compiles.
#include "common/status.h"
#include "hash/block_interner.h"
#include "simulate/trace.h"
