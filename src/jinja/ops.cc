// Python value semantics for the chat-template engine (see ops.h).
#include "jinja/ops.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "jinja/errors.h"
#include "jinja/py_json.h"
#include "jinja/py_unicode.h"

namespace ltl::ct {

namespace {

int64_t IntOf(const Value& v) {
  return v.kind == Kind::kBool ? (v.b ? 1 : 0) : v.i;
}
// int(d) as Python's '%d' % d takes a float: NaN and infinities are Python's errors, a value past
// 64 bits (Python prints the whole integer) is refused. Before, the cast was undefined
// (chat_template fuzzer: '%d' % 1e4001).
long long TruncateForPercentD(double d) {
  if (std::isnan(d)) TypeFail("cannot convert float NaN to integer");
  if (std::isinf(d)) TypeFail("cannot convert float infinity to integer");
  const double t = std::trunc(d);
  if (t >= 9223372036854775808.0 || t < -9223372036854775808.0)
    Fail(ErrorKind::kUnsupported, "integer result exceeds 64 bits");
  return static_cast<long long>(t);
}
bool IsIntLike(const Value& v) {
  return v.kind == Kind::kInt || v.kind == Kind::kBool;
}

std::string ObjectTypeRepr(const Value& v) {
  if (v.kind == Kind::kNone) return "None";
  return std::string(TypeName(v)) + " object";
}

void AppendStrRepr(std::string_view s, std::string* out) {
  char quote = '\'';
  if (s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos) quote = '"';
  out->push_back(quote);
  for (size_t i = 0; i < s.size();) {
    size_t start = i;
    uint32_t cp = NextCodePoint(s, &i);
    if (cp == static_cast<uint32_t>(quote) || cp == '\\') {
      out->push_back('\\');
      out->push_back(static_cast<char>(cp));
    } else if (cp == '\t') {
      out->append("\\t");
    } else if (cp == '\n') {
      out->append("\\n");
    } else if (cp == '\r') {
      out->append("\\r");
    } else if (cp < 0x20 || cp == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", cp);
      out->append(buf);
    } else if (cp < 0x7F) {
      out->push_back(static_cast<char>(cp));
    } else if (IsPyPrintable(cp)) {
      out->append(s.substr(start, i - start));
    } else {
      char buf[16];
      if (cp <= 0xFF) {
        std::snprintf(buf, sizeof(buf), "\\x%02x", cp);
      } else if (cp <= 0xFFFF) {
        std::snprintf(buf, sizeof(buf), "\\u%04x", cp);
      } else {
        std::snprintf(buf, sizeof(buf), "\\U%08x", cp);
      }
      out->append(buf);
    }
  }
  out->push_back(quote);
}

// Containers being printed or compared on this thread, outermost first. Python's repr marks a
// container it meets again inside itself as "[...]" / "{...}" (Py_ReprEnter), and raises
// RecursionError past its recursion limit; a namespace can hold itself (`{% set ns.a = ns %}`)
// and lists can nest as deep as a loop builds them, so both are needed here (issue 35, item 2:
// printing a self-containing namespace recursed until the stack overflowed).
constexpr size_t kMaxValueDepth = 500;
thread_local std::vector<const void*> t_open_containers;

class ValueDepthGuard {
 public:
  explicit ValueDepthGuard(const void* container) {
    if (t_open_containers.size() >= kMaxValueDepth)
      Fail(ErrorKind::kLimit, "values nested too deeply to print or compare");
    t_open_containers.push_back(container);
  }
  ~ValueDepthGuard() { t_open_containers.pop_back(); }
  ValueDepthGuard(const ValueDepthGuard&) = delete;
  ValueDepthGuard& operator=(const ValueDepthGuard&) = delete;
  static bool IsOpen(const void* container) {
    return std::find(t_open_containers.begin(), t_open_containers.end(), container) !=
           t_open_containers.end();
  }
};

// A width or precision of a format: Python reads any number of digits (up to sys.maxsize: more
// is "Too many decimal digits in format string" / "width too big"); std::stoul threw
// std::out_of_range past 20 digits and aborted the process (issue 35, item 4). What is read is
// charged to the render's byte budget by the caller before it is used.
size_t FormatNumber(std::string_view digits, const char* too_big) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size() || v > uint64_t{INT64_MAX})
    TypeFail(too_big);
  return static_cast<size_t>(v);
}

[[noreturn]] void BinaryTypeError(const char* op, const Value& a, const Value& b) {
  TypeFail(std::string("unsupported operand type(s) for ") + op + ": '" + TypeName(a) + "' and '" +
           TypeName(b) + "'");
}

void CheckOverflow(bool overflow) {
  if (overflow) Fail(ErrorKind::kUnsupported, "integer result exceeds 64 bits");
}

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t ModInt(int64_t a, int64_t b) {
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

double ModFloat(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0) {
    if ((b < 0) != (m < 0)) m += b;
  } else {
    m = std::copysign(0.0, b);
  }
  return m;
}

