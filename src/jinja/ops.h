// Python semantics of values as Jinja2 exposes them: truthiness, str()/repr(), ==, ordering,
// arithmetic (int stays int, / is true division, // and % floor), `in`, len(), iteration,
// and the immutable sandbox's attribute / item access (dict keys vs methods, unsafe methods).
// Internal to src/jinja/ (tests/build/internal_headers.cmake).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "jinja/ast.h"
#include "jinja/value.h"

namespace ltl::ct {

struct MacroDef;
class Evaluator;

// Callables a template can hold: macros, built-in globals, bound methods, loop.cycle.
enum class CallableKind : uint8_t {
  kMacro,
  kBuiltin,
  kMethod,
  kLoopCycle,
  kLoopChanged,
  kJoiner,
  kCycler
};

enum class BuiltinFn : uint8_t {
  kRange,
  kNamespace,
  kDict,
  kRaiseException,
  kStrftimeNow,
  kLipsum,
  kCycler,
  kJoiner,
};

enum class Method : uint8_t {
  kNone,
  // str
  kStartswith,
  kEndswith,
  kSplit,
  kRsplit,
  kStrip,
  kLstrip,
  kRstrip,
  kReplace,
  kUpper,
  kLower,
  kTitle,
  kCapitalize,
  kFind,
  kRfind,
  kIndex,
  kRindex,
  kCount,
  kFormat,
  kJoin,
  kIsdigit,
  kIsalpha,
  kIsalnum,
  kIsspace,
  kIslower,
  kIsupper,
  kIsnumeric,
  kIsdecimal,
  kRemoveprefix,
  kRemovesuffix,
  kSplitlines,
  kZfill,
  kCenter,
  kLjust,
  kRjust,
  kPartition,
  kRpartition,
  kSwapcase,
  kCasefold,
  kEncode,
  kIstitle,
  // dict
  kItems,
  kKeys,
  kValues,
  kGet,
  kCopy,
  // list: kIndex, kCount, kCopy shared
  // mutating (refused by the immutable sandbox)
  kUnsafe,
};

struct Callable {
  CallableKind kind = CallableKind::kBuiltin;
  BuiltinFn builtin = BuiltinFn::kRange;
  Method method = Method::kNone;
  const char* name = "";
  Value self;                       // bound method receiver / cycler items
  const MacroDef* macro = nullptr;  // kMacro
  LoopState* loop = nullptr;        // loop.cycle / loop.changed
  int state = 0;                    // joiner/cycler position
};

bool Truthy(const Value& v);
const char* TypeName(const Value& v);  // Python type name: 'str', 'int', 'NoneType', ...

// str(v) and repr(v) appended to `out`.
void AppendStr(const Value& v, Arena* arena, std::string* out);
void AppendRepr(const Value& v, Arena* arena, std::string* out);
// str(v) as a string value (strings are returned as they are, keeping their segments).
Value ToStringValue(const Value& v, Arena* arena);

bool PyEquals(const Value& a, const Value& b, Arena* arena);
// a < b etc.; TypeError when Python would raise.
bool PyLess(const Value& a, const Value& b, Arena* arena);
bool PyCompare(CmpOp op, const Value& a, const Value& b, Arena* arena);
bool PyContains(const Value& container, const Value& item, Arena* arena);  // `item in container`

Value PyBinary(BinOp op, const Value& a, const Value& b, Arena* arena);
Value PyNegate(const Value& v, bool negative);

// len(v); TypeError for objects without a length.
size_t PyLength(const Value& v, Arena* arena);
// Items of an iterable (list items, dict keys, string characters); TypeError when not iterable.
// Undefined iterates as empty.
void PyIterate(const Value& v, Arena* arena, std::vector<Value>* out);

// Sandboxed `obj.name` / `obj[key]` (Undefined results carry the message Jinja2 would raise).
Value GetAttr(const Value& obj, std::string_view name, Arena* arena);
Value GetItem(const Value& obj, const Value& key, Arena* arena);
Value SliceValue(const Value& obj, const Value& start, const Value& stop, const Value& step,
                 Arena* arena);

// Raises UndefinedError for `v` (its own message, or "'<name>' is undefined").
[[noreturn]] void FailUndefined(const Value& v);
Value MakeUndefined(Arena* arena, const std::string& message, bool unsafe = false);

// Number helpers.
bool AsIndex(const Value& v, int64_t* out);  // int or bool
double AsDouble(const Value& v);

}  // namespace ltl::ct
