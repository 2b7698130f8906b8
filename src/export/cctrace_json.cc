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
    AppendAsciiJsonString(key, out);
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
      AppendAsciiJsonString(e.get_string().value_unsafe(), out);
      break;
    default:
      AppendPyJsonScalar(e, out);
      break;
  }
}

void AppendU(uint32_t unit, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  char esc[6] = {
      '\\',           'u', kHex[(unit >> 12) & 15], kHex[(unit >> 8) & 15], kHex[(unit >> 4) & 15],
      kHex[unit & 15]};
  out->append(esc, 6);
}

}  // namespace

void AppendCctraceJson(simdjson::dom::element e, std::string* out) {
  Write(e, out);
}

void AppendAsciiJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      size_t j = i + 1;
      while (j < s.size()) {
        unsigned char d = static_cast<unsigned char>(s[j]);
        if (d < 0x20 || d >= 0x7f || d == '"' || d == '\\') break;
        ++j;
      }
      out->append(s.data() + i, j - i);
      i = j;
      continue;
    }
    switch (c) {
      case '"':
        out->append("\\\"");
        ++i;
        continue;
      case '\\':
        out->append("\\\\");
        ++i;
        continue;
      case '\n':
        out->append("\\n");
        ++i;
        continue;
      case '\r':
        out->append("\\r");
        ++i;
        continue;
      case '\t':
        out->append("\\t");
        ++i;
        continue;
      case '\b':
        out->append("\\b");
        ++i;
        continue;
      case '\f':
        out->append("\\f");
        ++i;
        continue;
      default:
        break;
    }
    if (c < 0x80) {  // other control characters and DEL
      AppendU(c, out);
      ++i;
      continue;
    }
    // Decode one UTF-8 sequence (validated by the JSON parser).
    uint32_t cp;
    size_t len;
    if (c >= 0xF0) {
      cp = c & 0x07;
      len = 4;
    } else if (c >= 0xE0) {
      cp = c & 0x0F;
      len = 3;
    } else {
      cp = c & 0x1F;
      len = 2;
    }
    for (size_t k = 1; k < len && i + k < s.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    i += len;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      AppendU(0xD800 + (cp >> 10), out);
      AppendU(0xDC00 + (cp & 0x3FF), out);
    } else {
      AppendU(cp, out);
    }
  }
  out->push_back('"');
}

}  // namespace ltl