// CPython's float_floor_div (via float_divmod).
double FloorDivFloat(double vx, double wx) {
  double mod = std::fmod(vx, wx);
  double div = (vx - mod) / wx;
  if (mod != 0) {
    if ((wx < 0) != (mod < 0)) div -= 1.0;
  }
  if (div != 0) {
    double f = std::floor(div);
    if (div - f > 0.5) f += 1.0;
    return f;
  }
  return std::copysign(0.0, vx / wx);
}

Value Repeat(Arena* arena, const Value& seq, int64_t n) {
  if (n < 0) n = 0;
  size_t unit = seq.kind == Kind::kString ? seq.size : seq.list->size * sizeof(Value);
  if (n > 0 && unit > 0 && static_cast<uint64_t>(n) > (uint64_t{256} << 20) / unit) {
    Fail(ErrorKind::kLimit, "sequence repetition larger than 256 MiB");
  }
  if (seq.kind == Kind::kString) {
    if (n == 0 || seq.size == 0) return Value::Str(std::string_view(""));
    if (!seq.rope) {
      // One piece: the bytes repeated, flat (16 bytes of piece per repetition made 'x' * 16M
      // take 1 GB; issue 35, item 9). Charged to the budget by Alloc before it is taken.
      char* p = static_cast<char*>(arena->Alloc(seq.size * static_cast<size_t>(n), 1));
      for (int64_t k = 0; k < n; ++k) std::memcpy(p + k * seq.size, seq.s, seq.size);
      return Value::Str(std::string_view(p, seq.size * static_cast<size_t>(n)), seq.src);
    }
    // A rope keeps each byte's segment: its pieces repeated, charged before they are built.
    arena->Charge(static_cast<size_t>(n) * seq.r->count * sizeof(Piece));
    std::vector<Piece> pieces;
    for (int64_t k = 0; k < n; ++k) AppendPieces(seq, &pieces);
    return MakeString(arena, pieces.data(), pieces.size());
  }
  arena->Charge(static_cast<size_t>(n) * seq.list->size * sizeof(Value));
  List* l = arena->New<List>();
  l->is_tuple = seq.list->is_tuple;
  for (int64_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < seq.list->size; ++i) l->Push(arena, seq.list->items[i]);
  }
  return Value::ListOf(l);
}

// Python's printf-style `str % args` for the conversions templates use.
Value PercentFormat(Arena* arena, const Value& fmt, const Value& args) {
  std::string_view f = StrView(fmt, arena);
  std::vector<Value> items;
  const Dict* mapping = nullptr;
  if (args.kind == Kind::kList && args.list->is_tuple) {
    items.assign(args.list->items, args.list->items + args.list->size);
  } else if (args.kind == Kind::kDict) {
    mapping = args.dict;
    items.push_back(args);
  } else {
    items.push_back(args);
  }
  size_t next = 0;
  std::string out;
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') {
      out.push_back(f[i]);
      continue;
    }
    if (++i >= f.size()) TypeFail("incomplete format");
    if (f[i] == '%') {
      out.push_back('%');
      continue;
    }
    Value arg;
    if (f[i] == '(' && mapping) {
      size_t close = f.find(')', i);
      if (close == std::string_view::npos) TypeFail("incomplete format key");
      const Value* v = mapping->FindStr(f.substr(i + 1, close - i - 1));
      if (!v) TypeFail("format key not found");
      arg = *v;
      i = close + 1;
    } else {
      if (next >= items.size()) TypeFail("not enough arguments for format string");
      arg = items[next++];
    }
    std::string flags;
    while (i < f.size() && std::string_view("-+ 0#").find(f[i]) != std::string_view::npos) {
      flags.push_back(f[i++]);
    }
    std::string width;
    while (i < f.size() && std::isdigit(static_cast<unsigned char>(f[i]))) width.push_back(f[i++]);
    std::string prec;
    if (i < f.size() && f[i] == '.') {
      ++i;
      while (i < f.size() && std::isdigit(static_cast<unsigned char>(f[i]))) prec.push_back(f[i++]);
      if (prec.empty()) prec = "0";
    }
    if (i >= f.size()) TypeFail("incomplete format");
    char conv = f[i];
    const size_t w = width.empty() ? 0 : FormatNumber(width, "width too big");
    const size_t pr = prec.empty() ? 0 : FormatNumber(prec, "precision too big");
    // A number is at most its width or precision plus the digits of a double (%f of 1e308: 309)
    // and a sign and prefix: that room is charged to the byte budget before snprintf writes it
    // (before: a 512-byte buffer cut '%0999999999d' to 511 characters after ~4 s of CPU).
    const size_t room = std::max(w, pr) + 400;
    std::vector<char> buf;
    auto numeric = [&]() -> char* {
      arena->Charge(room);
      buf.assign(room, '\0');
      return buf.data();
    };
    std::string spec = "%";
    spec.append(flags).append(width);
    if (!prec.empty()) spec.append(".").append(prec);
    switch (conv) {
      case 's': {
        std::string s;
        AppendStr(arg, arena, &s);
        if (!prec.empty()) s = s.substr(0, ByteOffsetOfCodePoint(s, pr));
        arena->Charge(std::max(w, s.size()));
        size_t n = CodePointCount(s);
        if (n < w) {
          if (flags.find('-') != std::string::npos) {
            s.append(w - n, ' ');
          } else {
            s.insert(0, w - n, ' ');
          }
        }
        out += s;
        break;
      }
      case 'r':
        AppendRepr(arg, arena, &out);
        break;
      case 'd':
      case 'i':
      case 'u': {
        if (!arg.is_number())
          TypeFail(std::string("%d format: a real number is required, not ") + TypeName(arg));
        long long v = arg.kind == Kind::kFloat ? TruncateForPercentD(arg.d) : IntOf(arg);
        char* b = numeric();
        std::snprintf(b, room, (spec + "lld").c_str(), v);
        out += b;
        break;
      }
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G': {
        if (!arg.is_number()) TypeFail(std::string("must be real number, not ") + TypeName(arg));
        char* b = numeric();
        std::snprintf(b, room, (spec + conv).c_str(), AsDouble(arg));
        out += b;
        break;
      }
      case 'x':
      case 'X':
      case 'o': {
        if (!IsIntLike(arg))
          TypeFail(std::string("%x format: an integer is required, not ") + TypeName(arg));
        char* b = numeric();
        std::snprintf(b, room, (spec + "ll" + conv).c_str(), static_cast<long long>(IntOf(arg)));
        out += b;
        break;
      }
      default:
        TypeFail(std::string("unsupported format character '") + conv + "'");
    }
  }
  if (!mapping && next < items.size())
    TypeFail("not all arguments converted during string formatting");
  return NewString(arena, out, DominantSegment(fmt));
}

}  // namespace

