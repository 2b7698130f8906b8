// Value: what a chat-template expression evaluates to, with Python's semantics where templates
// depend on them (None/True/False, int vs float, ordered dicts, tuples, Jinja2's Undefined).
//
// Everything a render allocates lives in its Arena and dies with it, so values are plain 24-byte
// structs that copy freely. Strings are never copied on the hot path: a string is one Piece (bytes
// plus the segment they came from) or a Rope of pieces, pointing into the request JSON, the
// template's own literals or the arena. Concatenation, macro output and block captures build
// ropes; only operations that must see contiguous text (split, find, comparisons of ropes) flatten
// one, and substrings of a rope keep each byte's segment. That is how the segment map knows which
// rendered byte came from which part of the request.
// Internal to src/jinja/ (tests/build/internal_headers.cmake).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ltl::ct {

// Bump allocator for one render; Reset() keeps the first block for the next render.
// It also keeps the render's byte budget (issue 35, item 9): every allocation, and every byte a
// render holds outside the arena (Charge: temporaries, the output), counts against `limit`; going
// over it throws a kLimit TemplateError naming the budget, before the memory is taken.
class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  void* Alloc(size_t bytes, size_t align = alignof(std::max_align_t));
  // Counts `bytes` against the budget without allocating (they are held elsewhere).
  void Charge(size_t bytes);
  // From now on at most `bytes` more may be used (until EndBudget or Reset; none by default).
  void StartBudget(size_t bytes) {
    budget_ = bytes;
    limit_ = used_ + std::min(bytes, SIZE_MAX - used_);
  }
  void EndBudget() { limit_ = SIZE_MAX; }
  template <typename T>
  T* New() {
    return new (Alloc(sizeof(T), alignof(T))) T();
  }
  template <typename T>
  T* NewArray(size_t n) {
    T* p = static_cast<T*>(Alloc(sizeof(T) * (n ? n : 1), alignof(T)));
    for (size_t i = 0; i < n; ++i) new (p + i) T();
    return p;
  }
  char* CopyString(std::string_view s);
  void Reset();
  size_t used() const { return used_; }

 private:
  struct Block {
    std::unique_ptr<char[]> data;
    size_t size = 0;
  };
  [[noreturn]] void OverBudget() const;
  std::vector<Block> blocks_;
  size_t block_ = 0, offset_ = 0, used_ = 0;
  size_t limit_ = SIZE_MAX, budget_ = 0;
};

// Segment ids: 0 is template framing (literal template text and anything computed without request
// data); others index the render's segment table (see segment_map.h).
using SegmentId = uint32_t;
constexpr SegmentId kFraming = 0;

struct Piece {
  const char* data = nullptr;
  uint32_t size = 0;
  SegmentId src = kFraming;
};

struct Rope {
  size_t size = 0;     // total bytes
  uint32_t count = 0;  // pieces
  const Piece* pieces = nullptr;
  mutable const char* flat = nullptr;  // cached contiguous copy (Flatten)
};

enum class Kind : uint8_t {
  kUndefined,
  kNone,
  kBool,
  kInt,
  kFloat,
  kString,
  kList,  // also tuples (List::is_tuple)
  kDict,
  kNamespace,
  kCallable,
  kLoop,
};

struct List;
struct Dict;
struct Callable;
struct LoopState;

// Why a value is undefined (for the error raised when it is used).
struct UndefinedInfo {
  const char* message = nullptr;  // "'x' is undefined", "'dict object' has no attribute 'y'"
  bool unsafe = false;            // an attribute the sandbox refuses: calling it is a SecurityError
};

struct Value {
  Kind kind = Kind::kUndefined;
  bool rope = false;  // kString: pieces in `r`, else one piece (s, size, src)
  SegmentId src = kFraming;
  union {
    bool b;
    int64_t i;
    double d;
    size_t size;  // kString byte length
  };
  union {
    const char* s;
    const Rope* r;
    List* list;
    Dict* dict;  // also kNamespace
    Callable* fn;
    LoopState* loop;
    const UndefinedInfo* undef;
  };

