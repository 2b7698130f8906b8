// FieldPath parsing and walking (see field_path.h).
#include "ingest/field_path.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstring>

#include "common/ascii.h"
#include "common/json_memory.h"
#include "read/json_line.h"

namespace ltl {
namespace {

using simdjson::dom::element;

std::string Lower(std::string_view s) {
  return AsciiLowered(s);
}

// An OTLP AnyValue ({"stringValue": ...}, {"intValue": "12"}, ...): the value inside.
element UnwrapAnyValue(element v) {
  simdjson::dom::object o;
  if (v.get_object().get(o)) return v;
  for (const char* k : {"stringValue", "intValue", "doubleValue", "boolValue", "arrayValue",
                        "kvlistValue", "bytesValue"}) {
    element inner;
    if (!o.at_key(k).get(inner)) {
      simdjson::dom::object wrap;
      element values;
      // arrayValue / kvlistValue hold {"values": [...]}.
      if ((std::strcmp(k, "arrayValue") == 0 || std::strcmp(k, "kvlistValue") == 0) &&
          !inner.get_object().get(wrap) && !wrap.at_key("values").get(values))
        return values;
      return inner;
    }
  }
  return v;
}

bool KeyValueLookup(simdjson::dom::array arr, const PathSegment& seg, element* out) {
  for (element item : arr) {
    simdjson::dom::object o;
    std::string_view k;
    if (item.get_object().get(o) || o.at_key("key").get_string().get(k)) continue;
    if (k != seg.key) continue;
    element v;
    if (o.at_key("value").get(v)) return false;
    *out = UnwrapAnyValue(v);
    return true;
  }
  return false;
}

}  // namespace

Result<FieldPath> ParseFieldPath(std::string_view text) {
  FieldPath p;
  p.text = std::string(text);
  if (text.empty() || text == ".") return p;
  size_t i = 0;
  auto bad = [&](const char* why) {
    return Status::InvalidArgument(fmt::format("field path '{}': {}", text, why));
  };
  while (i < text.size()) {
    if (text[i] == '.') {
      ++i;
      if (i >= text.size() || text[i] == '.') return bad("empty segment");
      continue;
    }
    PathSegment seg;
    if (text[i] == '[') {
      size_t close = text.find(']', i);
      if (close == std::string_view::npos) return bad("unclosed [");
      std::string_view inner = text.substr(i + 1, close - i - 1);
      if (inner.size() >= 2 && (inner.front() == '"' || inner.front() == '\'') &&
          inner.back() == inner.front()) {
        seg.key = std::string(inner.substr(1, inner.size() - 2));
        seg.lower = Lower(seg.key);
      } else {
        if (inner.empty() || inner.find_first_not_of("0123456789") != std::string_view::npos)
          return bad("[...] holds a number or a quoted key");
        seg.kind = PathSegment::Kind::kIndex;
        // from_chars, not stoul: 20 digits were an uncaught std::out_of_range (issue 35, item 4).
        auto [end, ec] = std::from_chars(inner.data(), inner.data() + inner.size(), seg.index);
        if (ec != std::errc() || end != inner.data() + inner.size())
          return bad("[...] index is too large");
      }
      i = close + 1;
    } else {
      size_t end = text.find_first_of(".[", i);
      if (end == std::string_view::npos) end = text.size();
      std::string_view name = text.substr(i, end - i);
      if (name == "*") {
        seg.kind = PathSegment::Kind::kAnyMember;
      } else {
        seg.key = std::string(name);
        seg.lower = Lower(seg.key);
      }
      i = end;
    }
    p.segments.push_back(std::move(seg));
  }
  return p;
}

simdjson::error_code JsonScratch::Parse(std::string_view json, element* out) {
  if (used_ == slots_.size()) {
    if (slots_.size() >= 16) return simdjson::CAPACITY;  // bounded nesting of JSON-in-strings
    slots_.push_back(std::make_unique<Slot>());
  }
  Slot& s = *slots_[used_++];
  if (s.buf.size() < json.size() + simdjson::SIMDJSON_PADDING)
    s.buf.resize(json.size() + simdjson::SIMDJSON_PADDING + json.size() / 4);
  std::memcpy(s.buf.data(), json.data(), json.size());
  return JsonOrOutOfMemory(s.parser.parse(s.buf.data(), json.size(), false).get(*out));
}

bool ParseEmbeddedJson(std::string_view text, JsonScratch* scratch, element* out) {
  size_t i = text.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos || (text[i] != '{' && text[i] != '[')) return false;
  return !scratch->Parse(text, out);
}

bool ResolvePath(element at, const FieldPath& path, size_t first, JsonScratch* scratch,
                 element* out) {
  element cur = at;
  for (size_t k = first; k < path.segments.size(); ++k) {
    const PathSegment& seg = path.segments[k];
    std::string_view s;
    if (!cur.get_string().get(s)) {  // JSON written as a string: walk into it
      if (!ParseEmbeddedJson(s, scratch, &cur)) return false;
    }
    switch (seg.kind) {
      case PathSegment::Kind::kKey: {
        simdjson::dom::object o;
        simdjson::dom::array a;
        if (!cur.get_object().get(o)) {
          if (!DomKeyNoCase(o, seg.lower, &cur) && (o.at_key(seg.key).get(cur) || cur.is_null()))
            return false;
        } else if (!cur.get_array().get(a)) {
          if (!KeyValueLookup(a, seg, &cur)) return false;
        } else {
          return false;
        }
        break;
      }
      case PathSegment::Kind::kIndex: {
        simdjson::dom::array a;
        if (cur.get_array().get(a) || a.at(seg.index).get(cur)) return false;
        break;
      }
      case PathSegment::Kind::kAnyMember: {
        simdjson::dom::object o;
        if (cur.get_object().get(o)) return false;
        for (auto field : o)
          if (ResolvePath(field.value, path, k + 1, scratch, out)) return true;
        return false;
      }
    }
  }
  if (cur.is_null()) return false;
  *out = cur;
  return true;
}

}  // namespace ltl
