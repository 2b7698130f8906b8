// Arena, lists, dicts and rope strings (see value.h).
#include "jinja/value.h"

#include <algorithm>
#include <string>

#include "jinja/errors.h"

namespace ltl::ct {

// --- Arena ---------------------------------------------------------------------------------------

void Arena::OverBudget() const {
  Fail(ErrorKind::kLimit,
       "template allocated more than its byte budget of " + std::to_string(budget_ >> 20) + " MiB");
}

void Arena::Charge(size_t bytes) {
  if (bytes > limit_ - std::min(used_, limit_)) OverBudget();
  used_ += bytes;
}

void* Arena::Alloc(size_t bytes, size_t align) {
  Charge(bytes);
  while (true) {
    if (block_ < blocks_.size()) {
      Block& b = blocks_[block_];
      size_t start = (offset_ + align - 1) & ~(align - 1);
      if (start + bytes <= b.size) {
        offset_ = start + bytes;
        return b.data.get() + start;
      }
      ++block_;
      offset_ = 0;
      continue;
    }
    size_t size =
        std::max<size_t>(bytes + align, blocks_.empty() ? 64 << 10 : blocks_.back().size * 2);
    size = std::min<size_t>(size, std::max<size_t>(bytes + align, 64 << 20));
    Block b;
    b.data.reset(new char[size]);
    b.size = size;
    blocks_.push_back(std::move(b));
    block_ = blocks_.size() - 1;
    offset_ = 0;
  }
}

char* Arena::CopyString(std::string_view s) {
  char* p = static_cast<char*>(Alloc(s.size() + 1, 1));
  if (!s.empty()) std::memcpy(p, s.data(), s.size());
  p[s.size()] = '\0';
  return p;
}

void Arena::Reset() {
  // Keep the largest block only, so one huge request does not pin memory for all later ones.
  if (blocks_.size() > 1) {
    auto largest = std::max_element(blocks_.begin(), blocks_.end(),
                                    [](const Block& a, const Block& b) { return a.size < b.size; });
    Block keep = std::move(*largest);
    blocks_.clear();
    blocks_.push_back(std::move(keep));
  }
  block_ = 0;
  offset_ = 0;
  used_ = 0;
  limit_ = SIZE_MAX;
}

// --- List / Dict
// -----------------------------------------------------------------------------------

void List::Push(Arena* arena, const Value& v) {
  if (size == cap) {
    size_t ncap = cap ? cap * 2 : 4;
    Value* n = static_cast<Value*>(arena->Alloc(sizeof(Value) * ncap, alignof(Value)));
    if (size) std::memcpy(static_cast<void*>(n), items, sizeof(Value) * size);
    items = n;
    cap = ncap;
  }
  items[size++] = v;
}

namespace {

double NumberOf(const Value& v) {
  switch (v.kind) {
    case Kind::kBool:
      return v.b ? 1 : 0;
    case Kind::kInt:
      return static_cast<double>(v.i);
    default:
      return v.d;
  }
}

bool KeyEquals(const Value& a, const Value& b) {
  if (a.kind == Kind::kString || b.kind == Kind::kString) {
    return a.kind == b.kind && StrEquals(a, b);
  }
  if (a.is_number() && b.is_number()) {
    if (a.kind != Kind::kFloat && b.kind != Kind::kFloat) {
      int64_t x = a.kind == Kind::kBool ? a.b : a.i, y = b.kind == Kind::kBool ? b.b : b.i;
      return x == y;
    }
    return NumberOf(a) == NumberOf(b);
  }
  return a.kind == Kind::kNone && b.kind == Kind::kNone;
}

}  // namespace

const Value* Dict::Find(const Value& key) const {
  for (size_t i = 0; i < size; ++i) {
    if (KeyEquals(entries[i].key, key)) return &entries[i].value;
  }
  return nullptr;
}

const Value* Dict::FindStr(std::string_view key) const {
  for (size_t i = 0; i < size; ++i) {
    const Value& k = entries[i].key;
    if (k.kind == Kind::kString && StrEquals(k, key)) return &entries[i].value;
  }
  return nullptr;
}

void Dict::Set(Arena* arena, const Value& key, const Value& value) {
  for (size_t i = 0; i < size; ++i) {
    if (KeyEquals(entries[i].key, key)) {
      entries[i].value = value;
      return;
    }
  }
  if (size == cap) {
    size_t ncap = cap ? cap * 2 : 8;
    DictEntry* n =
        static_cast<DictEntry*>(arena->Alloc(sizeof(DictEntry) * ncap, alignof(DictEntry)));
    if (size) std::memcpy(static_cast<void*>(n), entries, sizeof(DictEntry) * size);
    entries = n;
    cap = ncap;
  }
  entries[size].key = key;
  entries[size].value = value;
  ++size;
}

// --- Strings
// ---------------------------------------------------------------------------------------

std::string_view StrView(const Value& v, Arena* arena) {
  if (!v.rope) return std::string_view(v.s, v.size);
  const Rope* r = v.r;
  if (r->count == 1) return std::string_view(r->pieces[0].data, r->pieces[0].size);
  if (!r->flat) {
    char* p = static_cast<char*>(arena->Alloc(r->size + 1, 1));
    size_t at = 0;
    for (uint32_t i = 0; i < r->count; ++i) {
      std::memcpy(p + at, r->pieces[i].data, r->pieces[i].size);
      at += r->pieces[i].size;
    }
    p[at] = '\0';
    r->flat = p;
  }
  return std::string_view(r->flat, r->size);
}

void AppendPieces(const Value& v, std::vector<Piece>* out) {
  if (!v.rope) {
    if (v.size) out->push_back(Piece{v.s, static_cast<uint32_t>(v.size), v.src});
    return;
  }
  out->insert(out->end(), v.r->pieces, v.r->pieces + v.r->count);
}

Value MakeString(Arena* arena, const Piece* pieces, size_t n) {
  size_t kept = 0, total = 0;
  for (size_t i = 0; i < n; ++i) {
    if (pieces[i].size) {
      ++kept;
      total += pieces[i].size;
    }
  }
  if (kept == 0) return Value::Str(std::string_view(""));
  if (kept == 1) {
    for (size_t i = 0; i < n; ++i) {
      if (pieces[i].size)
        return Value::Str(std::string_view(pieces[i].data, pieces[i].size), pieces[i].src);
    }
  }
  Piece* copy = static_cast<Piece*>(arena->Alloc(sizeof(Piece) * kept, alignof(Piece)));
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!pieces[i].size) continue;
    // Merge neighbours that are contiguous in memory and from the same segment.
    if (k && copy[k - 1].src == pieces[i].src &&
        copy[k - 1].data + copy[k - 1].size == pieces[i].data) {
      copy[k - 1].size += pieces[i].size;
      continue;
    }
    copy[k++] = pieces[i];
  }
  if (k == 1) return Value::Str(std::string_view(copy[0].data, copy[0].size), copy[0].src);
  Rope* r = arena->New<Rope>();
  r->size = total;
  r->count = static_cast<uint32_t>(k);
  r->pieces = copy;
  return Value::RopeStr(r);
}