bool AsIndex(const Value& v, int64_t* out) {
  if (!IsIntLike(v)) return false;
  *out = IntOf(v);
  return true;
}

double AsDouble(const Value& v) {
  switch (v.kind) {
    case Kind::kBool:
      return v.b ? 1.0 : 0.0;
    case Kind::kInt:
      return static_cast<double>(v.i);
    case Kind::kFloat:
      return v.d;
    default:
      return 0;
  }
}

const char* TypeName(const Value& v) {
  switch (v.kind) {
    case Kind::kUndefined:
      return "Undefined";
    case Kind::kNone:
      return "NoneType";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kFloat:
      return "float";
    case Kind::kString:
      return "str";
    case Kind::kList:
      return v.list->generator ? "generator" : v.list->is_tuple ? "tuple" : "list";
    case Kind::kDict:
      return "dict";
    case Kind::kNamespace:
      return "Namespace";
    case Kind::kCallable:
      return v.fn->kind == CallableKind::kMacro ? "Macro" : "builtin_function_or_method";
    case Kind::kLoop:
      return "LoopContext";
  }
  return "object";
}

bool Truthy(const Value& v) {
  switch (v.kind) {
    case Kind::kUndefined:
    case Kind::kNone:
      return false;
    case Kind::kBool:
      return v.b;
    case Kind::kInt:
      return v.i != 0;
    case Kind::kFloat:
      return v.d != 0;
    case Kind::kString:
      return v.size != 0;
    case Kind::kList:
      return v.list->generator || v.list->size != 0;
    case Kind::kDict:
      return v.dict->size != 0;
    default:
      return true;
  }
}

Value MakeUndefined(Arena* arena, const std::string& message, bool unsafe) {
  UndefinedInfo* info = arena->New<UndefinedInfo>();
  info->message = arena->CopyString(message);
  info->unsafe = unsafe;
  return Value::Undefined(info);
}

void FailUndefined(const Value& v) {
  if (v.undef && v.undef->unsafe) Fail(ErrorKind::kSecurity, v.undef->message);
  Fail(ErrorKind::kUndefined,
       v.undef && v.undef->message ? v.undef->message : "value is undefined");
}

