// Jinja2's built-in filters as jinja2/filters.py defines them (3.1), plus transformers' tojson.
// Filters that return generators in Jinja2 (map, select, reject, selectattr, rejectattr,
// unique, items, reverse of a list, batch, slice) return generator lists here, so len(),
// indexing and a second iteration fail or come out empty exactly as they would in Python.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "common/html_escape.h"
#include "jinja/errors.h"
#include "jinja/evaluator.h"
#include "jinja/json.h"
#include "jinja/library.h"
#include "jinja/py_unicode.h"

namespace ltl::ct {

namespace {

Value StrOf(const Value& v, Arena* a) {
  return ToStringValue(v, a);
}

Value ListFrom(Arena* a, const std::vector<Value>& items, bool generator = false) {
  List* l = a->New<List>();
  l->generator = generator;
  for (const Value& v : items) l->Push(a, v);
  return Value::ListOf(l);
}

Value Tuple2(Arena* a, const Value& x, const Value& y) {
  List* l = a->New<List>();
  l->is_tuple = true;
  l->Push(a, x);
  l->Push(a, y);
  return Value::ListOf(l);
}

std::vector<Value> Items(const Value& v, Arena* a) {
  std::vector<Value> items;
  PyIterate(v, a, &items);
  return items;
}

bool BoolArg(const CallArgs& args, size_t i, const char* name, bool def) {
  const Value* v = args.Get(i, name);
  return v ? Truthy(*v) : def;
}

Value LowerIfString(const Value& v, Arena* a) {
  if (v.kind != Kind::kString) return v;
  return NewString(a, PyLower(StrView(v, a)), v.src);
}

// make_attrgetter: "a.b.0" -> item["a"]["b"][0] with Jinja's getitem (key, then attribute).
Value AttrPath(const Value& item, const Value& attribute, Arena* a, const Value* def) {
  Value cur = item;
  if (attribute.kind == Kind::kInt) {
    cur = GetItem(cur, attribute, a);
  } else {
    std::string path(StrView(StrOf(attribute, a), a));
    size_t start = 0;
    while (true) {
      size_t dot = path.find('.', start);
      std::string part =
          path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      bool digits = !part.empty() && std::all_of(part.begin(), part.end(), ::isdigit);
      // Jinja2 makes a digit part an int (any size); one past int64 indexes nothing, so it is
      // undefined here (std::stoll threw std::out_of_range: issue 35, item 4).
      int64_t index = 0;
      if (digits) {
        auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), index);
        (void)end;
        if (ec != std::errc()) {
          cur = Value::Undefined();
          if (def) return *def;
          break;
        }
      }
      Value key = digits ? Value::Int(index) : NewString(a, part);
      cur = GetItem(cur, key, a);
      if (cur.is_undefined() && def) return *def;
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
  }
  if (cur.is_undefined() && def) return *def;
  return cur;
}

// Python float(str): surrounding whitespace, underscores between digits, inf/nan.
bool ParsePyFloat(std::string_view s, double* out) {
  size_t b = 0, e = s.size();
  while (b < e && IsPySpace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && IsPySpace(static_cast<unsigned char>(s[e - 1]))) --e;
  std::string t;
  for (size_t i = b; i < e; ++i) {
    if (s[i] == '_') {
      if (i == b || i + 1 == e || !std::isdigit(static_cast<unsigned char>(s[i - 1])) ||
          !std::isdigit(static_cast<unsigned char>(s[i + 1]))) {
        return false;
      }
      continue;
    }
    t.push_back(s[i]);
  }
  if (t.empty()) return false;
  std::string low = PyLower(t);
  std::string_view body = low;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) body.remove_prefix(1);
  if (body == "inf" || body == "infinity" || body == "nan") {
    *out = body == "nan" ? std::nan("") : (low[0] == '-' ? -HUGE_VAL : HUGE_VAL);
    return true;
  }
  for (char c : body) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == '+' ||
          c == '-')) {
      return false;
    }
  }
  char* end = nullptr;
  *out = std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size();
}

