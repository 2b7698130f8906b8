// FieldPath: where a field lives in a gateway record, as a source table or an override flag
// (--body-field ...) writes it: `a.b[0].c`, `attributes["gen_ai.request.model"]`, `ai.*.usage`.
// A key segment looks a key up (exact, else ignoring ASCII case); applied to an array of
// {"key": ..., "value": {...}} objects (OTLP attributes) it finds that key and unwraps the OTLP
// AnyValue; `[N]` indexes an array; `*` tries every member of an object. A JSON string met before
// the path ends is parsed as JSON and walked into (bodies logged as JSON text). For CSV the first
// segment names a column (or the whole path does, when a column has that name).
// Internal to src/ingest/ (tests/build/internal_headers.cmake).
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ltl {

struct PathSegment {
  enum class Kind { kKey, kIndex, kAnyMember };
  Kind kind = Kind::kKey;
  std::string key;    // kKey, as written
  std::string lower;  // kKey, ASCII lower case
  size_t index = 0;   // kIndex
};

struct FieldPath {
  std::string text;  // as written (also the name reported for session fields)
  std::vector<PathSegment> segments;
};

// Parses `a.b[0].c`, `a["x.y"]`, `a.*.b`. An empty text or `.` is the record itself.
Result<FieldPath> ParseFieldPath(std::string_view text);

// Scratch parsers for JSON found inside strings while walking paths; Reset() before each record.
class JsonScratch {
 public:
  simdjson::error_code Parse(std::string_view json, simdjson::dom::element* out);
  void Reset() { used_ = 0; }

 private:
  struct Slot {
    simdjson::dom::parser parser;
    std::string buf;
  };
  std::vector<std::unique_ptr<Slot>> slots_;
  size_t used_ = 0;
};

// Walks segments [first, segments.size()) from `at`. A value that is JSON null counts as absent.
bool ResolvePath(simdjson::dom::element at, const FieldPath& path, size_t first,
                 JsonScratch* scratch, simdjson::dom::element* out);

// Parses `text` as JSON into *out when it is a JSON object or array written as a string (the
// value of a text column or a JSON-encoded string field).
bool ParseEmbeddedJson(std::string_view text, JsonScratch* scratch, simdjson::dom::element* out);

}  // namespace ltl
