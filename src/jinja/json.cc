// json.dumps / json.loads with Python's exact output (see json.h).
#include "jinja/json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "jinja/errors.h"
#include "jinja/ops.h"
#include "jinja/py_json.h"
#include "jinja/py_unicode.h"

namespace ltl::ct {

namespace {

// Bytes plus the segment of each run, turned into pieces over one arena buffer at the end.
class RunWriter {
 public:
  void Append(std::string_view s, SegmentId src) {
    if (s.empty()) return;
    if (runs_.empty() || runs_.back().second != src) runs_.push_back({buf_.size(), src});
    buf_.append(s);
  }
  void Push(char c, SegmentId src) { Append(std::string_view(&c, 1), src); }
  std::string* buf() { return &buf_; }
  void Mark(SegmentId src) {
    if (runs_.empty() || runs_.back().second != src) runs_.push_back({buf_.size(), src});
  }
  Value Finish(Arena* arena) {
    char* data = arena->CopyString(buf_);
    std::vector<Piece> pieces;
    for (size_t i = 0; i < runs_.size(); ++i) {
      size_t b = runs_[i].first, e = i + 1 < runs_.size() ? runs_[i + 1].first : buf_.size();
      if (e > b) pieces.push_back(Piece{data + b, static_cast<uint32_t>(e - b), runs_[i].second});
    }
    return MakeString(arena, pieces.data(), pieces.size());
  }

 private:
  std::string buf_;
  std::vector<std::pair<size_t, SegmentId>> runs_;
};

void AppendJsonString(std::string_view s, bool ensure_ascii, std::string* out) {
  AppendPyJsonString(s, out, ensure_ascii);  // the one writer (jinja/py_json.h)
}

void AppendFloat(double d, std::string* out) {
  if (std::isnan(d)) {
    out->append("NaN");
  } else if (std::isinf(d)) {
    out->append(d > 0 ? "Infinity" : "-Infinity");
  } else {
    AppendPyFloat(d, out);
  }
}

class Dumper {
 public:
  Dumper(const JsonDumpOptions& o, Arena* arena) : o_(o), arena_(arena) {
    if (!o.has_separators && o.has_indent) item_sep_ = ",";
    if (o.has_separators) item_sep_ = o.item_separator;
    key_sep_ = o.has_separators ? o.key_separator : ": ";
  }

  void Dump(const Value& v, int level) {
    if (++depth_ > 500) Fail(ErrorKind::kLimit, "tojson: nesting too deep");
    std::string* out = w_.buf();
    switch (v.kind) {
      case Kind::kNone:
        w_.Append("null", v.src);
        break;
      case Kind::kBool:
        w_.Append(v.b ? "true" : "false", v.src);
        break;
      case Kind::kInt:
        w_.Append(std::to_string(v.i), v.src);
        break;
      case Kind::kFloat: {
        w_.Mark(v.src);
        AppendFloat(v.d, out);
        break;
      }
      case Kind::kString:
        DumpString(v);
        break;
      case Kind::kList: {
        const List* l = v.list;
        if (l->generator) TypeFail("Object of type generator is not JSON serializable");
        if (l->size == 0) {
          w_.Append("[]", v.src);
          break;
        }
        w_.Push('[', v.src);
        std::string nl = Newline(level + 1);
        w_.Append(nl, v.src);
        for (size_t i = 0; i < l->size; ++i) {
          if (i) {
            w_.Append(item_sep_, v.src);
            w_.Append(nl, v.src);
          }
          Dump(l->items[i], level + 1);
        }
        w_.Append(Newline(level), v.src);
        w_.Push(']', v.src);
        break;
      }
      case Kind::kDict: {
        const Dict* d = v.dict;
        if (d->size == 0) {
          w_.Append("{}", v.src);
          break;
        }
        std::vector<const DictEntry*> entries;
        for (size_t i = 0; i < d->size; ++i) entries.push_back(&d->entries[i]);
        if (o_.sort_keys) {
          std::stable_sort(entries.begin(), entries.end(),
                           [&](const DictEntry* a, const DictEntry* b) {
                             return PyLess(a->key, b->key, arena_);
                           });
        }
        w_.Push('{', v.src);
        std::string nl = Newline(level + 1);
        w_.Append(nl, v.src);
        bool first = true;
        for (const DictEntry* e : entries) {
          if (!first) {
            w_.Append(item_sep_, v.src);
            w_.Append(nl, v.src);
          }
          first = false;
          if (e->key.kind == Kind::kString && !e->key.rope && e->key.src == kFraming) {
            DumpKey(
                Value::Str(std::string_view(e->key.s, e->key.size), v.src));  // keys: the dict's
          } else {
            DumpKey(e->key);
          }
          w_.Append(key_sep_, v.src);
          Dump(e->value, level + 1);
        }
        w_.Append(Newline(level), v.src);
        w_.Push('}', v.src);
        break;
      }
      default:
        TypeFail(std::string("Object of type ") + TypeName(v) + " is not JSON serializable");
    }
    --depth_;
  }