// Python int(str, base) for base 10 (the filter's default); false when it would raise.
bool ParsePyInt(std::string_view s, int base, int64_t* out) {
  size_t b = 0, e = s.size();
  while (b < e && IsPySpace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && IsPySpace(static_cast<unsigned char>(s[e - 1]))) --e;
  std::string t;
  for (size_t i = b; i < e; ++i) {
    if (s[i] == '_') continue;
    t.push_back(s[i]);
  }
  if (t.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(t.c_str(), &end, base);
  if (end != t.c_str() + t.size() || errno == ERANGE) return false;
  if (t[0] == ' ') return false;
  *out = v;
  return true;
}

Value RoundFilter(const Value& v, const CallArgs& args, Arena* a) {
  int64_t precision = 0;
  if (const Value* p = args.Get(0, "precision")) {
    if (!AsIndex(*p, &precision)) TypeFail("'float' object cannot be interpreted as an integer");
  }
  std::string method = "common";
  if (const Value* m = args.Get(1, "method")) method = std::string(StrView(StrOf(*m, a), a));
  if (method != "common" && method != "ceil" && method != "floor") {
    TypeFail("method must be common, ceil or floor");
  }
  if (!v.is_number()) {
    if (v.is_undefined()) FailUndefined(v);
    TypeFail(std::string("type ") + TypeName(v) + " doesn't define __round__ method");
  }
  if (method == "common") {
    if (v.kind != Kind::kFloat) return Value::Int(v.kind == Kind::kBool ? v.b : v.i, v.src);
    if (precision < 0 || precision > 300)
      Fail(ErrorKind::kUnsupported, "round() precision out of range");
    if (!std::isfinite(v.d)) return v;
    // printf rounds the exact binary value half-to-even, as CPython's round(x, n) does.
    char buf[512];
    std::snprintf(buf, sizeof(buf), "%.*f", static_cast<int>(precision), v.d);
    return Value::Float(std::strtod(buf, nullptr), v.src);
  }
  double scale = std::pow(10.0, static_cast<double>(precision));
  double x = AsDouble(v) * scale;
  return Value::Float((method == "ceil" ? std::ceil(x) : std::floor(x)) / scale, v.src);
}

Value Indent(const Value& v, const CallArgs& args, Arena* a) {
  std::string ind = "    ";
  if (const Value* w = args.Get(0, "width")) {
    if (w->kind == Kind::kString) {
      ind = std::string(StrView(*w, a));
    } else {
      int64_t n;
      if (!AsIndex(*w, &n)) TypeFail("can't multiply sequence by non-int");
      a->Charge(n > 0 ? static_cast<size_t>(n) : 0);  // before it is built: indent(99999999)
      ind.assign(n > 0 ? static_cast<size_t>(n) : 0, ' ');
    }
  }
  bool first = BoolArg(args, 1, "first", false);
  bool blank = BoolArg(args, 2, "blank", false);
  std::string s(StrView(StrOf(v, a), a));
  s += "\n";
  // str.splitlines()
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t i = 0; i < s.size();) {
    size_t st = i;
    uint32_t cp = NextCodePoint(s, &i);
    bool br = cp == '\n' || cp == '\r' || cp == 0x0B || cp == 0x0C || cp == 0x1C || cp == 0x1D ||
              cp == 0x1E || cp == 0x85 || cp == 0x2028 || cp == 0x2029;
    if (!br) continue;
    if (cp == '\r' && i < s.size() && s[i] == '\n') ++i;
    lines.push_back(s.substr(start, st - start));
    start = i;
  }
  if (start < s.size()) lines.push_back(s.substr(start));
  // The result, charged to the byte budget before it is built (at most an indentation and a
  // newline per line; a fuzz input indented 4,000 lines by 97 MB each ran for minutes).
  const size_t per_line = ind.size() + 1;
  a->Charge(lines.size() > (SIZE_MAX - s.size()) / per_line ? SIZE_MAX
                                                            : lines.size() * per_line + s.size());
  std::string rv;
  if (blank) {
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i) rv += "\n" + ind;
      rv += lines[i];
    }
  } else {
    rv = lines.empty() ? std::string() : lines[0];
    for (size_t i = 1; i < lines.size(); ++i) {
      rv += "\n";
      if (!lines[i].empty()) rv += ind;
      rv += lines[i];
    }
  }
  if (first) rv = ind + rv;
  return NewString(a, rv, DominantSegment(v));
}