void AppendRepr(const Value& v, Arena* arena, std::string* out) {
  switch (v.kind) {
    case Kind::kString:
      // Printed containers are built in a temporary: each string counts against the budget as
      // it is added (a list of one large string repeated would otherwise grow without bound).
      arena->Charge(v.size + 2);
      AppendStrRepr(StrView(v, arena), out);
      return;
    case Kind::kUndefined:
      out->append("Undefined");
      return;
    case Kind::kList: {
      if (v.list->generator) {
        out->append("<generator object>");
        return;
      }
      bool tuple = v.list->is_tuple;
      if (ValueDepthGuard::IsOpen(v.list)) {
        out->append(tuple ? "(...)" : "[...]");
        return;
      }
      ValueDepthGuard guard(v.list);
      out->push_back(tuple ? '(' : '[');
      for (size_t i = 0; i < v.list->size; ++i) {
        if (i) out->append(", ");
        AppendRepr(v.list->items[i], arena, out);
      }
      if (tuple && v.list->size == 1) out->push_back(',');
      out->push_back(tuple ? ')' : ']');
      return;
    }
    case Kind::kDict:
    case Kind::kNamespace: {
      if (v.kind == Kind::kNamespace) out->append("<Namespace ");
      // jinja2.utils.Namespace.__repr__ is f"<Namespace {self.__attrs!r}>": the dict inside is
      // what Python's repr finds open again, so a namespace met inside itself prints
      // "<Namespace {...}>".
      if (ValueDepthGuard::IsOpen(v.dict)) {
        out->append(v.kind == Kind::kNamespace ? "{...}>" : "{...}");
        return;
      }
      ValueDepthGuard guard(v.dict);
      out->push_back('{');
      for (size_t i = 0; i < v.dict->size; ++i) {
        if (i) out->append(", ");
        AppendRepr(v.dict->entries[i].key, arena, out);
        out->append(": ");
        AppendRepr(v.dict->entries[i].value, arena, out);
      }
      out->push_back('}');
      if (v.kind == Kind::kNamespace) out->push_back('>');
      return;
    }
    default:
      AppendStr(v, arena, out);
  }
}

void AppendStr(const Value& v, Arena* arena, std::string* out) {
  switch (v.kind) {
    case Kind::kUndefined:
      return;
    case Kind::kNone:
      out->append("None");
      return;
    case Kind::kBool:
      out->append(v.b ? "True" : "False");
      return;
    case Kind::kInt:
      out->append(std::to_string(v.i));
      return;
    case Kind::kFloat:
      AppendPyFloat(v.d, out);
      return;
    case Kind::kString:
      arena->Charge(v.size);
      out->append(StrView(v, arena));
      return;
    case Kind::kList:
    case Kind::kDict:
    case Kind::kNamespace:
      AppendRepr(v, arena, out);
      return;
    case Kind::kCallable:
      if (v.fn->kind == CallableKind::kMacro) {
        out->append("<Macro '").append(v.fn->name).append("'>");
      } else {
        out->append("<built-in method ").append(v.fn->name).append(">");
      }
      return;
    case Kind::kLoop:
      out->append("<LoopContext>");
      return;
  }
}

Value ToStringValue(const Value& v, Arena* arena) {
  if (v.kind == Kind::kString) return v;
  std::string s;
  AppendStr(v, arena, &s);
  return NewString(arena, s, v.src);
}

bool PyEquals(const Value& a, const Value& b, Arena* arena) {
  if (a.is_number() && b.is_number()) {
    if (a.kind != Kind::kFloat && b.kind != Kind::kFloat) return IntOf(a) == IntOf(b);
    return AsDouble(a) == AsDouble(b);
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Kind::kUndefined:
    case Kind::kNone:
      return true;
    case Kind::kString:
      return StrEquals(a, b);
    case Kind::kList: {
      if (a.list->generator || b.list->generator) return a.list == b.list;
      if (a.list->is_tuple != b.list->is_tuple || a.list->size != b.list->size) return false;
      if (a.list == b.list) return true;  // Python compares items by identity first
      ValueDepthGuard guard(a.list);
      for (size_t i = 0; i < a.list->size; ++i) {
        if (!PyEquals(a.list->items[i], b.list->items[i], arena)) return false;
      }
      return true;
    }
    case Kind::kDict: {
      if (a.dict->size != b.dict->size) return false;
      if (a.dict == b.dict) return true;
      ValueDepthGuard guard(a.dict);
      for (size_t i = 0; i < a.dict->size; ++i) {
        const Value* other = b.dict->Find(a.dict->entries[i].key);
        if (!other || !PyEquals(a.dict->entries[i].value, *other, arena)) return false;
      }
      return true;
    }
    case Kind::kNamespace:
      return a.dict == b.dict;
    case Kind::kCallable:
      return a.fn == b.fn;
    case Kind::kLoop:
      return a.loop == b.loop;
    default:
      return false;
  }
}

bool PyLess(const Value& a, const Value& b, Arena* arena) {
  if (a.is_undefined()) FailUndefined(a);
  if (b.is_undefined()) FailUndefined(b);
  if (a.is_number() && b.is_number()) {
    if (a.kind != Kind::kFloat && b.kind != Kind::kFloat) return IntOf(a) < IntOf(b);
    return AsDouble(a) < AsDouble(b);
  }
  if (a.kind == Kind::kString && b.kind == Kind::kString) {
    return StrView(a, arena) < StrView(b, arena);  // byte order = code point order in UTF-8
  }
  if (a.kind == Kind::kList && b.kind == Kind::kList && a.list->is_tuple == b.list->is_tuple) {
    ValueDepthGuard guard(a.list);
    size_t n = std::min(a.list->size, b.list->size);
    for (size_t i = 0; i < n; ++i) {
      if (!PyEquals(a.list->items[i], b.list->items[i], arena)) {
        return PyLess(a.list->items[i], b.list->items[i], arena);
      }
    }
    return a.list->size < b.list->size;
  }
  TypeFail(std::string("'<' not supported between instances of '") + TypeName(a) + "' and '" +
           TypeName(b) + "'");
}

