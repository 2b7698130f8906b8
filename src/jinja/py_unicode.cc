// Python str facts over UTF-8 (see py_unicode.h). Case mapping uses ICU's root-locale full
// mappings (ucasemap), which agree with CPython's for the scripts chat data uses.
#include "jinja/py_unicode.h"

#include <unicode/ucasemap.h>
#include <unicode/uchar.h>

#include <memory>

#include "common/utf8_decode.h"

namespace ltl::ct {

uint32_t NextCodePoint(std::string_view s, size_t* i) {
  const size_t p = *i;
  const int32_t c = NextUtf8(s, i);
  if (c >= 0) return static_cast<uint32_t>(c);
  *i = p + 1;  // an ill-formed byte decodes as itself
  return static_cast<unsigned char>(s[p]);
}

size_t PrevCodePointStart(std::string_view s, size_t end) {
  size_t begin = end - 1;
  PrevUtf8(s, end, &begin);
  return begin;
}

bool IsAscii(std::string_view s) {
  for (unsigned char c : s) {
    if (c >= 0x80) return false;
  }
  return true;
}

size_t CodePointCount(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size();) {
    NextCodePoint(s, &i);
    ++n;
  }
  return n;
}

size_t ByteOffsetOfCodePoint(std::string_view s, size_t cp) {
  size_t i = 0;
  while (cp > 0 && i < s.size()) {
    NextCodePoint(s, &i);
    --cp;
  }
  return i;
}

bool IsPySpace(uint32_t cp) {
  if (cp < 0x80) return cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F);
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

bool IsPyPrintable(uint32_t cp) {
  if (cp < 0x80) return cp >= 0x20 && cp < 0x7F;
  switch (u_charType(static_cast<UChar32>(cp))) {
    case U_CONTROL_CHAR:
    case U_FORMAT_CHAR:
    case U_SURROGATE:
    case U_PRIVATE_USE_CHAR:
    case U_UNASSIGNED:
    case U_LINE_SEPARATOR:
    case U_PARAGRAPH_SEPARATOR:
    case U_SPACE_SEPARATOR:
      return false;
    default:
      return true;
  }
}

bool IsPyAlpha(uint32_t cp) {
  if (cp < 0x80) return (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z';
  switch (u_charType(static_cast<UChar32>(cp))) {
    case U_UPPERCASE_LETTER:
    case U_LOWERCASE_LETTER:
    case U_TITLECASE_LETTER:
    case U_MODIFIER_LETTER:
    case U_OTHER_LETTER:
      return true;
    default:
      return false;
  }
}

bool IsPyDigit(uint32_t cp) {
  if (cp < 0x80) return cp >= '0' && cp <= '9';
  int t = u_getIntPropertyValue(static_cast<UChar32>(cp), UCHAR_NUMERIC_TYPE);
  return t == U_NT_DECIMAL || t == U_NT_DIGIT;
}

bool IsPyAlnum(uint32_t cp) {
  if (IsPyAlpha(cp) || IsPyDigit(cp)) return true;
  if (cp < 0x80) return false;
  return u_getIntPropertyValue(static_cast<UChar32>(cp), UCHAR_NUMERIC_TYPE) == U_NT_NUMERIC;
}

bool IsPyUpper(uint32_t cp) {
  return u_isUUppercase(static_cast<UChar32>(cp));
}
bool IsPyLower(uint32_t cp) {
  return u_isULowercase(static_cast<UChar32>(cp));
}

namespace {

struct CaseMapDeleter {
  void operator()(UCaseMap* m) const { ucasemap_close(m); }
};

UCaseMap* RootCaseMap() {
  thread_local std::unique_ptr<UCaseMap, CaseMapDeleter> map = [] {
    UErrorCode err = U_ZERO_ERROR;
    return std::unique_ptr<UCaseMap, CaseMapDeleter>(ucasemap_open("", 0, &err));
  }();
  return map.get();
}

template <typename Fn>
std::string MapCase(std::string_view s, Fn fn) {
  if (s.empty()) return std::string();
  std::string out(s.size() + 16, '\0');
  UErrorCode err = U_ZERO_ERROR;
  int32_t n = fn(RootCaseMap(), out.data(), static_cast<int32_t>(out.size()), s.data(),
                 static_cast<int32_t>(s.size()), &err);
  if (err == U_BUFFER_OVERFLOW_ERROR) {
    out.assign(static_cast<size_t>(n) + 1, '\0');
    err = U_ZERO_ERROR;
    n = fn(RootCaseMap(), out.data(), static_cast<int32_t>(out.size()), s.data(),
           static_cast<int32_t>(s.size()), &err);
  }
  if (U_FAILURE(err)) return std::string(s);
  out.resize(static_cast<size_t>(n));
  return out;
}

// One code point through ICU's full mapping (used where Python maps character by character).
std::string MapOne(uint32_t cp, bool upper) {
  std::string one;
  AppendUtf8(cp, &one);
  return upper ? PyUpper(one) : PyLower(one);
}

bool IsCased(uint32_t cp) {
  return u_hasBinaryProperty(static_cast<UChar32>(cp), UCHAR_CASED);
}

std::string TitleOne(uint32_t cp) {
  UChar32 t = u_totitle(static_cast<UChar32>(cp));
  if (static_cast<uint32_t>(t) != cp) {
    std::string out;
    AppendUtf8(static_cast<uint32_t>(t), &out);
    return out;
  }
  return MapOne(cp, true);
}

}  // namespace

std::string PyUpper(std::string_view s) {
  if (IsAscii(s)) {
    std::string out(s);
    for (char& c : out) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    }
    return out;
  }
  return MapCase(s, ucasemap_utf8ToUpper);
}

std::string PyLower(std::string_view s) {
  if (IsAscii(s)) {
    std::string out(s);
    for (char& c : out) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    }
    return out;
  }
  return MapCase(s, ucasemap_utf8ToLower);
}

std::string PyTitle(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool prev_cased = false;
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = NextCodePoint(s, &i);
    if (cp < 0x80) {
      char c = static_cast<char>(cp);
      bool letter = (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
      if (letter) c = prev_cased ? static_cast<char>(c | 0x20) : static_cast<char>(c & ~0x20);
      out.push_back(c);
      prev_cased = letter;
      continue;
    }
    out += prev_cased ? MapOne(cp, false) : TitleOne(cp);
    prev_cased = IsCased(cp);
  }
  return out;
}

std::string PyCapitalize(std::string_view s) {
  if (s.empty()) return std::string();
  size_t i = 0;
  uint32_t first = NextCodePoint(s, &i);
  std::string out =
      first < 0x80
          ? std::string(1, static_cast<char>(first >= 'a' && first <= 'z' ? first - 32 : first))
          : TitleOne(first);
  out += PyLower(s.substr(i));
  return out;
}

}  // namespace ltl::ct
