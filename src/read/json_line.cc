// JsonLineParser and typed field readers (see json_line.h).
#include "read/json_line.h"

#include <cctype>
#include <cmath>

#include "common/ascii.h"
#include "common/json_memory.h"

namespace ltl {

using simdjson::ondemand::json_type;
using simdjson::ondemand::number_type;

bool JsonLineParser::Start(std::string_view line, simdjson::ondemand::object* obj,
                           std::string* reason) {
  buf_.reserve(line.size() + simdjson::SIMDJSON_PADDING);
  buf_.assign(line.data(), line.size());
  auto err =
      JsonOrOutOfMemory(parser_.iterate(buf_.data(), buf_.size(), buf_.capacity()).get(doc_));
  if (err) {
    *reason = JsonErrorReason(err, "invalid JSON");
    return false;
  }
  json_type t;
  if (doc_.type().get(t)) {
    *reason = "invalid JSON";
    return false;
  }
  if (t != json_type::object) {
    // "not json" starts like the literal null: tell real scalars from garbage.
    bool valid = true;
    if (t == json_type::null) {
      bool is_null = false;
      valid = !doc_.is_null().get(is_null) && is_null;
    } else if (t == json_type::boolean) {
      bool b;
      valid = !doc_.get_bool().get(b);
    }
    *reason = valid ? "line is not a JSON object" : "invalid JSON";
    return false;
  }
  if (doc_.get_object().get(*obj)) {
    *reason = "invalid JSON";
    return false;
  }
  return true;
}

const char* JsonErrorReason(simdjson::error_code error, const char* invalid) {
  switch (JsonOrOutOfMemory(error)) {
    case simdjson::UTF8_ERROR:
      return "invalid UTF-8 in JSON";
    case simdjson::DEPTH_ERROR:
      return "JSON nested deeper than 1024 levels";
    default:
      return invalid;
  }
}

bool ReadCount(simdjson::ondemand::value v, int64_t* out) {
  json_type t;
  if (v.type().get(t) || t != json_type::number) return false;
  number_type nt;
  if (v.get_number_type().get(nt)) return false;
  if (nt == number_type::signed_integer) {
    int64_t x;
    if (v.get_int64().get(x) || x < 0) return false;
    *out = x;
    return true;
  }
  if (nt == number_type::unsigned_integer) return false;  // > 2^63-1
  // A float like 512.0 is accepted when it is integral; 512.5 is not.
  double d;
  if (v.get_double().get(d) || !(d >= 0) || d > 9.2e18 || d != std::floor(d)) return false;
  *out = static_cast<int64_t>(d);
  return true;
}

bool DomKeyNoCase(simdjson::dom::object o, std::string_view lower, simdjson::dom::element* out) {
  if (!o.at_key(lower).get(*out) && !out->is_null()) return true;
  for (auto f : o) {
    if (f.key.size() != lower.size()) continue;
    bool eq = true;
    for (size_t i = 0; i < lower.size() && eq; ++i) eq = AsciiLower(f.key[i]) == lower[i];
    if (eq && !f.value.is_null()) {
      *out = f.value;
      return true;
    }
  }
  return false;
}

bool ReadDomCount(simdjson::dom::element e, int64_t* out) {
  int64_t i;
  uint64_t u;
  double d;
  if (!e.get_int64().get(i)) {
    if (i < 0) return false;
    *out = i;
    return true;
  }
  if (!e.get_uint64().get(u)) return false;  // beyond int64
  if (!e.get_double().get(d) && d >= 0 && d < 9e18 && d == std::floor(d)) {
    *out = static_cast<int64_t>(d);
    return true;
  }
  return false;
}

bool ReadNumber(simdjson::ondemand::value v, double* out) {
  json_type t;
  if (v.type().get(t) || t != json_type::number) return false;
  return !v.get_double().get(*out) && std::isfinite(*out);
}

bool ReadIdArray(simdjson::ondemand::value v, std::vector<uint64_t>* out, std::string* reason) {
  out->clear();
  simdjson::ondemand::array arr;
  if (v.get_array().get(arr)) {
    *reason = "hash_ids is not an array";
    return false;
  }
  for (auto el : arr) {
    simdjson::ondemand::value item;
    if (el.get(item)) {
      *reason = "invalid JSON";
      return false;
    }
    json_type t;
    if (item.type().get(t)) {
      *reason = "invalid JSON";
      return false;
    }
    if (t != json_type::number) {
      *reason = "hash_ids holds a non-number";
      return false;
    }
    number_type nt;
    if (item.get_number_type().get(nt)) {
      *reason = "hash_ids holds a number out of range";
      return false;
    }
    if (nt == number_type::floating_point_number) {
      *reason = "hash_ids holds a non-integer";
      return false;
    }
    if (nt == number_type::signed_integer) {
      int64_t x;
      if (item.get_int64().get(x)) {
        *reason = "hash_ids holds a number out of range";
        return false;
      }
      if (x < 0) {
        *reason = "hash_ids holds a negative id";
        return false;
      }
      out->push_back(static_cast<uint64_t>(x));
    } else {
      uint64_t x;
      if (item.get_uint64().get(x)) {
        *reason = "hash_ids holds a number out of range";
        return false;
      }
      out->push_back(x);
    }
  }
  return true;
}

}  // namespace ltl