bool PyCompare(CmpOp op, const Value& a, const Value& b, Arena* arena) {
  switch (op) {
    case CmpOp::kEq:
      return PyEquals(a, b, arena);
    case CmpOp::kNe:
      return !PyEquals(a, b, arena);
    case CmpOp::kLt:
      return PyLess(a, b, arena);
    case CmpOp::kGt:
      return PyLess(b, a, arena);
    case CmpOp::kLe:
      return !PyLess(b, a, arena);
    case CmpOp::kGe:
      return !PyLess(a, b, arena);
    case CmpOp::kIn:
      return PyContains(b, a, arena);
    case CmpOp::kNotIn:
      return !PyContains(b, a, arena);
  }
  return false;
}

bool PyContains(const Value& container, const Value& item, Arena* arena) {
  switch (container.kind) {
    case Kind::kString: {
      if (item.kind != Kind::kString) {
        TypeFail(std::string("'in <string>' requires string as left operand, not ") +
                 TypeName(item));
      }
      return StrView(container, arena).find(StrView(item, arena)) != std::string_view::npos;
    }
    case Kind::kList:
      if (container.list->generator) {
        if (container.list->consumed) return false;
        container.list->consumed = true;
      }
      for (size_t i = 0; i < container.list->size; ++i) {
        if (PyEquals(container.list->items[i], item, arena)) return true;
      }
      return false;
    case Kind::kDict:
      if (item.kind == Kind::kList && !item.list->is_tuple) TypeFail("unhashable type: 'list'");
      if (item.kind == Kind::kDict) TypeFail("unhashable type: 'dict'");
      return container.dict->Find(item) != nullptr;
    case Kind::kUndefined:
      return false;
    default:
      TypeFail(std::string("argument of type '") + TypeName(container) + "' is not iterable");
  }
}

Value PyNegate(const Value& v, bool negative) {
  if (v.is_undefined()) FailUndefined(v);
  if (IsIntLike(v)) {
    int64_t x = IntOf(v);
    if (!negative) return Value::Int(x, v.src);
    if (x == INT64_MIN) Fail(ErrorKind::kUnsupported, "integer result exceeds 64 bits");
    return Value::Int(-x, v.src);
  }
  if (v.kind == Kind::kFloat) return Value::Float(negative ? -v.d : v.d, v.src);
  TypeFail(std::string("bad operand type for unary ") + (negative ? "-" : "+") + ": '" +
           TypeName(v) + "'");
}

