// Python's str, dict and list methods as templates call them (`content.split('</think>')`,
// `message.get('tool_calls')`, `tool.items()`); substrings keep their bytes' segments.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "jinja/errors.h"
#include "jinja/library.h"
#include "jinja/py_unicode.h"

namespace ltl::ct {

namespace {

std::string_view Str(const Value& v, Arena* a) {
  return StrView(v, a);
}

const Value& RequireStr(const Value* v, const char* fn) {
  if (!v || v->kind != Kind::kString) {
    TypeFail(std::string(fn) + "() argument must be str, not " + (v ? TypeName(*v) : "nothing"));
  }
  return *v;
}

// Byte range after applying optional code-point start/end arguments (Python slice rules).
void RangeArgs(std::string_view s, const CallArgs& args, size_t first, size_t* b, size_t* e) {
  *b = 0;
  *e = s.size();
  if (args.pos.size() <= first) return;
  bool ascii = IsAscii(s);
  int64_t n = static_cast<int64_t>(ascii ? s.size() : CodePointCount(s));
  auto conv = [&](const Value& v, int64_t def) {
    int64_t x;
    if (v.is_none()) return def;
    if (!AsIndex(v, &x)) TypeFail("slice indices must be integers or None");
    if (x < 0) x = std::max<int64_t>(0, x + n);
    return std::min(x, n);
  };
  int64_t lo = conv(args.pos[first], 0);
  int64_t hi = args.pos.size() > first + 1 ? conv(args.pos[first + 1], n) : n;
  auto off = [&](int64_t cp) {
    return ascii ? static_cast<size_t>(cp) : ByteOffsetOfCodePoint(s, static_cast<size_t>(cp));
  };
  *b = off(lo);
  *e = std::max(*b, off(hi));
}

int64_t CodePointIndex(std::string_view s, size_t byte) {
  return static_cast<int64_t>(IsAscii(s.substr(0, byte)) ? byte
                                                         : CodePointCount(s.substr(0, byte)));
}

bool InSet(std::string_view chars, uint32_t cp) {
  for (size_t i = 0; i < chars.size();) {
    if (NextCodePoint(chars, &i) == cp) return true;
  }
  return false;
}

Value Strip(const Value& self, const CallArgs& args, Arena* a, bool left, bool right) {
  std::string_view s = Str(self, a);
  const Value* chars = args.Get(0, "chars");
  bool ws = !chars || chars->is_none();
  std::string_view set;
  if (!ws) set = Str(RequireStr(chars, "strip"), a);
  auto strip_cp = [&](uint32_t cp) { return ws ? IsPySpace(cp) : InSet(set, cp); };
  size_t b = 0, e = s.size();
  if (left) {
    while (b < e) {
      size_t j = b;
      if (!strip_cp(NextCodePoint(s, &j))) break;
      b = j;
    }
  }
  if (right) {
    while (e > b) {
      size_t start = PrevCodePointStart(s, e);
      size_t j = start;
      if (!strip_cp(NextCodePoint(s, &j))) break;
      e = start;
    }
  }
  return SubString(a, self, b, e);
}

Value ListOfValues(Arena* a, const std::vector<Value>& items, bool tuple = false) {
  List* l = a->New<List>();
  l->is_tuple = tuple;
  for (const Value& v : items) l->Push(a, v);
  return Value::ListOf(l);
}

Value Split(const Value& self, const CallArgs& args, Arena* a, bool from_right) {
  args.Check(from_right ? "rsplit" : "split", 2, {"sep", "maxsplit"});
  std::string_view s = Str(self, a);
  const Value* sepv = args.Get(0, "sep");
  const Value* maxv = args.Get(1, "maxsplit");
  int64_t maxsplit = -1;
  if (maxv && !AsIndex(*maxv, &maxsplit))
    TypeFail("'str' object cannot be interpreted as an integer");
  std::vector<std::pair<size_t, size_t>> parts;
  if (!sepv || sepv->is_none()) {
    // Runs of whitespace separate; leading/trailing whitespace yields nothing.
    std::vector<std::pair<size_t, size_t>> words;
    for (size_t i = 0; i < s.size();) {
      size_t j = i;
      if (IsPySpace(NextCodePoint(s, &j))) {
        i = j;
        continue;
      }
      size_t start = i;
      while (i < s.size()) {
        size_t k = i;
        if (IsPySpace(NextCodePoint(s, &k))) break;
        i = k;
      }
      words.push_back({start, i});
    }
    if (maxsplit < 0 || static_cast<size_t>(maxsplit) >= words.size()) {
      parts = words;
    } else if (!from_right) {
      for (int64_t k = 0; k < maxsplit; ++k) parts.push_back(words[k]);
      if (static_cast<size_t>(maxsplit) < words.size()) {
        // The remainder keeps its inner whitespace but loses leading whitespace.
        size_t start = words[maxsplit].first;
        size_t end = s.size();
        while (end > start) {
          size_t p = PrevCodePointStart(s, end);
          size_t j = p;
          if (!IsPySpace(NextCodePoint(s, &j))) break;
          end = p;
        }
        parts.push_back({start, end});
      }
    } else {
      size_t keep = words.size() - static_cast<size_t>(maxsplit);
      parts.push_back({words[0].first, words[keep - 1].second});
      for (size_t k = keep; k < words.size(); ++k) parts.push_back(words[k]);
    }
  } else {
    std::string_view sep = Str(RequireStr(sepv, "split"), a);
    if (sep.empty()) TypeFail("empty separator");
    if (!from_right) {
      size_t start = 0;
      int64_t done = 0;
      while (maxsplit < 0 || done < maxsplit) {
        size_t at = s.find(sep, start);
        if (at == std::string_view::npos) break;
        parts.push_back({start, at});
        start = at + sep.size();
        ++done;
      }
      parts.push_back({start, s.size()});
    } else {
      size_t end = s.size();
      int64_t done = 0;
      std::vector<std::pair<size_t, size_t>> rev;
      while (maxsplit < 0 || done < maxsplit) {
        if (end < sep.size()) break;
        size_t at = s.rfind(sep, end - sep.size());
        if (at == std::string_view::npos) break;
        rev.push_back({at + sep.size(), end});
        end = at;
        ++done;
      }
      rev.push_back({0, end});
      parts.assign(rev.rbegin(), rev.rend());
    }
  }
  std::vector<Value> items;
  items.reserve(parts.size());
  for (auto [b, e] : parts) items.push_back(SubString(a, self, b, e));
  return ListOfValues(a, items);
}

Value Replace(const Value& self, const CallArgs& args, Arena* a) {
  args.Check("replace", 3, {"count"});
  if (args.pos.size() < 2) TypeFail("replace expected at least 2 arguments");
  std::string_view s = Str(self, a);
  std::string_view old = Str(RequireStr(&args.pos[0], "replace"), a);
  const Value& repl = RequireStr(&args.pos[1], "replace");
  int64_t count = -1;
  if (const Value* c = args.Get(2, "count")) {
    if (!AsIndex(*c, &count)) TypeFail("'str' object cannot be interpreted as an integer");
  }
  std::vector<Piece> pieces;
  size_t start = 0;
  int64_t done = 0;
  if (old.empty()) {
    // Python inserts `new` before every character and at the end.
    for (size_t i = 0; i <= s.size() && (count < 0 || done < count);) {
      AppendPieces(SubString(a, self, start, i), &pieces);
      AppendPieces(repl, &pieces);
      ++done;
      start = i;
      if (i == s.size()) break;
      NextCodePoint(s, &i);
      AppendPieces(SubString(a, self, start, i), &pieces);
      start = i;
    }
    AppendPieces(SubString(a, self, start, s.size()), &pieces);
    return MakeString(a, pieces.data(), pieces.size());
  }
  while (count < 0 || done < count) {
    size_t at = s.find(old, start);
    if (at == std::string_view::npos) break;
    AppendPieces(SubString(a, self, start, at), &pieces);
    AppendPieces(repl, &pieces);
    start = at + old.size();
    ++done;
  }
  if (done == 0) return self;
  AppendPieces(SubString(a, self, start, s.size()), &pieces);
  return MakeString(a, pieces.data(), pieces.size());
}

// The substring a search method (find, count, startswith, ...) looks in: s between the optional
// start and end arguments that follow the first; *b is its byte offset in s.
std::string_view SearchWindow(std::string_view s, const CallArgs& args, size_t* b) {
  size_t e;
  RangeArgs(s, args, 1, b, &e);
  return s.substr(*b, e - *b);
}

// The required str that find() and count() look for (their first argument).
std::string_view NeedleArg(const CallArgs& args, const char* fn, Arena* a) {
  if (args.pos.empty()) TypeFail(std::string(fn) + "() takes at least 1 argument (0 given)");
  return Str(RequireStr(&args.pos[0], fn), a);
}

bool Affix(const Value& self, const CallArgs& args, Arena* a, bool prefix) {
  const char* fn = prefix ? "startswith" : "endswith";
  if (args.pos.empty()) TypeFail(std::string(fn) + "() takes at least 1 argument (0 given)");
  std::string_view s = Str(self, a);
  size_t b;
  std::string_view window = SearchWindow(s, args, &b);
  auto match = [&](const Value& v) {
    if (v.kind != Kind::kString) {
      TypeFail(std::string(fn) + " first arg must be str or a tuple of str, not " + TypeName(v));
    }
    std::string_view x = Str(v, a);
    if (x.size() > window.size()) return false;
    return prefix ? window.substr(0, x.size()) == x : window.substr(window.size() - x.size()) == x;
  };
  const Value& arg = args.pos[0];
  if (arg.kind == Kind::kList && arg.list->is_tuple) {
    for (size_t i = 0; i < arg.list->size; ++i) {
      if (match(arg.list->items[i])) return true;
    }
    return false;
  }
  return match(arg);
}

Value Pad(const Value& self, const CallArgs& args, Arena* a,
          int where /*0 center,1 ljust,2 rjust*/) {
  std::string_view s = Str(self, a);
  int64_t width = 0;
  if (args.pos.empty() || !AsIndex(args.pos[0], &width)) TypeFail("width must be an integer");
  std::string fill = " ";
  if (const Value* f = args.Get(1, "fillchar")) {
    fill = std::string(Str(RequireStr(f, "pad"), a));
    if (CodePointCount(fill) != 1)
      TypeFail("The fill character must be exactly one character long");
  }
  int64_t n = static_cast<int64_t>(CodePointCount(s));
  if (width <= n) return self;
  int64_t total = width - n, left = 0;
  if (where == 0) left = total / 2 + (total & width & 1);
  if (where == 2) left = total;
  // The padded string is charged to the byte budget before it is built: `'x'|center(10**12)`
  // (fuzz finding) ran a character at a time to 99 MB and past libFuzzer's time limit.
  const size_t pad = static_cast<size_t>(total);
  a->Charge(pad > (SIZE_MAX - s.size()) / 8 ? SIZE_MAX : pad * fill.size() + s.size());
  std::string out;
  out.reserve(pad * fill.size() + s.size());
  auto append_fill = [&](int64_t count) {
    if (fill.size() == 1) {
      out.append(static_cast<size_t>(count), fill[0]);
    } else {
      for (int64_t i = 0; i < count; ++i) out += fill;
    }
  };
  append_fill(left);
  out += s;
  append_fill(total - left);
  return NewString(a, out, DominantSegment(self));
}

// A number's format spec in the part of Python's grammar that printf expresses alike:
// [sign][#][0][width][.precision]type, type one of d f e g % (Python's '-' sign is its default and
// becomes nothing; printf's '-' would left-align). False for anything else (fill and alignment,
// grouping, other types, a precision for 'd'), which the caller refuses as unsupported.
struct NumberSpec {
  char sign = 0;  // '+', ' ' or none
  bool alt = false, zero = false;
  std::string width, precision;
  char type = 0;
};

bool ParseNumberSpec(std::string_view sp, NumberSpec* out) {
  size_t i = 0;
  auto digits = [&](std::string* to) {
    while (i < sp.size() && std::isdigit(static_cast<unsigned char>(sp[i]))) to->push_back(sp[i++]);
  };
  if (i < sp.size() && (sp[i] == '+' || sp[i] == ' ' || sp[i] == '-')) {
    if (sp[i] != '-') out->sign = sp[i];
    ++i;
  }
  if (i < sp.size() && sp[i] == '#') {
    out->alt = true;
    ++i;
  }
  if (i < sp.size() && sp[i] == '0') {
    out->zero = true;
    ++i;
  }
  digits(&out->width);
  if (i < sp.size() && sp[i] == '.') {
    ++i;
    digits(&out->precision);
    if (out->precision.empty()) return false;
  }
  if (i + 1 != sp.size()) return false;
  out->type = sp[i];
  if (out->type == 'd') return out->precision.empty();
  return out->type == 'f' || out->type == 'e' || out->type == 'g' || out->type == '%';
}

// str.format with positional / named fields, !r/!s and the common format specs.
Value Format(const Value& self, const CallArgs& args, Arena* a) {
  std::string_view f = Str(self, a);
  std::string out;
  size_t auto_index = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    char c = f[i];
    if (c == '}') {
      if (i + 1 < f.size() && f[i + 1] == '}') {
        out.push_back('}');
        ++i;
        continue;
      }
      TypeFail("Single '}' encountered in format string");
    }
    if (c != '{') {
      out.push_back(c);
      continue;
    }
    if (i + 1 < f.size() && f[i + 1] == '{') {
      out.push_back('{');
      ++i;
      continue;
    }
    size_t close = f.find('}', i);
    if (close == std::string_view::npos) TypeFail("Single '{' encountered in format string");
    std::string_view field = f.substr(i + 1, close - i - 1);
    i = close;
    std::string_view spec, conv;
    size_t colon = field.find(':');
    if (colon != std::string_view::npos) {
      spec = field.substr(colon + 1);
      field = field.substr(0, colon);
    }
    size_t bang = field.find('!');
    if (bang != std::string_view::npos) {
      conv = field.substr(bang + 1);
      field = field.substr(0, bang);
    }
    Value v;
    if (field.empty()) {
      if (auto_index >= args.pos.size())
        TypeFail("Replacement index out of range for positional args tuple");
      v = args.pos[auto_index++];
    } else if (std::isdigit(static_cast<unsigned char>(field[0]))) {
      // from_chars: 20 digits were an uncaught std::out_of_range (issue 35, item 4).
      size_t k = 0;
      auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), k);
      if (ec == std::errc::result_out_of_range)
        TypeFail("Too many decimal digits in format string");
      (void)end;
      if (k >= args.pos.size())
        TypeFail("Replacement index out of range for positional args tuple");
      v = args.pos[k];
    } else {
      const Value* kv = args.Kw(field);
      if (!kv) TypeFail("KeyError: '" + std::string(field) + "'");
      v = *kv;
    }
    std::string text;
    if (conv == "r") {
      AppendRepr(v, a, &text);
    } else if (!spec.empty() && v.is_number() && conv.empty()) {
      std::string sp(spec);
      // Room for the widest number the spec asks for, charged to the budget before it is made
      // (a fixed 256-byte buffer cut wide fields short after formatting them in full).
      size_t widest = 0;
      for (size_t d = 0; d < sp.size();) {
        size_t e = d;
        while (e < sp.size() && std::isdigit(static_cast<unsigned char>(sp[e]))) ++e;
        if (e > d) {
          size_t n = 0;
          auto [end, ec] = std::from_chars(sp.data() + d, sp.data() + e, n);
          (void)end;
          if (ec != std::errc() || n > size_t{INT32_MAX})
            TypeFail("Too many decimal digits in format string");
          widest = std::max(widest, n);
          d = e;
        } else {
          ++d;
        }
      }
      const size_t room = widest + 400;
      a->Charge(room);
      std::vector<char> buf(room, '\0');
      // The printf format is built from the parsed parts, never from the spec's text: the spec is
      // the template's (or the request's) text, and a format made of it read arbitrary memory
      // (chat_template fuzzer: a '$' positional conversion in a spec crashed in vsnprintf).
      NumberSpec ns;
      if (!ParseNumberSpec(sp, &ns) || (ns.type == 'd' && v.kind == Kind::kFloat))
        Fail(ErrorKind::kUnsupported, "format spec '" + sp + "' is not supported");
      std::string pf = "%";
      if (ns.sign != 0) pf += ns.sign;
      if (ns.alt) pf += '#';
      if (ns.zero) pf += '0';
      if (ns.type == '%' && !ns.width.empty()) {  // Python's width includes the '%' sign
        pf += std::to_string(std::max<size_t>(std::stoul(ns.width), 1) - 1);
      } else {
        pf += ns.width;
      }
      if (!ns.precision.empty()) pf += "." + ns.precision;
      if (ns.type == 'd') {
        std::snprintf(buf.data(), room, (pf + "lld").c_str(),
                      static_cast<long long>(v.kind == Kind::kBool ? v.b : v.i));
      } else if (ns.type == '%') {
        std::snprintf(buf.data(), room, (pf + "f").c_str(), AsDouble(v) * 100);
      } else {
        std::snprintf(buf.data(), room, (pf + ns.type).c_str(), AsDouble(v));
      }
      if (ns.type == '%') std::strncat(buf.data(), "%", room - std::strlen(buf.data()) - 1);
      text = buf.data();
    } else {
      AppendStr(v, a, &text);
      if (!spec.empty()) {
        char align = '<';
        std::string_view sp = spec;
        std::string fill = " ";
        if (sp.size() >= 2 && (sp[1] == '<' || sp[1] == '>' || sp[1] == '^')) {
          fill = std::string(1, sp[0]);
          align = sp[1];
          sp = sp.substr(2);
        } else if (!sp.empty() && (sp[0] == '<' || sp[0] == '>' || sp[0] == '^')) {
          align = sp[0];
          sp = sp.substr(1);
        }
        for (char ch : sp) {
          if (!std::isdigit(static_cast<unsigned char>(ch))) {
            Fail(ErrorKind::kUnsupported,
                 "format spec '" + std::string(spec) + "' is not supported");
          }
        }
        size_t w = 0;
        if (!sp.empty()) {
          auto [end, ec] = std::from_chars(sp.data(), sp.data() + sp.size(), w);
          (void)end;
          if (ec != std::errc() || w > size_t{INT64_MAX})
            TypeFail("Too many decimal digits in format string");
        }
        a->Charge(w > SIZE_MAX / 8 ? SIZE_MAX : w * fill.size());
        size_t n = CodePointCount(text);
        if (n < w) {
          size_t pad = w - n, left = align == '>' ? pad : align == '^' ? pad / 2 : 0;
          std::string l, r;
          for (size_t k = 0; k < left; ++k) l += fill;
          for (size_t k = left; k < pad; ++k) r += fill;
          l += text;
          l += r;
          text = std::move(l);
        }
      }
    }
    out += text;
  }
  return NewString(a, out, DominantSegment(self));
}