Value Tojson(const Value& v, const CallArgs& args, Arena* a) {
  args.Check("tojson", 4, {"ensure_ascii", "indent", "separators", "sort_keys"});
  JsonDumpOptions o;
  if (const Value* e = args.Get(0, "ensure_ascii")) o.ensure_ascii = Truthy(*e);
  if (const Value* ind = args.Get(1, "indent")) {
    if (ind->kind == Kind::kString) {
      o.has_indent = true;
      o.indent = std::string(StrView(*ind, a));
    } else if (!ind->is_none()) {
      int64_t n;
      if (!AsIndex(*ind, &n)) TypeFail("can't multiply sequence by non-int of type 'float'");
      o.has_indent = true;
      o.indent.assign(n > 0 ? static_cast<size_t>(n) : 0, ' ');
    }
  }
  if (const Value* sep = args.Get(2, "separators")) {
    if (!sep->is_none()) {
      std::vector<Value> parts = Items(*sep, a);
      if (parts.size() != 2 || parts[0].kind != Kind::kString || parts[1].kind != Kind::kString) {
        TypeFail("separators must be a (item_separator, key_separator) pair of strings");
      }
      o.has_separators = true;
      o.item_separator = std::string(StrView(parts[0], a));
      o.key_separator = std::string(StrView(parts[1], a));
    }
  }
  if (const Value* sk = args.Get(3, "sort_keys")) o.sort_keys = Truthy(*sk);
  return DumpJson(v, o, a);
}

Value Escape(const Value& v, Arena* a) {
  Value s = StrOf(v, a);
  std::string_view in = StrView(s, a);
  if (in.find_first_of("&<>\"'") == std::string_view::npos) return s;
  std::string out;
  AppendHtmlEscaped(in, "&#34;", &out);  // markupsafe's entities
  return NewString(a, out, DominantSegment(s));
}

Value Title(const Value& v, Arena* a) {
  // Jinja: split on runs of [-\s({\[<]; each item -> item[0].upper() + item[1:].lower().
  std::string_view s = StrView(StrOf(v, a), a);
  auto is_sep = [](uint32_t cp) {
    return cp == '-' || cp == '(' || cp == '{' || cp == '[' || cp == '<' || IsPySpace(cp);
  };
  std::string out;
  bool at_start = true;
  for (size_t i = 0; i < s.size();) {
    size_t st = i;
    uint32_t cp = NextCodePoint(s, &i);
    std::string_view one = s.substr(st, i - st);
    bool sep = is_sep(cp);
    if (sep) {
      out += one;
      at_start = true;
      continue;
    }
    out += at_start ? PyUpper(one) : PyLower(one);
    at_start = false;
  }
  return NewString(a, out, DominantSegment(v));
}

Value Truncate(const Value& v, const CallArgs& args, Arena* a) {
  Value sv = StrOf(v, a);
  std::string_view s = StrView(sv, a);
  int64_t length = 255, leeway = 5;
  if (const Value* l = args.Get(0, "length")) AsIndex(*l, &length);
  bool killwords = BoolArg(args, 1, "killwords", false);
  std::string end = "...";
  if (const Value* e = args.Get(2, "end")) end = std::string(StrView(StrOf(*e, a), a));
  if (const Value* lw = args.Get(3, "leeway"); lw && !lw->is_none()) AsIndex(*lw, &leeway);
  int64_t n = static_cast<int64_t>(CodePointCount(s));
  int64_t nend = static_cast<int64_t>(CodePointCount(end));
  if (length < nend)
    TypeFail("expected length >= " + std::to_string(nend) + ", got " + std::to_string(length));
  if (n <= length + leeway) return sv;
  std::string head(s.substr(0, ByteOffsetOfCodePoint(s, static_cast<size_t>(length - nend))));
  if (!killwords) {
    size_t sp = head.rfind(' ');
    if (sp != std::string::npos) head = head.substr(0, sp);
  }
  return NewString(a, head + end, DominantSegment(sv));
}