Value PyBinary(BinOp op, const Value& a, const Value& b, Arena* arena) {
  if (a.is_undefined()) FailUndefined(a);
  if (b.is_undefined()) FailUndefined(b);
  static const char* kNames[] = {"+", "-", "*", "/", "//", "%", "** or pow()"};
  const char* name = kNames[static_cast<int>(op)];
  bool nums = a.is_number() && b.is_number();
  bool ints = IsIntLike(a) && IsIntLike(b);
  SegmentId src = a.src ? a.src : b.src;
  switch (op) {
    case BinOp::kAdd:
      if (ints) {
        int64_t r = 0;
        CheckOverflow(__builtin_add_overflow(IntOf(a), IntOf(b), &r));
        return Value::Int(r, src);
      }
      if (nums) return Value::Float(AsDouble(a) + AsDouble(b), src);
      if (a.kind == Kind::kString && b.kind == Kind::kString) {
        std::vector<Piece> pieces;
        AppendPieces(a, &pieces);
        AppendPieces(b, &pieces);
        return MakeString(arena, pieces.data(), pieces.size());
      }
      if (a.kind == Kind::kString) {
        TypeFail(std::string("can only concatenate str (not \"") + TypeName(b) + "\") to str");
      }
      if (a.kind == Kind::kList && b.kind == Kind::kList && a.list->is_tuple == b.list->is_tuple) {
        List* l = arena->New<List>();
        l->is_tuple = a.list->is_tuple;
        for (size_t i = 0; i < a.list->size; ++i) l->Push(arena, a.list->items[i]);
        for (size_t i = 0; i < b.list->size; ++i) l->Push(arena, b.list->items[i]);
        return Value::ListOf(l);
      }
      if (a.kind == Kind::kList) {
        TypeFail(std::string("can only concatenate ") + TypeName(a) + " (not \"" + TypeName(b) +
                 "\") to " + TypeName(a));
      }
      BinaryTypeError(name, a, b);
    case BinOp::kSub:
      if (ints) {
        int64_t r = 0;
        CheckOverflow(__builtin_sub_overflow(IntOf(a), IntOf(b), &r));
        return Value::Int(r, src);
      }
      if (nums) return Value::Float(AsDouble(a) - AsDouble(b), src);
      BinaryTypeError(name, a, b);
    case BinOp::kMul:
      if (ints) {
        int64_t r = 0;
        CheckOverflow(__builtin_mul_overflow(IntOf(a), IntOf(b), &r));
        return Value::Int(r, src);
      }
      if (nums) return Value::Float(AsDouble(a) * AsDouble(b), src);
      if ((a.kind == Kind::kString || a.kind == Kind::kList) && IsIntLike(b))
        return Repeat(arena, a, IntOf(b));
      if ((b.kind == Kind::kString || b.kind == Kind::kList) && IsIntLike(a))
        return Repeat(arena, b, IntOf(a));
      if (a.kind == Kind::kString || b.kind == Kind::kString) {
        TypeFail(std::string("can't multiply sequence by non-int of type '") +
                 TypeName(a.kind == Kind::kString ? b : a) + "'");
      }
      BinaryTypeError(name, a, b);
    case BinOp::kDiv:
      if (nums) {
        double y = AsDouble(b);
        if (y == 0) TypeFail("division by zero");
        return Value::Float(AsDouble(a) / y, src);
      }
      BinaryTypeError(name, a, b);
    case BinOp::kFloorDiv:
      if (ints) {
        if (IntOf(b) == 0) TypeFail("integer division or modulo by zero");
        if (IntOf(a) == INT64_MIN && IntOf(b) == -1)
          Fail(ErrorKind::kUnsupported, "integer result exceeds 64 bits");
        return Value::Int(FloorDivInt(IntOf(a), IntOf(b)), src);
      }
      if (nums) {
        double y = AsDouble(b);
        if (y == 0) TypeFail("float floor division by zero");
        return Value::Float(FloorDivFloat(AsDouble(a), y), src);
      }
      BinaryTypeError(name, a, b);
    case BinOp::kMod:
      if (a.kind == Kind::kString) return PercentFormat(arena, a, b);
      if (ints) {
        if (IntOf(b) == 0) TypeFail("integer division or modulo by zero");
        if (IntOf(b) == -1) return Value::Int(0, src);
        return Value::Int(ModInt(IntOf(a), IntOf(b)), src);
      }
      if (nums) {
        double y = AsDouble(b);
        if (y == 0) TypeFail("float modulo");
        return Value::Float(ModFloat(AsDouble(a), y), src);
      }
      BinaryTypeError(name, a, b);
    case BinOp::kPow:
      if (ints && IntOf(b) >= 0) {
        int64_t base = IntOf(a), e = IntOf(b), r = 1;
        while (e > 0) {
          if (e & 1) CheckOverflow(__builtin_mul_overflow(r, base, &r));
          e >>= 1;
          if (e) CheckOverflow(__builtin_mul_overflow(base, base, &base));
        }
        return Value::Int(r, src);
      }
      if (nums) {
        double x = AsDouble(a), y = AsDouble(b);
        if (x == 0 && y < 0) TypeFail("0.0 cannot be raised to a negative power");
        return Value::Float(std::pow(x, y), src);
      }
      BinaryTypeError(name, a, b);
  }
  BinaryTypeError(name, a, b);
}

size_t PyLength(const Value& v, Arena* arena) {
  switch (v.kind) {
    case Kind::kUndefined:
      return 0;
    case Kind::kString: {
      std::string_view s = StrView(v, arena);
      return IsAscii(s) ? s.size() : CodePointCount(s);
    }
    case Kind::kList:
      if (v.list->generator) TypeFail("object of type 'generator' has no len()");
      return v.list->size;
    case Kind::kDict:
      return v.dict->size;
    default:
      TypeFail(std::string("object of type '") + TypeName(v) + "' has no len()");
  }
}

void PyIterate(const Value& v, Arena* arena, std::vector<Value>* out) {
  switch (v.kind) {
    case Kind::kUndefined:
      return;
    case Kind::kList:
      if (v.list->generator) {
        if (v.list->consumed) return;
        v.list->consumed = true;
      }
      out->insert(out->end(), v.list->items, v.list->items + v.list->size);
      return;
    case Kind::kDict:
      for (size_t i = 0; i < v.dict->size; ++i) out->push_back(v.dict->entries[i].key);
      return;
    case Kind::kString: {
      std::string_view s = StrView(v, arena);
      for (size_t i = 0; i < s.size();) {
        size_t start = i;
        NextCodePoint(s, &i);
        out->push_back(SubString(arena, v, start, i));
      }
      return;
    }
    default:
      TypeFail(std::string("'") + TypeName(v) + "' object is not iterable");
  }
}

