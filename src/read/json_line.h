// JsonLine: parses one JSONL line with simdjson's On-Demand API into a reusable padded buffer,
// and typed field accessors that turn simdjson's error codes into fixed, text-free reasons.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ltl {

class JsonLineParser {
 public:
  // Copies `line` into an internal padded buffer and starts a document on it. Returns false and
  // sets *reason when the line is not a JSON object.
  bool Start(std::string_view line, simdjson::ondemand::object* obj, std::string* reason);

 private:
  simdjson::ondemand::parser parser_;
  simdjson::ondemand::document doc_;
  std::string buf_;
};

// The skip reason for a JSON parse error: UTF-8 and nesting problems get their own fixed phrases
// (they are the usual signs of a wrongly encoded or hostile log); anything else is `invalid`.
const char* JsonErrorReason(simdjson::error_code error, const char* invalid);

// Reads a non-negative integer that fits in int64 (rejects strings, fractions, negatives, >2^63-1).
bool ReadCount(simdjson::ondemand::value v, int64_t* out);
// The same for a DOM element, except that an integral float (`12.0`, `1e3`) below 9e18 is accepted
// too: the cache-trace and usage fields come from writers that sometimes emit floats.
bool ReadDomCount(simdjson::dom::element e, int64_t* out);
// Case-insensitive key lookup in a DOM object for a key given in lower case (header-like names,
// --ts-column): an exact match wins, else the first key equal ignoring ASCII case. Null values
// count as absent.
bool DomKeyNoCase(simdjson::dom::object o, std::string_view lower, simdjson::dom::element* out);
// Reads a number (integer or float) as double.
bool ReadNumber(simdjson::ondemand::value v, double* out);
// Reads an array of non-negative 64-bit integers. On failure *reason says which kind of bad value.
bool ReadIdArray(simdjson::ondemand::value v, std::vector<uint64_t>* out, std::string* reason);

}  // namespace ltl