Value Striptags(const Value& v, Arena* a) {
  std::string_view s = StrView(StrOf(v, a), a);
  std::string no_tags;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 4, "<!--") == 0) {
      size_t e = s.find("-->", i + 4);
      if (e != std::string_view::npos) {
        i = e + 2;
        continue;
      }
    }
    if (s[i] == '<') {
      size_t e = s.find('>', i + 1);
      if (e != std::string_view::npos) {
        i = e;
        continue;
      }
    }
    no_tags.push_back(s[i]);
  }
  std::string out;
  for (size_t i = 0; i < no_tags.size();) {
    size_t st = i;
    uint32_t cp = NextCodePoint(no_tags, &i);
    if (IsPySpace(cp)) {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
      continue;
    }
    out.append(no_tags, st, i - st);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return NewString(a, out, DominantSegment(v));
}

// The item's sort / grouping key (attribute path and case folding).
Value SortKey(const Value& item, const Value* attribute, bool case_sensitive, Arena* a) {
  Value k = attribute && !attribute->is_none() ? AttrPath(item, *attribute, a, nullptr) : item;
  return case_sensitive ? k : LowerIfString(k, a);
}

Value SelectReject(const Value& v, const CallArgs& args, Evaluator* ev, bool select, bool attr) {
  Arena* a = ev->arena();
  std::vector<Value> out;
  if (!Truthy(v)) return ListFrom(a, out, true);
  size_t off = 0;
  Value attribute;
  if (attr) {
    if (args.pos.empty()) TypeFail("Missing parameter for attribute name");
    attribute = args.pos[0];
    off = 1;
  }
  int test = -1;
  CallArgs test_args;
  if (args.pos.size() > off) {
    Value name = args.pos[off];
    if (name.kind != Kind::kString) TypeFail("test name must be a string");
    test = LookupTest(StrView(name, a));
    if (test < 0) TypeFail("No test named '" + std::string(StrView(name, a)) + "'.");
    test_args.pos.assign(args.pos.begin() + static_cast<long>(off) + 1, args.pos.end());
    test_args.kw = args.kw;
  }
  for (const Value& item : Items(v, a)) {
    Value x = attr ? AttrPath(item, attribute, a, nullptr) : item;
    bool ok = test >= 0 ? ev->ApplyTestById(test, x, test_args) : Truthy(x);
    if (ok == select) out.push_back(item);
  }
  return ListFrom(a, out, true);
}

Value MapFilter(const Value& v, const CallArgs& args, Evaluator* ev) {
  Arena* a = ev->arena();
  std::vector<Value> out;
  if (!Truthy(v)) return ListFrom(a, out, true);
  if (args.pos.empty() && args.Kw("attribute")) {
    const Value* def = args.Kw("default");
    for (const auto& [k, x] : args.kw) {
      if (k != "attribute" && k != "default")
        TypeFail("Unexpected keyword argument '" + std::string(k) + "'");
    }
    for (const Value& item : Items(v, a))
      out.push_back(AttrPath(item, *args.Kw("attribute"), a, def));
    return ListFrom(a, out, true);
  }
  if (args.pos.empty()) TypeFail("map requires a filter argument");
  if (args.pos[0].kind != Kind::kString) TypeFail("filter name must be a string");
  int id = LookupFilter(StrView(args.pos[0], a));
  if (id < 0) TypeFail("No filter named '" + std::string(StrView(args.pos[0], a)) + "'.");
  CallArgs rest;
  rest.pos.assign(args.pos.begin() + 1, args.pos.end());
  rest.kw = args.kw;
  for (const Value& item : Items(v, a)) out.push_back(ev->ApplyFilterById(id, item, rest));
  return ListFrom(a, out, true);
}

void StableSort(std::vector<Value>* items, std::vector<Value>* keys, bool reverse, Arena* a) {
  std::vector<size_t> order(items->size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  // Python's sort is stable, also with reverse=True (equal keys keep their order).
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return reverse ? PyLess((*keys)[y], (*keys)[x], a) : PyLess((*keys)[x], (*keys)[y], a);
  });
  std::vector<Value> sorted;
  sorted.reserve(order.size());
  for (size_t i : order) sorted.push_back((*items)[i]);
  items->swap(sorted);
}

}  // namespace