namespace {

struct MethodName {
  std::string_view name;  // not a const char*: comparing that took a strlen per entry per lookup
  Method method;
};

const MethodName kStrMethods[] = {
    {"startswith", Method::kStartswith},
    {"endswith", Method::kEndswith},
    {"split", Method::kSplit},
    {"rsplit", Method::kRsplit},
    {"strip", Method::kStrip},
    {"lstrip", Method::kLstrip},
    {"rstrip", Method::kRstrip},
    {"replace", Method::kReplace},
    {"upper", Method::kUpper},
    {"lower", Method::kLower},
    {"title", Method::kTitle},
    {"capitalize", Method::kCapitalize},
    {"find", Method::kFind},
    {"rfind", Method::kRfind},
    {"index", Method::kIndex},
    {"rindex", Method::kRindex},
    {"count", Method::kCount},
    {"format", Method::kFormat},
    {"join", Method::kJoin},
    {"isdigit", Method::kIsdigit},
    {"isalpha", Method::kIsalpha},
    {"isalnum", Method::kIsalnum},
    {"isspace", Method::kIsspace},
    {"islower", Method::kIslower},
    {"isupper", Method::kIsupper},
    {"isnumeric", Method::kIsnumeric},
    {"isdecimal", Method::kIsdecimal},
    {"removeprefix", Method::kRemoveprefix},
    {"removesuffix", Method::kRemovesuffix},
    {"splitlines", Method::kSplitlines},
    {"zfill", Method::kZfill},
    {"center", Method::kCenter},
    {"ljust", Method::kLjust},
    {"rjust", Method::kRjust},
    {"partition", Method::kPartition},
    {"rpartition", Method::kRpartition},
    {"swapcase", Method::kSwapcase},
    {"casefold", Method::kCasefold},
    {"encode", Method::kEncode},
    {"istitle", Method::kIstitle},
};
const MethodName kDictMethods[] = {
    {"items", Method::kItems},    {"keys", Method::kKeys},         {"values", Method::kValues},
    {"get", Method::kGet},        {"copy", Method::kCopy},         {"pop", Method::kUnsafe},
    {"popitem", Method::kUnsafe}, {"setdefault", Method::kUnsafe}, {"update", Method::kUnsafe},
    {"clear", Method::kUnsafe},   {"fromkeys", Method::kUnsafe},
};
const MethodName kListMethods[] = {
    {"index", Method::kIndex},   {"count", Method::kCount},   {"copy", Method::kCopy},
    {"append", Method::kUnsafe}, {"extend", Method::kUnsafe}, {"insert", Method::kUnsafe},
    {"pop", Method::kUnsafe},    {"remove", Method::kUnsafe}, {"reverse", Method::kUnsafe},
    {"sort", Method::kUnsafe},   {"clear", Method::kUnsafe},
};

template <size_t N>
Method FindMethod(const MethodName (&table)[N], std::string_view name) {
  for (const MethodName& m : table) {
    if (name == m.name) return m.method;
  }
  return Method::kNone;
}

Value BoundMethod(Arena* arena, const Value& self, Method m, std::string_view name) {
  if (m == Method::kUnsafe) {
    return MakeUndefined(arena,
                         "access to attribute '" + std::string(name) + "' of '" + TypeName(self) +
                             "' object is unsafe.",
                         true);
  }
  Callable* c = arena->New<Callable>();
  c->kind = CallableKind::kMethod;
  c->method = m;
  c->self = self;
  c->name = arena->CopyString(name);
  return Value::Fn(c);
}

Value NoAttribute(Arena* arena, const Value& obj, std::string_view name) {
  std::string msg = "'";
  msg += ObjectTypeRepr(obj);
  msg += "' has no attribute '";
  msg += name;
  msg += "'";
  return MakeUndefined(arena, msg);
}

// getattr(obj, name) as Python sees it: methods (and namespace attributes), or nothing.
bool PythonAttr(const Value& obj, std::string_view name, Arena* arena, Value* out) {
  if (name.empty() || name[0] == '_') return false;  // the sandbox hides private attributes
  Method m = Method::kNone;
  switch (obj.kind) {
    case Kind::kString:
      m = FindMethod(kStrMethods, name);
      break;
    case Kind::kDict:
      m = FindMethod(kDictMethods, name);
      break;
    case Kind::kList:
      m = FindMethod(kListMethods, name);
      if (obj.list->is_tuple && m != Method::kIndex && m != Method::kCount) m = Method::kNone;
      break;
    case Kind::kNamespace: {
      const Value* v = obj.dict->FindStr(name);
      if (!v) return false;
      *out = *v;
      return true;
    }
    default:
      return false;
  }
  if (m == Method::kNone) return false;
  *out = BoundMethod(arena, obj, m, name);
  return true;
}

}  // namespace

Value GetAttr(const Value& obj, std::string_view name, Arena* arena) {
  if (obj.is_undefined()) FailUndefined(obj);
  Value attr;
  if (PythonAttr(obj, name, arena, &attr)) return attr;
  if (obj.kind == Kind::kDict) {
    const Value* v = obj.dict->FindStr(name);
    if (v) return *v;
  }
  return NoAttribute(arena, obj, name);
}

