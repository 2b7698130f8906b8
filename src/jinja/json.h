// JSON for chat templates: transformers' `tojson` filter (Python json.dumps with ensure_ascii,
// indent, separators, sort_keys; never HTML-escaped), json.loads for tool-call arguments, and
// request JSON (simdjson DOM) turned into template values without copying any string.
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

#include "jinja/value.h"

namespace ltl::ct {

struct JsonDumpOptions {
  bool ensure_ascii = false;  // transformers' default (Jinja's own tojson would HTML-escape)
  bool has_indent = false;    // indent=None
  std::string indent;         // the indent unit (indent=N -> N spaces)
  bool has_separators = false;
  std::string item_separator = ", ", key_separator = ": ";
  bool sort_keys = false;
};

// json.dumps(v, ...) as a string value; each byte keeps the segment of the value it came from
// (strings their own, punctuation its container's). TypeError for what json cannot serialize.
Value DumpJson(const Value& v, const JsonDumpOptions& options, Arena* arena);

// json.loads(text): false when Python would raise JSONDecodeError. Strings without escapes point
// into `text`, which must outlive the render.
bool LoadJson(std::string_view text, SegmentId src, Arena* arena, Value* out);

// A simdjson DOM element as template values (objects keep key order; duplicate keys keep the
// first position and the last value, as json.loads). Every value is attributed to `src`.
Value FromDom(simdjson::dom::element e, SegmentId src, Arena* arena);

}  // namespace ltl::ct