Value ApplyFilter(FilterId id, const Value& v, const CallArgs& args, Evaluator* ev) {
  Arena* a = ev->arena();
  switch (id) {
    case FilterId::kAbs:
      if (v.kind == Kind::kInt) {
        // Python's abs(-2**63) is 2**63, beyond this engine's 64-bit ints (issue 35, item 17).
        if (v.i == INT64_MIN) Fail(ErrorKind::kUnsupported, "integer result exceeds 64 bits");
        return Value::Int(v.i < 0 ? -v.i : v.i, v.src);
      }
      if (v.kind == Kind::kBool) return Value::Int(v.b, v.src);
      if (v.kind == Kind::kFloat) return Value::Float(std::fabs(v.d), v.src);
      if (v.is_undefined()) FailUndefined(v);
      TypeFail(std::string("bad operand type for abs(): '") + TypeName(v) + "'");
    case FilterId::kAttr: {
      const Value* name = args.Get(0, "name");
      if (!name) TypeFail("attr() missing required argument 'name'");
      if (v.kind == Kind::kDict && name->kind == Kind::kString) {
        Value m = GetAttr(v, StrView(*name, a), a);
        // Only real attributes (methods), not keys.
        if (m.kind == Kind::kCallable || (m.is_undefined() && m.undef && m.undef->unsafe)) return m;
        return MakeUndefined(
            a, "'dict object' has no attribute '" + std::string(StrView(*name, a)) + "'");
      }
      return GetAttr(v, StrView(StrOf(*name, a), a), a);
    }
    case FilterId::kBatch:
    case FilterId::kSlice: {
      int64_t n = 0;
      const Value* nv = args.Get(0, id == FilterId::kBatch ? "linecount" : "slices");
      if (!nv || !AsIndex(*nv, &n) || n <= 0)
        TypeFail("batch/slice count must be a positive integer");
      const Value* fill = args.Get(1, "fill_with");
      std::vector<Value> items = Items(v, a);
      // What the groups will hold, charged before they are built: `[1]|batch(10**12, 'x')` pads
      // a group to n values and `slice(10**12)` makes n groups; batch without a fill value holds
      // only the items.
      const bool padded = fill && !fill->is_none();
      const size_t extra = id == FilterId::kSlice || padded ? static_cast<size_t>(n) : 0;
      a->Charge(extra > SIZE_MAX / sizeof(Value) - items.size()
                    ? SIZE_MAX
                    : (items.size() + extra) * sizeof(Value));
      std::vector<Value> groups;
      if (id == FilterId::kBatch) {
        for (size_t i = 0; i < items.size(); i += static_cast<size_t>(n)) {
          std::vector<Value> g(items.begin() + static_cast<long>(i),
                               items.begin() + static_cast<long>(std::min(
                                                   items.size(), i + static_cast<size_t>(n))));
          if (fill && !fill->is_none()) {
            while (g.size() < static_cast<size_t>(n)) g.push_back(*fill);
          }
          groups.push_back(ListFrom(a, g));
        }
      } else {
        size_t len = items.size(), per = len / static_cast<size_t>(n),
               extra = len % static_cast<size_t>(n);
        size_t offset = 0;
        for (size_t k = 0; k < static_cast<size_t>(n); ++k) {
          size_t start = offset + k * per;
          if (k < extra) ++offset;
          size_t end = offset + (k + 1) * per;
          std::vector<Value> g(items.begin() + static_cast<long>(start),
                               items.begin() + static_cast<long>(end));
          if (fill && !fill->is_none() && k >= extra) g.push_back(*fill);
          groups.push_back(ListFrom(a, g));
        }
      }
      return ListFrom(a, groups, true);
    }
    case FilterId::kCapitalize:
      return NewString(a, PyCapitalize(StrView(StrOf(v, a), a)), DominantSegment(v));
    case FilterId::kCenter: {
      CallArgs pad;
      pad.pos.push_back(args.Get(0, "width") ? *args.Get(0, "width") : Value::Int(80));
      return CallMethod(Method::kCenter, StrOf(v, a), pad, a);
    }
    case FilterId::kCount:
    case FilterId::kLength:
      return Value::Int(static_cast<int64_t>(PyLength(v, a)));
    case FilterId::kDefault: {
      const Value* def = args.Get(0, "default_value");
      bool boolean = BoolArg(args, 1, "boolean", false);
      if (v.is_undefined() || (boolean && !Truthy(v)))
        return def ? *def : Value::Str(std::string_view(""));
      return v;
    }
    case FilterId::kDictsort: {
      if (v.kind != Kind::kDict) TypeFail("dictsort expects a mapping");
      bool case_sensitive = BoolArg(args, 0, "case_sensitive", false);
      std::string by = "key";
      if (const Value* b = args.Get(1, "by")) by = std::string(StrView(StrOf(*b, a), a));
      bool reverse = BoolArg(args, 2, "reverse", false);
      if (by != "key" && by != "value")
        TypeFail("You can only sort by either \"key\" or \"value\"");
      std::vector<Value> items, keys;
      for (size_t i = 0; i < v.dict->size; ++i) {
        const DictEntry& e = v.dict->entries[i];
        items.push_back(Tuple2(a, e.key, e.value));
        Value k = by == "key" ? e.key : e.value;
        keys.push_back(case_sensitive ? k : LowerIfString(k, a));
      }
      StableSort(&items, &keys, reverse, a);
      return ListFrom(a, items);
    }
    case FilterId::kEscape:
    case FilterId::kForceescape:
      return Escape(v, a);
    case FilterId::kFirst: {
      std::vector<Value> items = Items(v, a);
      if (items.empty()) return MakeUndefined(a, "No first item, sequence was empty.");
      return items[0];
    }
    case FilterId::kLast: {
      if (v.kind == Kind::kList && v.list->generator)
        TypeFail("'generator' object is not reversible");
      std::vector<Value> items = Items(v, a);
      if (items.empty()) return MakeUndefined(a, "No last item, sequence was empty.");
      return items.back();
    }
    case FilterId::kFloat: {
      double def = 0;
      if (const Value* d = args.Get(0, "default")) {
        if (!d->is_number()) return *d;
        def = AsDouble(*d);
      }
      if (v.is_number()) return Value::Float(AsDouble(v), v.src);
      double x;
      if (v.kind == Kind::kString && ParsePyFloat(StrView(v, a), &x)) return Value::Float(x, v.src);
      return Value::Float(def);
    }
    case FilterId::kInt: {
      Value def = Value::Int(0);
      if (const Value* d = args.Get(0, "default")) def = *d;
      int64_t base = 10;
      if (const Value* b = args.Get(1, "base")) AsIndex(*b, &base);
      if (v.kind == Kind::kInt || v.kind == Kind::kBool)
        return Value::Int(v.kind == Kind::kBool ? v.b : v.i, v.src);
      // Jinja2's do_int: int(value), then int(float(value)), catching TypeError and ValueError
      // only (jinja2/filters.py @ 3.1): int(nan) is a ValueError, so the default; int(inf) is an
      // OverflowError, which the template sees (issue 35, item 17: 1e400|int was 0).
      auto truncate = [&](double d) -> Value {
        if (std::isnan(d)) return def;
        if (std::isinf(d)) Fail(ErrorKind::kType, "cannot convert float infinity to integer");
        const double t = std::trunc(d);
        if (t >= 9223372036854775808.0 || t < -9223372036854775808.0)
          Fail(ErrorKind::kUnsupported, "integer result exceeds 64 bits");
        return Value::Int(static_cast<int64_t>(t), v.src);
      };
      if (v.kind == Kind::kFloat) return truncate(v.d);
      if (v.kind == Kind::kString) {
        int64_t x;
        if (ParsePyInt(StrView(v, a), static_cast<int>(base), &x)) return Value::Int(x, v.src);
        double d;
        if (ParsePyFloat(StrView(v, a), &d)) return truncate(d);
      }
      return def;
    }
    case FilterId::kFormat: {
      if (!args.pos.empty() && !args.kw.empty())
        TypeFail("can't handle positional and keyword arguments at the same time");
      Value fmt = StrOf(v, a);
      if (!args.kw.empty()) {
        Dict* d = a->New<Dict>();
        for (const auto& [k, x] : args.kw) d->Set(a, Value::Str(k), x);
        return PyBinary(BinOp::kMod, fmt, Value::DictOf(d), a);
      }
      List* t = a->New<List>();
      t->is_tuple = true;
      for (const Value& x : args.pos) t->Push(a, x);
      return PyBinary(BinOp::kMod, fmt, Value::ListOf(t), a);
    }
    case FilterId::kGroupby: {
      const Value* attribute = args.Get(0, "attribute");
      if (!attribute) TypeFail("groupby() missing required argument 'attribute'");
      const Value* def = args.Get(1, "default");
      bool case_sensitive = BoolArg(args, 2, "case_sensitive", false);
      std::vector<Value> items = Items(v, a), keys, raw_keys;
      for (const Value& it : items) {
        Value k = AttrPath(it, *attribute, a, def && !def->is_none() ? def : nullptr);
        raw_keys.push_back(k);
        keys.push_back(case_sensitive ? k : LowerIfString(k, a));
      }
      std::vector<size_t> order(items.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t x, size_t y) { return PyLess(keys[x], keys[y], a); });
      std::vector<Value> groups;
      for (size_t i = 0; i < order.size();) {
        size_t j = i;
        std::vector<Value> members;
        while (j < order.size() && PyEquals(keys[order[j]], keys[order[i]], a))
          members.push_back(items[order[j++]]);
        Value grouper = case_sensitive ? keys[order[i]] : raw_keys[order[i]];
        groups.push_back(Tuple2(a, grouper, ListFrom(a, members)));
        i = j;
      }
      return ListFrom(a, groups);
    }
    case FilterId::kIndent:
      return Indent(v, args, a);
    case FilterId::kItems: {
      if (v.is_undefined()) return ListFrom(a, {}, true);
      if (v.kind != Kind::kDict) TypeFail("Can only get item pairs from a mapping.");
      std::vector<Value> items;
      for (size_t i = 0; i < v.dict->size; ++i)
        items.push_back(Tuple2(a, v.dict->entries[i].key, v.dict->entries[i].value));
      return ListFrom(a, items, true);
    }
    case FilterId::kJoin: {
      Value sep = Value::Str(std::string_view(""));
      if (const Value* d = args.Get(0, "d")) sep = StrOf(*d, a);
      const Value* attribute = args.Get(1, "attribute");
      std::vector<Piece> pieces;
      std::vector<Value> items = Items(v, a);
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) AppendPieces(sep, &pieces);
        Value x = attribute && !attribute->is_none() ? AttrPath(items[i], *attribute, a, nullptr)
                                                     : items[i];
        AppendPieces(StrOf(x, a), &pieces);
      }
      return MakeString(a, pieces.data(), pieces.size());
    }
    case FilterId::kList:
      return ListFrom(a, Items(v, a));
    case FilterId::kLower:
      return NewString(a, PyLower(StrView(StrOf(v, a), a)), DominantSegment(v));
    case FilterId::kUpper:
      return NewString(a, PyUpper(StrView(StrOf(v, a), a)), DominantSegment(v));
    case FilterId::kMap:
      return MapFilter(v, args, ev);
    case FilterId::kMax:
    case FilterId::kMin: {
      bool case_sensitive = BoolArg(args, 0, "case_sensitive", false);
      const Value* attribute = args.Get(1, "attribute");
      std::vector<Value> items = Items(v, a);
      if (items.empty()) return MakeUndefined(a, "No aggregated item, sequence was empty.");
      size_t best = 0;
      Value best_key = SortKey(items[0], attribute, case_sensitive, a);
      for (size_t i = 1; i < items.size(); ++i) {
        Value k = SortKey(items[i], attribute, case_sensitive, a);
        bool better = id == FilterId::kMax ? PyLess(best_key, k, a) : PyLess(k, best_key, a);
        if (better) {
          best = i;
          best_key = k;
        }
      }
      return items[best];
    }
    case FilterId::kReject:
      return SelectReject(v, args, ev, false, false);
    case FilterId::kRejectattr:
      return SelectReject(v, args, ev, false, true);
    case FilterId::kSelect:
      return SelectReject(v, args, ev, true, false);
    case FilterId::kSelectattr:
      return SelectReject(v, args, ev, true, true);
    case FilterId::kReplace: {
      if (args.pos.size() < 2) TypeFail("replace() missing required arguments");
      CallArgs r;
      r.pos = {StrOf(args.pos[0], a), StrOf(args.pos[1], a)};
      if (const Value* c = args.Get(2, "count"); c && !c->is_none()) r.pos.push_back(*c);
      return CallMethod(Method::kReplace, StrOf(v, a), r, a);
    }
    case FilterId::kReverse: {
      if (v.kind == Kind::kString)
        return SliceValue(v, Value::None(), Value::None(), Value::Int(-1), a);
      if (v.kind == Kind::kList && v.list->generator) {
        std::vector<Value> items = Items(v, a);
        std::reverse(items.begin(), items.end());
        return ListFrom(a, items);
      }
      std::vector<Value> items = Items(v, a);
      std::reverse(items.begin(), items.end());
      return ListFrom(a, items, true);
    }
    case FilterId::kRound:
      return RoundFilter(v, args, a);
    case FilterId::kSafe:
    case FilterId::kString:
      return StrOf(v, a);
    case FilterId::kSort: {
      bool reverse = BoolArg(args, 0, "reverse", false);
      bool case_sensitive = BoolArg(args, 1, "case_sensitive", false);
      const Value* attribute = args.Get(2, "attribute");
      std::vector<Value> items = Items(v, a), keys;
      for (const Value& it : items) keys.push_back(SortKey(it, attribute, case_sensitive, a));
      StableSort(&items, &keys, reverse, a);
      return ListFrom(a, items);
    }
    case FilterId::kStriptags:
      return Striptags(v, a);
    case FilterId::kSum: {
      const Value* attribute = args.Get(0, "attribute");
      Value total = Value::Int(0);
      if (const Value* s = args.Get(1, "start")) total = *s;
      for (const Value& it : Items(v, a)) {
        Value x = attribute && !attribute->is_none() ? AttrPath(it, *attribute, a, nullptr) : it;
        total = PyBinary(BinOp::kAdd, total, x, a);
      }
      return total;
    }
    case FilterId::kTitle:
      return Title(v, a);
    case FilterId::kTojson:
      return Tojson(v, args, a);
    case FilterId::kTrim: {
      CallArgs s;
      if (const Value* c = args.Get(0, "chars")) s.pos.push_back(*c);
      return CallMethod(Method::kStrip, StrOf(v, a), s, a);
    }
    case FilterId::kTruncate:
      return Truncate(v, args, a);
    case FilterId::kUnique: {
      bool case_sensitive = BoolArg(args, 0, "case_sensitive", false);
      const Value* attribute = args.Get(1, "attribute");
      std::vector<Value> out, seen;
      for (const Value& it : Items(v, a)) {
        Value k = SortKey(it, attribute, case_sensitive, a);
        bool dup = false;
        for (const Value& s : seen) dup = dup || PyEquals(s, k, a);
        if (!dup) {
          seen.push_back(k);
          out.push_back(it);
        }
      }
      return ListFrom(a, out, true);
    }
    case FilterId::kWordcount: {
      std::string_view s = StrView(StrOf(v, a), a);
      int64_t n = 0;
      bool in_word = false;
      for (size_t i = 0; i < s.size();) {
        uint32_t cp = NextCodePoint(s, &i);
        bool w = cp == '_' || IsPyAlnum(cp);
        if (w && !in_word) ++n;
        in_word = w;
      }
      return Value::Int(n);
    }
    case FilterId::kCount_:
      break;
  }
  Fail(ErrorKind::kUnsupported, "unknown filter");
}

}  // namespace ltl::ct