  Value Finish() { return w_.Finish(arena_); }

 private:
  std::string Newline(int level) const {
    if (!o_.has_indent) return std::string();
    std::string s = "\n";
    for (int i = 0; i < level; ++i) s += o_.indent;
    return s;
  }

  void DumpString(const Value& v) {
    std::string_view s = StrView(v, arena_);
    if (!v.rope) {
      w_.Mark(v.src);
      AppendJsonString(s, o_.ensure_ascii, w_.buf());
      return;
    }
    // Keep each piece's segment: escape piece by piece (escapes never span code points).
    w_.Push('"', DominantSegment(v));
    for (uint32_t i = 0; i < v.r->count; ++i) {
      const Piece& p = v.r->pieces[i];
      std::string tmp;
      AppendJsonString(std::string_view(p.data, p.size), o_.ensure_ascii, &tmp);
      w_.Append(std::string_view(tmp).substr(1, tmp.size() - 2), p.src);
    }
    w_.Push('"', DominantSegment(v));
  }

  void DumpKey(const Value& k) {
    std::string* out = w_.buf();
    switch (k.kind) {
      case Kind::kString:
        DumpString(k);
        return;
      case Kind::kNone:
        w_.Append("\"null\"", k.src);
        return;
      case Kind::kBool:
        w_.Append(k.b ? "\"true\"" : "\"false\"", k.src);
        return;
      case Kind::kInt: {
        std::string q = "\"";
        q += std::to_string(k.i);
        q += '"';
        w_.Append(q, k.src);
        return;
      }
      case Kind::kFloat:
        w_.Mark(k.src);
        out->push_back('"');
        AppendFloat(k.d, out);
        out->push_back('"');
        return;
      default:
        TypeFail(std::string("keys must be str, int, float, bool or None, not ") + TypeName(k));
    }
  }

  const JsonDumpOptions& o_;
  Arena* arena_;
  RunWriter w_;
  std::string item_sep_ = ", ", key_sep_ = ": ";
  int depth_ = 0;
};

// --- json.loads ------------------------------------------------------------------------------

class Loader {
 public:
  Loader(std::string_view text, SegmentId src, Arena* arena) : s_(text), src_(src), arena_(arena) {}

  bool Run(Value* out) {
    SkipWs();
    if (!ParseValue(out, 0)) return false;
    SkipWs();
    return p_ == s_.size();
  }

 private:
  void SkipWs() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\n' || s_[p_] == '\r'))
      ++p_;
  }
  bool Lit(const char* w) {
    size_t n = std::strlen(w);
    if (s_.compare(p_, n, w) != 0) return false;
    p_ += n;
    return true;
  }