  Value() : i(0), s(nullptr) {}
  static Value Undefined(const UndefinedInfo* info = nullptr) {
    Value v;
    v.undef = info;
    return v;
  }
  // A value of `kind` from `src`, its payload still zero: every factory below starts from it.
  static Value Of(Kind kind, SegmentId src = kFraming) {
    Value v;
    v.kind = kind;
    v.src = src;
    return v;
  }
  static Value None() { return Of(Kind::kNone); }
  static Value Bool(bool x) {
    Value v = Of(Kind::kBool);
    v.b = x;
    return v;
  }
  static Value Int(int64_t x, SegmentId src = kFraming) {
    Value v = Of(Kind::kInt, src);
    v.i = x;
    return v;
  }
  static Value Float(double x, SegmentId src = kFraming) {
    Value v = Of(Kind::kFloat, src);
    v.d = x;
    return v;
  }
  // A string over bytes that outlive the render (request JSON, template literals, arena).
  static Value Str(std::string_view text, SegmentId src = kFraming) {
    Value v = Of(Kind::kString, src);
    v.s = text.data();
    v.size = text.size();
    return v;
  }
  static Value RopeStr(const Rope* r) {
    Value v = Of(Kind::kString);
    v.rope = true;
    v.r = r;
    v.size = r->size;
    return v;
  }
  static Value ListOf(List* l);
  static Value DictOf(Dict* d, Kind kind = Kind::kDict) {
    Value v = Of(kind);
    v.dict = d;
    return v;
  }
  static Value Fn(Callable* f) {
    Value v = Of(Kind::kCallable);
    v.fn = f;
    return v;
  }

  bool is_undefined() const { return kind == Kind::kUndefined; }
  bool is_none() const { return kind == Kind::kNone; }
  bool is_string() const { return kind == Kind::kString; }
  bool is_number() const {
    return kind == Kind::kInt || kind == Kind::kFloat || kind == Kind::kBool;
  }
  bool is_list() const { return kind == Kind::kList; }
  bool is_dict() const { return kind == Kind::kDict; }
};

struct List {
  Value* items = nullptr;
  size_t size = 0, cap = 0;
  bool is_tuple = false;
  // A Python generator / iterator (what map, select, reverse, ... return): no len(), no
  // indexing, always true, and empty once iterated.
  bool generator = false;
  bool consumed = false;
  void Push(Arena* arena, const Value& v);
};

inline Value Value::ListOf(List* l) {
  Value v;
  v.kind = Kind::kList;
  v.list = l;
  return v;
}

struct DictEntry {
  Value key, value;
};

// Insertion-ordered dict (Python 3.7+); Set() on an existing key keeps its position, as Python
// does.
struct Dict {
  DictEntry* entries = nullptr;
  size_t size = 0, cap = 0;
  const Value* Find(const Value& key) const;
  const Value* FindStr(std::string_view key) const;
  void Set(Arena* arena, const Value& key, const Value& value);
};

// --- String helpers -----------------------------------------------------------------------------

// Contiguous bytes of a string value (flattens a rope into the arena once and caches it).
std::string_view StrView(const Value& v, Arena* arena);
// Appends the pieces of string `v` (one or many) to `out`.
void AppendPieces(const Value& v, std::vector<Piece>* out);
// A string value from pieces (one piece stays flat; empty pieces are dropped).
Value MakeString(Arena* arena, const Piece* pieces, size_t n);
// Bytes [begin, end) of string `v`, keeping each byte's segment.
Value SubString(Arena* arena, const Value& v, size_t begin, size_t end);
// A string of new bytes (copied into the arena), all attributed to `src`.
Value NewString(Arena* arena, std::string_view text, SegmentId src = kFraming);
// The segment most of a string's bytes came from (for results computed from a whole string).
SegmentId DominantSegment(const Value& v);

// Equality of two strings' bytes (pieces compared without flattening).
bool StrEquals(const Value& a, std::string_view b);
bool StrEquals(const Value& a, const Value& b);

}  // namespace ltl::ct
