// Memory failure inside simdjson is an error of the run, never a bad row (issue 35, item 6).
// simdjson reports an allocation it could not make as the error code MEMALLOC (its parsers allocate
// with new(std::nothrow)), and a padded_string that could not allocate silently becomes empty;
// read as "invalid JSON", either would skip a valid row and let the run exit 0 without it, and a
// parser whose buffers failed half-way must not parse again. These turn both into std::bad_alloc,
// which ends the run with "out of memory; nothing was written" (cli/command_line.cc) from any
// thread (common/ordered_pipeline.h), and the failed parser is destroyed with the run.
#pragma once

#include <simdjson.h>

#include <new>
#include <string_view>

namespace ltl {

// Returns `error` unchanged unless it is MEMALLOC, which throws std::bad_alloc.
inline simdjson::error_code JsonOrOutOfMemory(simdjson::error_code error) {
  if (error == simdjson::MEMALLOC) throw std::bad_alloc();
  return error;
}

// A padded copy of `text`, or std::bad_alloc when simdjson could not allocate it.
inline simdjson::padded_string PaddedOrOutOfMemory(std::string_view text) {
  simdjson::padded_string padded(text);
  if (padded.size() != text.size()) throw std::bad_alloc();
  return padded;
}

}  // namespace ltl