template <typename Pred>
bool AllCodePoints(std::string_view s, Pred p) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size();) {
    if (!p(NextCodePoint(s, &i))) return false;
  }
  return true;
}

Value StrMethod(Method m, const Value& self, const CallArgs& args, Arena* a) {
  std::string_view s = Str(self, a);
  SegmentId src = DominantSegment(self);
  switch (m) {
    case Method::kStartswith:
      return Value::Bool(Affix(self, args, a, true));
    case Method::kEndswith:
      return Value::Bool(Affix(self, args, a, false));
    case Method::kSplit:
      return Split(self, args, a, false);
    case Method::kRsplit:
      return Split(self, args, a, true);
    case Method::kStrip:
      return Strip(self, args, a, true, true);
    case Method::kLstrip:
      return Strip(self, args, a, true, false);
    case Method::kRstrip:
      return Strip(self, args, a, false, true);
    case Method::kReplace:
      return Replace(self, args, a);
    case Method::kUpper:
      return NewString(a, PyUpper(s), src);
    case Method::kLower:
    case Method::kCasefold:
      return NewString(a, PyLower(s), src);
    case Method::kTitle:
      return NewString(a, PyTitle(s), src);
    case Method::kCapitalize:
      return NewString(a, PyCapitalize(s), src);
    case Method::kSwapcase: {
      std::string out;
      for (size_t i = 0; i < s.size();) {
        size_t st = i;
        uint32_t cp = NextCodePoint(s, &i);
        std::string_view one = s.substr(st, i - st);
        out += IsPyUpper(cp) ? PyLower(one) : IsPyLower(cp) ? PyUpper(one) : std::string(one);
      }
      return NewString(a, out, src);
    }
    case Method::kFind:
    case Method::kRfind:
    case Method::kIndex:
    case Method::kRindex: {
      std::string_view sub = NeedleArg(args, "find", a);
      size_t b;
      std::string_view window = SearchWindow(s, args, &b);
      size_t at =
          (m == Method::kFind || m == Method::kIndex) ? window.find(sub) : window.rfind(sub);
      if (at == std::string_view::npos) {
        if (m == Method::kIndex || m == Method::kRindex) TypeFail("substring not found");
        return Value::Int(-1);
      }
      return Value::Int(CodePointIndex(s, b + at));
    }
    case Method::kCount: {
      std::string_view sub = NeedleArg(args, "count", a);
      size_t b;
      std::string_view window = SearchWindow(s, args, &b);
      if (sub.empty()) return Value::Int(static_cast<int64_t>(CodePointCount(window)) + 1);
      int64_t n = 0;
      for (size_t at = window.find(sub); at != std::string_view::npos;
           at = window.find(sub, at + sub.size()))
        ++n;
      return Value::Int(n);
    }
    case Method::kFormat:
      return Format(self, args, a);
    case Method::kJoin: {
      if (args.pos.size() != 1) TypeFail("join() takes exactly one argument");
      std::vector<Value> items;
      PyIterate(args.pos[0], a, &items);
      std::vector<Piece> pieces;
      for (size_t i = 0; i < items.size(); ++i) {
        if (items[i].kind != Kind::kString) {
          TypeFail("sequence item " + std::to_string(i) + ": expected str instance, " +
                   TypeName(items[i]) + " found");
        }
        if (i) AppendPieces(self, &pieces);
        AppendPieces(items[i], &pieces);
      }
      return MakeString(a, pieces.data(), pieces.size());
    }
    case Method::kIsdigit:
    case Method::kIsdecimal:
    case Method::kIsnumeric:
      return Value::Bool(AllCodePoints(s, IsPyDigit));
    case Method::kIsalpha:
      return Value::Bool(AllCodePoints(s, IsPyAlpha));
    case Method::kIsalnum:
      return Value::Bool(AllCodePoints(s, IsPyAlnum));
    case Method::kIsspace:
      return Value::Bool(AllCodePoints(s, IsPySpace));
    case Method::kIslower:
    case Method::kIsupper: {
      bool any = false, ok = true;
      for (size_t i = 0; i < s.size();) {
        uint32_t cp = NextCodePoint(s, &i);
        if (IsPyUpper(cp)) {
          any = true;
          if (m == Method::kIslower) ok = false;
        } else if (IsPyLower(cp)) {
          any = true;
          if (m == Method::kIsupper) ok = false;
        }
      }
      return Value::Bool(any && ok);
    }
    case Method::kIstitle:
      return Value::Bool(!s.empty() && PyTitle(s) == s);
    case Method::kRemoveprefix:
    case Method::kRemovesuffix: {
      if (args.pos.size() != 1) TypeFail("takes exactly one argument");
      std::string_view x = Str(RequireStr(&args.pos[0], "removeprefix"), a);
      if (m == Method::kRemoveprefix && s.substr(0, x.size()) == x && !x.empty()) {
        return SubString(a, self, x.size(), s.size());
      }
      if (m == Method::kRemovesuffix && x.size() <= s.size() && !x.empty() &&
          s.substr(s.size() - x.size()) == x) {
        return SubString(a, self, 0, s.size() - x.size());
      }
      return self;
    }
    case Method::kSplitlines: {
      const Value* keep = args.Get(0, "keepends");
      bool keepends = keep && Truthy(*keep);
      std::vector<Value> items;
      size_t start = 0;
      for (size_t i = 0; i < s.size();) {
        size_t st = i;
        uint32_t cp = NextCodePoint(s, &i);
        bool br = cp == '\n' || cp == '\r' || cp == 0x0B || cp == 0x0C || cp == 0x1C ||
                  cp == 0x1D || cp == 0x1E || cp == 0x85 || cp == 0x2028 || cp == 0x2029;
        if (!br) continue;
        size_t end = i;
        if (cp == '\r' && i < s.size() && s[i] == '\n') end = ++i;
        items.push_back(SubString(a, self, start, keepends ? end : st));
        start = i;
      }
      if (start < s.size()) items.push_back(SubString(a, self, start, s.size()));
      return ListOfValues(a, items);
    }
    case Method::kZfill: {
      int64_t width = 0;
      if (args.pos.empty() || !AsIndex(args.pos[0], &width))
        TypeFail("zfill() argument must be int");
      int64_t n = static_cast<int64_t>(CodePointCount(s));
      if (width <= n) return self;
      std::string out(s);
      size_t at = !out.empty() && (out[0] == '+' || out[0] == '-') ? 1 : 0;
      out.insert(at, static_cast<size_t>(width - n), '0');
      return NewString(a, out, src);
    }
    case Method::kCenter:
      return Pad(self, args, a, 0);
    case Method::kLjust:
      return Pad(self, args, a, 1);
    case Method::kRjust:
      return Pad(self, args, a, 2);
    case Method::kPartition:
    case Method::kRpartition: {
      if (args.pos.size() != 1) TypeFail("partition() takes exactly one argument");
      const Value& sepv = RequireStr(&args.pos[0], "partition");
      std::string_view sep = Str(sepv, a);
      if (sep.empty()) TypeFail("empty separator");
      size_t at = m == Method::kPartition ? s.find(sep) : s.rfind(sep);
      Value empty = Value::Str(std::string_view(""));
      if (at == std::string_view::npos) {
        if (m == Method::kPartition) return ListOfValues(a, {self, empty, empty}, true);
        return ListOfValues(a, {empty, empty, self}, true);
      }
      return ListOfValues(a,
                          {SubString(a, self, 0, at), SubString(a, self, at, at + sep.size()),
                           SubString(a, self, at + sep.size(), s.size())},
                          true);
    }
    case Method::kEncode:
      Fail(ErrorKind::kUnsupported, "str.encode() is not supported");
    default:
      break;
  }
  Fail(ErrorKind::kUnsupported, "unsupported str method");
}

}  // namespace