  bool ParseValue(Value* out, int depth) {
    if (depth > 500 || p_ >= s_.size()) return false;
    char c = s_[p_];
    if (c == '{') return ParseObject(out, depth);
    if (c == '[') return ParseArray(out, depth);
    if (c == '"') return ParseString(out);
    if (Lit("null")) {
      *out = Value::None();
      out->src = src_;
      return true;
    }
    if (Lit("true") || Lit("false")) {
      *out = Value::Bool(s_[p_ - 1] == 'e' && s_[p_ - 2] == 'u');
      out->src = src_;
      return true;
    }
    if (Lit("NaN")) {
      *out = Value::Float(std::nan(""), src_);
      return true;
    }
    if (Lit("Infinity")) {
      *out = Value::Float(HUGE_VAL, src_);
      return true;
    }
    if (Lit("-Infinity")) {
      *out = Value::Float(-HUGE_VAL, src_);
      return true;
    }
    return ParseNumber(out);
  }

  bool ParseNumber(Value* out) {
    size_t start = p_;
    if (p_ < s_.size() && s_[p_] == '-') ++p_;
    if (p_ >= s_.size()) return false;
    if (s_[p_] == '0') {
      ++p_;
    } else if (s_[p_] >= '1' && s_[p_] <= '9') {
      while (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_]))) ++p_;
    } else {
      return false;
    }
    bool is_float = false;
    if (p_ + 1 < s_.size() && s_[p_] == '.' &&
        std::isdigit(static_cast<unsigned char>(s_[p_ + 1]))) {
      is_float = true;
      ++p_;
      while (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_]))) ++p_;
    }
    if (p_ < s_.size() && (s_[p_] == 'e' || s_[p_] == 'E')) {
      size_t q = p_ + 1;
      if (q < s_.size() && (s_[q] == '+' || s_[q] == '-')) ++q;
      if (q < s_.size() && std::isdigit(static_cast<unsigned char>(s_[q]))) {
        is_float = true;
        p_ = q;
        while (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_]))) ++p_;
      }
    }
    std::string num(s_.substr(start, p_ - start));
    if (!is_float) {
      errno = 0;
      long long v = std::strtoll(num.c_str(), nullptr, 10);
      if (errno != ERANGE) {
        *out = Value::Int(v, src_);
        return true;
      }
      Fail(ErrorKind::kUnsupported, "integer in JSON exceeds 64 bits");
    }
    *out = Value::Float(std::strtod(num.c_str(), nullptr), src_);
    return true;
  }

  static int Hex4(std::string_view s, size_t p) {
    if (p + 4 > s.size()) return -1;
    int v = 0;
    for (size_t i = p; i < p + 4; ++i) {
      char c = s[i];
      int h = c >= '0' && c <= '9'                     ? c - '0'
              : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10
                                                       : -1;
      if (h < 0) return -1;
      v = v * 16 + h;
    }
    return v;
  }

  bool ParseString(Value* out) {
    ++p_;  // opening quote
    size_t start = p_;
    bool escaped = false;
    while (p_ < s_.size() && s_[p_] != '"') {
      unsigned char c = static_cast<unsigned char>(s_[p_]);
      if (c < 0x20) return false;  // strict: control characters are invalid
      if (c == '\\') {
        escaped = true;
        p_ += 2;
      } else {
        ++p_;
      }
    }
    if (p_ >= s_.size()) return false;
    std::string_view raw = s_.substr(start, p_ - start);
    ++p_;
    if (!escaped) {
      *out = Value::Str(raw, src_);
      return true;
    }
    std::string dec;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '\\') {
        dec.push_back(raw[i]);
        continue;
      }
      if (++i >= raw.size()) return false;
      switch (raw[i]) {
        case '"':
          dec.push_back('"');
          break;
        case '\\':
          dec.push_back('\\');
          break;
        case '/':
          dec.push_back('/');
          break;
        case 'b':
          dec.push_back('\b');
          break;
        case 'f':
          dec.push_back('\f');
          break;
        case 'n':
          dec.push_back('\n');
          break;
        case 'r':
          dec.push_back('\r');
          break;
        case 't':
          dec.push_back('\t');
          break;
        case 'u': {
          int cp = Hex4(raw, i + 1);
          if (cp < 0) return false;
          i += 4;
          if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < raw.size() + 0 && raw[i + 1] == '\\' &&
              raw[i + 2] == 'u') {
            int lo = Hex4(raw, i + 3);
            if (lo >= 0xDC00 && lo < 0xE000) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
              i += 6;
            }
          }
          if (cp >= 0xD800 && cp < 0xE000)
            cp = 0xFFFD;  // lone surrogate: not representable in UTF-8
          AppendUtf8(static_cast<uint32_t>(cp), &dec);
          break;
        }
        default:
          return false;
      }
    }
    *out = NewString(arena_, dec, src_);
    return true;
  }

  bool ParseArray(Value* out, int depth) {
    ++p_;
    List* l = arena_->New<List>();
    SkipWs();
    if (p_ < s_.size() && s_[p_] == ']') {
      ++p_;
    } else {
      while (true) {
        SkipWs();
        Value v;
        if (!ParseValue(&v, depth + 1)) return false;
        l->Push(arena_, v);
        SkipWs();
        if (p_ >= s_.size()) return false;
        if (s_[p_] == ',') {
          ++p_;
          continue;
        }
        if (s_[p_] == ']') {
          ++p_;
          break;
        }
        return false;
      }
    }
    *out = Value::ListOf(l);
    out->src = src_;
    return true;
  }

  bool ParseObject(Value* out, int depth) {
    ++p_;
    Dict* d = arena_->New<Dict>();
    SkipWs();
    if (p_ < s_.size() && s_[p_] == '}') {
      ++p_;
    } else {
      while (true) {
        SkipWs();
        if (p_ >= s_.size() || s_[p_] != '"') return false;
        Value k;
        if (!ParseString(&k)) return false;
        SkipWs();
        if (p_ >= s_.size() || s_[p_] != ':') return false;
        ++p_;
        SkipWs();
        Value v;
        if (!ParseValue(&v, depth + 1)) return false;
        d->Set(arena_, k, v);
        SkipWs();
        if (p_ >= s_.size()) return false;
        if (s_[p_] == ',') {
          ++p_;
          continue;
        }
        if (s_[p_] == '}') {
          ++p_;
          break;
        }
        return false;
      }
    }
    *out = Value::DictOf(d);
    out->src = src_;
    return true;
  }

  std::string_view s_;
  size_t p_ = 0;
  SegmentId src_;
  Arena* arena_;
};

}  // namespace