Value SliceValue(const Value& obj, const Value& start, const Value& stop, const Value& step,
                 Arena* arena) {
  auto index_of = [](const Value& v, bool* given, int64_t* out) {
    *given = !(v.is_none() || v.is_undefined());
    if (*given && !AsIndex(v, out)) {
      TypeFail("slice indices must be integers or None or have an __index__ method");
    }
  };
  bool has_start, has_stop, has_step;
  int64_t a = 0, b = 0, st = 1;
  index_of(start, &has_start, &a);
  index_of(stop, &has_stop, &b);
  index_of(step, &has_step, &st);
  if (!has_step) st = 1;
  if (st == 0) TypeFail("slice step cannot be zero");
  bool is_str = obj.kind == Kind::kString;
  std::string_view s;
  bool ascii = true;
  int64_t len;
  if (is_str) {
    s = StrView(obj, arena);
    ascii = IsAscii(s);
    len = static_cast<int64_t>(ascii ? s.size() : CodePointCount(s));
  } else if (obj.kind == Kind::kList && !obj.list->generator) {
    len = static_cast<int64_t>(obj.list->size);
  } else {
    TypeFail(std::string("'") + TypeName(obj) + "' object is not subscriptable");
  }
  // slice.indices(len)
  auto adjust = [&](bool given, int64_t v, int64_t def) {
    if (!given) return def;
    if (v < 0) {
      v += len;
      if (v < 0) v = st < 0 ? -1 : 0;
    } else if (v >= len) {
      v = st < 0 ? len - 1 : len;
    }
    return v;
  };
  int64_t lo = adjust(has_start, a, st < 0 ? len - 1 : 0);
  int64_t hi = adjust(has_stop, b, st < 0 ? -1 : len);
  if (is_str && st == 1) {
    if (hi <= lo) return Value::Str(std::string_view(""));
    size_t bl = ascii ? static_cast<size_t>(lo) : ByteOffsetOfCodePoint(s, static_cast<size_t>(lo));
    size_t bh = ascii ? static_cast<size_t>(hi) : ByteOffsetOfCodePoint(s, static_cast<size_t>(hi));
    return SubString(arena, obj, bl, bh);
  }
  std::vector<int64_t> idx;
  if (st > 0) {
    for (int64_t k = lo; k < hi; k += st) idx.push_back(k);
  } else {
    for (int64_t k = lo; k > hi; k += st) idx.push_back(k);
  }
  if (is_str) {
    std::vector<size_t> offsets;  // code point starts
    for (size_t i = 0; i < s.size();) {
      offsets.push_back(i);
      NextCodePoint(s, &i);
    }
    offsets.push_back(s.size());
    std::vector<Piece> pieces;
    for (int64_t k : idx) {
      Value ch = SubString(arena, obj, offsets[static_cast<size_t>(k)],
                           offsets[static_cast<size_t>(k) + 1]);
      AppendPieces(ch, &pieces);
    }
    return MakeString(arena, pieces.data(), pieces.size());
  }
  List* l = arena->New<List>();
  l->is_tuple = obj.list->is_tuple;
  for (int64_t k : idx) l->Push(arena, obj.list->items[k]);
  return Value::ListOf(l);
}

Value GetItem(const Value& obj, const Value& key, Arena* arena) {
  if (obj.is_undefined()) FailUndefined(obj);
  int64_t index;
  switch (obj.kind) {
    case Kind::kDict: {
      if (key.kind == Kind::kList && !key.list->is_tuple) TypeFail("unhashable type: 'list'");
      const Value* v = obj.dict->Find(key);
      if (v) return *v;
      break;
    }
    case Kind::kList:
      if (obj.list->generator) TypeFail("'generator' object is not subscriptable");
      if (AsIndex(key, &index)) {
        int64_t n = static_cast<int64_t>(obj.list->size);
        int64_t k = index < 0 ? index + n : index;
        if (k >= 0 && k < n) return obj.list->items[k];
        return MakeUndefined(
            arena, std::string(TypeName(obj)) + " object has no element " + std::to_string(index));
      }
      break;
    case Kind::kString:
      if (AsIndex(key, &index)) {
        std::string_view s = StrView(obj, arena);
        bool ascii = IsAscii(s);
        int64_t n = static_cast<int64_t>(ascii ? s.size() : CodePointCount(s));
        int64_t k = index < 0 ? index + n : index;
        if (k >= 0 && k < n) {
          size_t b =
              ascii ? static_cast<size_t>(k) : ByteOffsetOfCodePoint(s, static_cast<size_t>(k));
          size_t e = b;
          NextCodePoint(s, &e);
          return SubString(arena, obj, b, e);
        }
        return MakeUndefined(arena, "str object has no element " + std::to_string(index));
      }
      break;
    default:
      break;
  }
  if (key.kind == Kind::kString) {
    Value attr;
    if (PythonAttr(obj, StrView(key, arena), arena, &attr)) return attr;
    return NoAttribute(arena, obj, StrView(key, arena));
  }
  std::string k;
  AppendRepr(key, arena, &k);
  return MakeUndefined(arena, ObjectTypeRepr(obj) + " has no element " + k);
}

}  // namespace ltl::ct