Value CallMethod(Method m, const Value& self, const CallArgs& args, Arena* a) {
  if (self.kind == Kind::kString) return StrMethod(m, self, args, a);
  if (self.kind == Kind::kDict) {
    const Dict* d = self.dict;
    switch (m) {
      case Method::kItems: {
        std::vector<Value> items;
        for (size_t i = 0; i < d->size; ++i) {
          items.push_back(ListOfValues(a, {d->entries[i].key, d->entries[i].value}, true));
        }
        return ListOfValues(a, items);
      }
      case Method::kKeys:
      case Method::kValues: {
        std::vector<Value> items;
        for (size_t i = 0; i < d->size; ++i) {
          items.push_back(m == Method::kKeys ? d->entries[i].key : d->entries[i].value);
        }
        return ListOfValues(a, items);
      }
      case Method::kGet: {
        if (args.pos.empty() || args.pos.size() > 2 || !args.kw.empty()) {
          TypeFail("get expected 1 or 2 arguments");
        }
        const Value* v = d->Find(args.pos[0]);
        if (v) return *v;
        return args.pos.size() > 1 ? args.pos[1] : Value::None();
      }
      case Method::kCopy: {
        Dict* c = a->New<Dict>();
        for (size_t i = 0; i < d->size; ++i) c->Set(a, d->entries[i].key, d->entries[i].value);
        return Value::DictOf(c);
      }
      default:
        break;
    }
  }
  if (self.kind == Kind::kList) {
    const List* l = self.list;
    switch (m) {
      case Method::kIndex:
        if (args.pos.empty()) TypeFail("index expected at least 1 argument");
        for (size_t i = 0; i < l->size; ++i) {
          if (PyEquals(l->items[i], args.pos[0], a)) return Value::Int(static_cast<int64_t>(i));
        }
        TypeFail("value is not in list");
      case Method::kCount: {
        if (args.pos.size() != 1) TypeFail("count() takes exactly one argument");
        int64_t n = 0;
        for (size_t i = 0; i < l->size; ++i) n += PyEquals(l->items[i], args.pos[0], a) ? 1 : 0;
        return Value::Int(n);
      }
      case Method::kCopy: {
        List* c = a->New<List>();
        for (size_t i = 0; i < l->size; ++i) c->Push(a, l->items[i]);
        return Value::ListOf(c);
      }
      default:
        break;
    }
  }
  Fail(ErrorKind::kUnsupported, "unsupported method");
}

}  // namespace ltl::ct