Value SubString(Arena* arena, const Value& v, size_t begin, size_t end) {
  if (end > v.size) end = v.size;
  if (begin >= end) return Value::Str(std::string_view(""));
  if (!v.rope) return Value::Str(std::string_view(v.s + begin, end - begin), v.src);
  std::vector<Piece> parts;
  size_t at = 0;
  for (uint32_t i = 0; i < v.r->count && at < end; ++i) {
    const Piece& p = v.r->pieces[i];
    size_t pb = at, pe = at + p.size;
    at = pe;
    if (pe <= begin) continue;
    size_t from = std::max(begin, pb), to = std::min(end, pe);
    parts.push_back(Piece{p.data + (from - pb), static_cast<uint32_t>(to - from), p.src});
  }
  return MakeString(arena, parts.data(), parts.size());
}

Value NewString(Arena* arena, std::string_view text, SegmentId src) {
  if (text.empty()) return Value::Str(std::string_view(""), src);
  return Value::Str(std::string_view(arena->CopyString(text), text.size()), src);
}

SegmentId DominantSegment(const Value& v) {
  if (!v.rope) return v.src;
  // The segment holding the most bytes; framing only when nothing else contributes.
  SegmentId best = kFraming;
  size_t best_bytes = 0;
  for (uint32_t i = 0; i < v.r->count; ++i) {
    const Piece& p = v.r->pieces[i];
    if (p.src == kFraming) continue;
    size_t bytes = 0;
    for (uint32_t j = 0; j < v.r->count; ++j) {
      if (v.r->pieces[j].src == p.src) bytes += v.r->pieces[j].size;
    }
    if (bytes > best_bytes) {
      best = p.src;
      best_bytes = bytes;
    }
  }
  return best;
}

bool StrEquals(const Value& a, std::string_view b) {
  if (a.size != b.size()) return false;
  if (!a.rope) return a.size == 0 || std::memcmp(a.s, b.data(), a.size) == 0;
  size_t at = 0;
  for (uint32_t i = 0; i < a.r->count; ++i) {
    const Piece& p = a.r->pieces[i];
    if (std::memcmp(p.data, b.data() + at, p.size) != 0) return false;
    at += p.size;
  }
  return true;
}

bool StrEquals(const Value& a, const Value& b) {
  if (a.size != b.size) return false;
  if (!b.rope) return StrEquals(a, std::string_view(b.s, b.size));
  if (!a.rope) return StrEquals(b, std::string_view(a.s, a.size));
  // Both ropes: walk the two piece lists in step.
  uint32_t ia = 0, ib = 0;
  size_t oa = 0, ob = 0;
  size_t left = a.size;
  while (left > 0) {
    const Piece& pa = a.r->pieces[ia];
    const Piece& pb = b.r->pieces[ib];
    size_t n = std::min(pa.size - oa, pb.size - ob);
    if (std::memcmp(pa.data + oa, pb.data + ob, n) != 0) return false;
    oa += n;
    ob += n;
    left -= n;
    if (oa == pa.size) {
      ++ia;
      oa = 0;
    }
    if (ob == pb.size) {
      ++ib;
      ob = 0;
    }
  }
  return true;
}

}  // namespace ltl::ct