Value DumpJson(const Value& v, const JsonDumpOptions& options, Arena* arena) {
  Dumper d(options, arena);
  d.Dump(v, 0);
  return d.Finish();
}

bool LoadJson(std::string_view text, SegmentId src, Arena* arena, Value* out) {
  return Loader(text, src, arena).Run(out);
}

Value FromDom(simdjson::dom::element e, SegmentId src, Arena* arena) {
  using simdjson::dom::element_type;
  Value v;
  switch (e.type()) {
    case element_type::OBJECT: {
      Dict* d = arena->New<Dict>();
      simdjson::dom::object obj = e.get_object().value_unsafe();
      for (auto field : obj) {
        d->Set(arena, Value::Str(field.key, src), FromDom(field.value, src, arena));
      }
      v = Value::DictOf(d);
      break;
    }
    case element_type::ARRAY: {
      List* l = arena->New<List>();
      simdjson::dom::array arr = e.get_array().value_unsafe();
      for (auto item : arr) l->Push(arena, FromDom(item, src, arena));
      v = Value::ListOf(l);
      break;
    }
    case element_type::STRING:
      return Value::Str(e.get_string().value_unsafe(), src);
    case element_type::INT64:
      return Value::Int(e.get_int64().value_unsafe(), src);
    case element_type::UINT64:
      return Value::Float(static_cast<double>(e.get_uint64().value_unsafe()), src);
    case element_type::DOUBLE:
      return Value::Float(e.get_double().value_unsafe(), src);
    case element_type::BOOL:
      v = Value::Bool(e.get_bool().value_unsafe());
      break;
    case element_type::NULL_VALUE:
      v = Value::None();
      break;
    default:
      break;
  }
  v.src = src;
  return v;
}

}  // namespace ltl::ct
