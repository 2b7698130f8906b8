// Python-style JSON: re-serializes a simdjson DOM element the way a chat template's `tojson` filter
// (Python's json.dumps with ensure_ascii=False) writes it: ", " and ": " separators (or indent=N),
// the request's key order, Python's float repr, and `cache_control` keys dropped (Anthropic prompt
// caching hints that are not part of the prompt).
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

namespace ltl {

struct PyJsonStyle {
  int indent = -1;  // -1 = one line; N = json.dumps(indent=N) (separators "," and ": ")
};

void AppendPyJson(simdjson::dom::element e, const PyJsonStyle& style, std::string* out);
// A JSON string literal with Python's escapes: \" \\ \n \r \t \b \f, other control characters as
// \u00XX; everything else verbatim (ensure_ascii=False, a template's tojson), or with
// ensure_ascii=True (json.dumps' default, the cache-trace export) DEL and every non-ASCII character
// as \uXXXX, astral ones as surrogate pairs (`s` valid UTF-8; a stray byte would write \ufffd).
void AppendPyJsonString(std::string_view s, std::string* out, bool ensure_ascii = false);
// A number, boolean or null as json.dumps writes it (floats by AppendPyFloat); appends nothing for
// objects, arrays and strings, which each writer serializes its own way.
void AppendPyJsonScalar(simdjson::dom::element e, std::string* out);
// Python's repr() of a float: shortest round-trip digits, fixed notation for exponents -4..15,
// otherwise d.ddde+XX; integral values end in ".0".
void AppendPyFloat(double d, std::string* out);

}  // namespace ltl
