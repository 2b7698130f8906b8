// The cache-trace serialization of request parts: Python's json.dumps(obj, separators=(',', ':'))
// with its defaults (ensure_ascii=True: every non-ASCII character and DEL as \uXXXX, astral ones as
// surrogate pairs; key order kept; Python's float repr), after removing every `cache_control` and
// `signature` key at any depth. Duplicate keys keep their first position and their last value,
// as Python's json.loads builds the dict.
// Internal to src/export/ (tests/build/internal_headers.cmake).
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

namespace ltl {

void AppendCctraceJson(simdjson::dom::element e, std::string* out);

}  // namespace ltl
