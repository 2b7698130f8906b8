// Compact Python-style JSON for cache-trace block ids (see cctrace_json.h). Hand-written because no
// JSON library reproduces Python's exact output (ensure_ascii escapes, float repr, key handling).
#include "export/cctrace_json.h"

#include <charconv>
#include <unordered_map>
#include <vector>

#include "jinja/py_json.h"

namespace ltl {
namespace {

bool Dropped(std::string_view key) {
  return key == "cache_control" || key == "signature";
}

void Write(simdjson::dom::element e, std::string* out);

void WriteObject(simdjson::dom::object obj, std::string* out) {
  // Python's dict keeps a key where it first appeared, with the last value given for it.
  std::vector<std::pair<std::string_view, simdjson::dom::element>> fields;
  std::unordered_map<std::string_view, size_t> index;  // only for large objects
  constexpr size_t kLinear = 32;
  for (auto field : obj) {
    if (Dropped(field.key)) continue;
    size_t at = fields.size();
    if (fields.size() < kLinear) {
      for (size_t k = 0; k < fields.size(); ++k)
        if (fields[k].first == field.key) at = k;
    } else {
      if (index.empty())
        for (size_t k = 0; k < fields.size(); ++k) index.emplace(fields[k].first, k);
      auto [it, inserted] = index.emplace(field.key, fields.size());
      at = it->second;
    }
    if (at == fields.size())
      fields.emplace_back(field.key, field.value);
    else
      fields[at].second = field.value;
  }
  out->push_back('{');
  bool first = true;
  for (const auto& [key, value] : fields) {
    if (!first) out->push_back(',');
    first = false;
    AppendPyJsonString(key, out, /*ensure_ascii=*/true);
    out->push_back(':');
    Write(value, out);
  }
  out->push_back('}');
}

void Write(simdjson::dom::element e, std::string* out) {
  using simdjson::dom::element_type;
  switch (e.type()) {
    case element_type::OBJECT:
      WriteObject(e.get_object().value_unsafe(), out);
      break;
    case element_type::ARRAY: {
      out->push_back('[');
      bool first = true;
      // A named array: GCC 12 misreads a range-for over the temporary result as dangling.
      const simdjson::dom::array items = e.get_array().value_unsafe();
      for (auto item : items) {
        if (!first) out->push_back(',');
        first = false;
        Write(item, out);
      }
      out->push_back(']');
      break;
    }
    case element_type::STRING:
      AppendPyJsonString(e.get_string().value_unsafe(), out, /*ensure_ascii=*/true);
      break;
    default:
      AppendPyJsonScalar(e, out);
      break;
  }
}

}  // namespace

void AppendCctraceJson(simdjson::dom::element e, std::string* out) {
  Write(e, out);
}

}  // namespace ltl
