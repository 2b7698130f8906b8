// Python-style JSON writer (see py_json.h).
#include "jinja/py_json.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "common/utf8_decode.h"

namespace ltl {
namespace {

void Newline(const PyJsonStyle& style, int depth, std::string* out) {
  out->push_back('\n');
  out->append(static_cast<size_t>(style.indent) * static_cast<size_t>(depth), ' ');
}

void Write(simdjson::dom::element e, const PyJsonStyle& style, int depth, std::string* out) {
  using simdjson::dom::element_type;
  switch (e.type()) {
    case element_type::OBJECT: {
      simdjson::dom::object obj = e.get_object().value_unsafe();
      out->push_back('{');
      bool first = true;
      for (auto field : obj) {
        if (field.key == "cache_control") continue;
        if (!first) out->append(style.indent >= 0 ? "," : ", ");
        if (style.indent >= 0) Newline(style, depth + 1, out);
        first = false;
        AppendPyJsonString(field.key, out);
        out->append(": ");
        Write(field.value, style, depth + 1, out);
      }
      if (!first && style.indent >= 0) Newline(style, depth, out);
      out->push_back('}');
      break;
    }
    case element_type::ARRAY: {
      simdjson::dom::array arr = e.get_array().value_unsafe();
      out->push_back('[');
      bool first = true;
      for (auto item : arr) {
        if (!first) out->append(style.indent >= 0 ? "," : ", ");
        if (style.indent >= 0) Newline(style, depth + 1, out);
        first = false;
        Write(item, style, depth + 1, out);
      }
      if (!first && style.indent >= 0) Newline(style, depth, out);
      out->push_back(']');
      break;
    }
    case element_type::STRING:
      AppendPyJsonString(e.get_string().value_unsafe(), out);
      break;
    default:
      AppendPyJsonScalar(e, out);
      break;
  }
}

}  // namespace

void AppendPyJson(simdjson::dom::element e, const PyJsonStyle& style, std::string* out) {
  Write(e, style, 0, out);
}

void AppendPyJsonScalar(simdjson::dom::element e, std::string* out) {
  using simdjson::dom::element_type;
  char buf[24];
  switch (e.type()) {
    case element_type::INT64:
      out->append(buf, std::to_chars(buf, buf + sizeof buf, e.get_int64().value_unsafe()).ptr);
      break;
    case element_type::UINT64:
      out->append(buf, std::to_chars(buf, buf + sizeof buf, e.get_uint64().value_unsafe()).ptr);
      break;
    case element_type::DOUBLE:
      AppendPyFloat(e.get_double().value_unsafe(), out);
      break;
    case element_type::BOOL:
      out->append(e.get_bool().value_unsafe() ? "true" : "false");
      break;
    case element_type::NULL_VALUE:
      out->append("null");
      break;
    default:  // objects, arrays and strings are the caller's
      break;
  }
}

void AppendPyJsonString(std::string_view s, std::string* out, bool ensure_ascii) {
  static constexpr char kHex[] = "0123456789abcdef";
  auto escape_unit = [&](uint32_t unit) {
    const char esc[6] = {'\\',
                         'u',
                         kHex[(unit >> 12) & 15],
                         kHex[(unit >> 8) & 15],
                         kHex[(unit >> 4) & 15],
                         kHex[unit & 15]};
    out->append(esc, 6);
  };
  out->push_back('"');
  size_t run = 0;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\' && (!ensure_ascii || c < 0x7f)) {
      ++i;
      continue;
    }
    out->append(s.data() + run, i - run);
    if (c >= 0x7f) {  // ensure_ascii: DEL and every non-ASCII character as \uXXXX
      const int32_t decoded = NextUtf8(s, &i);
      uint32_t cp = decoded < 0 ? 0xFFFDu : static_cast<uint32_t>(decoded);
      if (cp >= 0x10000) {  // astral: a surrogate pair
        cp -= 0x10000;
        escape_unit(0xD800 + (cp >> 10));
        escape_unit(0xDC00 + (cp & 0x3FF));
      } else {
        escape_unit(cp);
      }
      run = i;
      continue;
    }
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      default:
        escape_unit(c);
    }
    run = ++i;
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

void AppendPyFloat(double d, std::string* out) {
  if (std::isnan(d)) {
    out->append("NaN");
    return;
  }
  if (std::isinf(d)) {
    out->append(d > 0 ? "Infinity" : "-Infinity");
    return;
  }
  char buf[40];
  auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(r.ptr - buf));
  // sci = [-]D[.DDD]e(+|-)XX
  bool neg = !sci.empty() && sci[0] == '-';
  if (neg) sci.remove_prefix(1);
  size_t epos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, epos))
    if (c != '.') digits.push_back(c);
  int exp10 = 0;
  std::from_chars(sci.data() + epos + (sci[epos + 1] == '+' ? 2 : 1), sci.data() + sci.size(),
                  exp10);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int decpt = exp10 + 1;  // position of the decimal point relative to the digits
  const int n = static_cast<int>(digits.size());
  if (neg) out->push_back('-');
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out->append("0.");
      out->append(static_cast<size_t>(-decpt), '0');
      out->append(digits);
    } else if (decpt >= n) {
      out->append(digits);
      out->append(static_cast<size_t>(decpt - n), '0');
      out->append(".0");
    } else {
      out->append(digits, 0, static_cast<size_t>(decpt));
      out->push_back('.');
      out->append(digits, static_cast<size_t>(decpt));
    }
  } else {
    out->push_back(digits[0]);
    if (n > 1) {
      out->push_back('.');
      out->append(digits, 1);
    }
    int e = decpt - 1;
    out->push_back('e');
    out->push_back(e < 0 ? '-' : '+');
    if (e < 0) e = -e;
    if (e < 10) out->push_back('0');
    out->append(std::to_string(e));
  }
}

}  // namespace ltl
