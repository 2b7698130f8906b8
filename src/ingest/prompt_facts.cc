// PromptFactsBuilder and the volatile-text mask (see prompt_facts.h).
#include "ingest/prompt_facts.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "hash/block_cutter.h"

namespace ltl {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

// The bytes of a word (ASCII letters, digits and - : . / _ +), as a table: the mask tests every
// byte of every system prompt and tool result that holds a digit.
constexpr std::array<bool, 256> kWordChar = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[c] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
           c == ':' || c == '.' || c == '/' || c == '_' || c == '+';
  return t;
}();
inline bool WordChar(char c) {
  return kWordChar[static_cast<unsigned char>(c)];
}

bool Volatile(std::string_view w) {
  size_t digits = 0, letters = 0, hex_letters = 0;
  for (unsigned char c : w) {
    if (c >= '0' && c <= '9') {
      ++digits;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      ++letters;
      if ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) ++hex_letters;
    }
  }
  if (digits >= 2 && letters <= digits) return true;
  return letters == hex_letters && digits + hex_letters >= 8 && digits >= 1;
}

inline bool IsDigit(char c) {
  return static_cast<unsigned char>(c - '0') < 10;
}

// The first ASCII digit at or after `from` (n when none), 16 bytes at a time (SSE2): the mask
// skips every stretch without a digit at that speed (issue 30: a byte-by-byte word scan was the
// volatile mask's whole cost, and most words hold no digit).
size_t FindDigit(const char* p, size_t from, size_t n) {
  size_t i = from;
#if defined(__SSE2__)
  const __m128i below = _mm_set1_epi8('0' - 1), above = _mm_set1_epi8('9' + 1);
  for (; i + 16 <= n; i += 16) {
    const __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    // A digit is a byte between '0' - 1 and '9' + 1 as signed bytes (every byte >= 0x80 is
    // negative, so below).
    const int m =
        _mm_movemask_epi8(_mm_and_si128(_mm_cmpgt_epi8(t, below), _mm_cmplt_epi8(t, above)));
    if (m != 0) return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(m)));
  }
#endif
  for (; i < n; ++i)
    if (IsDigit(p[i])) return i;
  return n;
}

// Appends n in decimal (std::to_string without the string).
void AppendDecimal(size_t n, std::string* out) {
  char buf[20];
  char* e = buf + sizeof buf;
  char* b = e;
  do {
    *--b = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  out->append(b, static_cast<size_t>(e - b));
}

bool HasCacheControl(element e) {
  object o;
  if (!e.get_object().get(o)) {
    element v;
    if (!o.at_key("cache_control").get(v) && !v.is_null()) return true;
    simdjson::dom::array content;
    if (!o.at_key("content").get_array().get(content)) {
      for (element b : content)
        if (HasCacheControl(b)) return true;
    }
    return false;
  }
  simdjson::dom::array list;
  if (!e.get_array().get(list)) {
    for (element b : list)
      if (HasCacheControl(b)) return true;
  }
  return false;
}

bool SameSegment(const Segment& a, const Segment& b) {
  return a.kind == b.kind && a.role == b.role && a.message == b.message && a.index == b.index;
}

// Appends the masked text to *out only from the first volatile word on, in runs (no byte-by-byte
// copy); false, with *out untouched, when no word is volatile (the text masks to itself).
// Only words holding a digit can be volatile: the scan jumps from digit to digit (FindDigit) and
// takes each one's word (the WordChar run around it), so it finds the words a word-by-word scan
// finds, and tests the same ones that can be volatile.
bool MaskVolatileIfAny(std::string_view text, std::string* out) {
  const size_t n = text.size();
  const char* p = text.data();
  size_t i = 0, copied = 0;
  bool any = false;
  while (i < n) {
    const size_t from = i, d = FindDigit(p, i, n);
    if (d == n) break;
    // The digit's word: back to its start (never before `from`, the end of the last word taken,
    // a non-word byte) and on to its end.
    i = d;
    while (i > from && WordChar(p[i - 1])) --i;
    size_t j = d + 1;
    while (j < n && WordChar(p[j])) ++j;
    if (Volatile(text.substr(i, j - i))) {
      if (!any) out->clear();
      any = true;
      out->append(text.data() + copied, i - copied);
      out->push_back('#');
      copied = j;
    }
    i = j;
  }
  if (any) out->append(text.data() + copied, n - copied);
  return any;
}

}  // namespace

void MaskVolatile(std::string_view text, std::string* out) {
  if (!MaskVolatileIfAny(text, out)) out->assign(text);
}

void AppendCanonical(element e, std::string* out, std::string* masked) {
  switch (e.type()) {
    case simdjson::dom::element_type::OBJECT: {
      out->push_back('{');
      object obj;
      if (e.get_object().get(obj)) return;
      for (auto [k, v] : obj) {
        if (k == "cache_control") continue;
        AppendDecimal(k.size(), out);
        out->push_back(':');
        out->append(k);
        AppendCanonical(v, out, masked);
        out->push_back(',');
      }
      out->push_back('}');
      return;
    }
    case simdjson::dom::element_type::ARRAY: {
      out->push_back('[');
      simdjson::dom::array list;
      if (e.get_array().get(list)) return;
      for (element v : list) {
        AppendCanonical(v, out, masked);
        out->push_back(',');
      }
      out->push_back(']');
      return;
    }
    case simdjson::dom::element_type::STRING: {
      // Length-prefixed raw bytes (as unambiguous as the escaped JSON, without building a
      // std::string per value: minify's string builder was ~4% of a worker on agentic logs).
      std::string_view s;
      if (e.get_string().get(s)) return;
      if (masked && MaskVolatileIfAny(s, masked)) s = *masked;  // skips to digits
      out->push_back('"');
      AppendDecimal(s.size(), out);
      out->push_back(':');
      out->append(s);
      return;
    }
    default:
      out->append(simdjson::minify(e));
  }
}

// A key of its own (the salt with a fixed tweak), so a segment digest never equals a block id.
PromptFactsBuilder::PromptFactsBuilder(SipKey key)
    : key_{key.k0 ^ 0x7365676d656e7473ull, key.k1 ^ 0x6361636865627573ull} {}

PromptFactsBuilder::PromptFactsBuilder(SipKey key, const PromptFactsBuilder& share_memo_with)
    : PromptFactsBuilder(key) {
  memo_ = share_memo_with.memo_;
}

uint32_t PromptFactsBuilder::Digest(std::string_view s) const {
  return static_cast<uint32_t>(SipHash24(key_, s));
}

// Runs of one segment in text order: the labelled spans, framing in the gaps.
void PromptFactsBuilder::SplitRuns(const RenderedPrompt& prompt) {
  runs_.clear();
  const std::string_view text = prompt.text;
  const SegmentMap& map = prompt.segments;
  size_t at = 0;
  auto push = [&](size_t b, size_t e, uint32_t seg) {
    if (e <= b) return;
    if (!runs_.empty() && SameSegment(map.segments[runs_.back().segment], map.segments[seg]) &&
        runs_.back().end == b) {
      runs_.back().end = e;
      return;
    }
    runs_.push_back(Run{b, e, seg});
  };
  for (const SegmentSpan& s : map.spans) {
    if (s.offset < at || s.offset + s.length > text.size()) continue;  // never: spans are ordered
    push(at, s.offset, 0);
    push(s.offset, s.offset + s.length, s.segment < map.segments.size() ? s.segment : 0);
    at = s.offset + s.length;
  }
  push(at, text.size(), 0);
}

// Digests and code points of every run: a run at the same offsets as one of the remembered text's,
// inside the bytes the two texts share, has the same bytes and so the same values.
void PromptFactsBuilder::FillRuns(std::string_view text, const std::vector<MemoRun>* earlier,
                                  size_t common_bytes) {
  size_t j = 0;
  for (Run& r : runs_) {
    if (earlier && r.end <= common_bytes) {
      while (j < earlier->size() && (*earlier)[j].begin < r.begin) ++j;
      if (j < earlier->size() && (*earlier)[j].begin == r.begin && (*earlier)[j].end == r.end) {
        r.digest = (*earlier)[j].digest;
        r.masked_digest = (*earlier)[j].masked_digest;
        r.code_points = (*earlier)[j].code_points;
        ++reused_segments_;
        continue;
      }
    }
    const std::string_view piece = text.substr(r.begin, r.end - r.begin);
    r.digest = Digest(piece);
    // Most pieces hold no volatile word: their masked digest is their digest, with no copy.
    r.masked_digest = MaskVolatileIfAny(piece, &masked_) ? Digest(masked_) : r.digest;
    r.code_points = CountCodePoints(piece);
  }
}

void PromptFactsBuilder::Build(const RenderedPrompt& prompt, object body, int64_t tokens,
                               bool approximate, const TextReuse& reuse, PromptFacts* out) {
  out->segments.clear();
  out->tools.clear();
  out->cache_control = -1;
  const std::string_view text = prompt.text;
  const SegmentMap& map = prompt.segments;
  SplitRuns(prompt);
  // The remembered text's runs, taken over: the cutter cut that text back and remembers it again
  // as this one, so this text's runs replace them under the cutter's new stamp.
  std::unique_ptr<RunsMemo> m;
  if (reuse.earlier != 0) m = memo_->Take(std::span<const uint64_t>(&reuse.earlier, 1));
  FillRuns(text, m ? &m->runs : nullptr, reuse.common_bytes);
  if (reuse.stamp != 0 && text.size() <= UINT32_MAX) {
    if (!m) m = memo_->Fresh();
    m->runs.clear();
    for (const Run& r : runs_)
      m->runs.push_back(MemoRun{static_cast<uint32_t>(r.begin), static_cast<uint32_t>(r.end),
                                r.digest, r.masked_digest, static_cast<uint32_t>(r.code_points)});
    memo_->Remember(reuse.stamp, std::move(m));
  }
  uint64_t total_cp = 0;
  for (const Run& r : runs_) total_cp += r.code_points;
  uint64_t cp = 0;
  out->segments.reserve(runs_.size());
  for (const Run& r : runs_) {
    const Segment& seg = map.segments[r.segment];
    SegmentFact f;
    uint64_t start = approximate    ? cp / kCodePointsPerToken
                     : total_cp > 0 ? static_cast<uint64_t>(std::llround(
                                          static_cast<double>(cp) * static_cast<double>(tokens) /
                                          static_cast<double>(total_cp)))
                                    : 0;
    if (start > static_cast<uint64_t>(tokens)) start = static_cast<uint64_t>(tokens);
    f.token_start = static_cast<uint32_t>(std::min<uint64_t>(start, UINT32_MAX));
    f.kind = static_cast<uint8_t>(seg.kind);
    f.role = static_cast<uint8_t>(seg.role);
    const int32_t item = seg.kind == SegmentKind::kTools ? seg.index : seg.message;
    f.item = item >= 0 && item < 0xffff ? static_cast<uint16_t>(item) : 0xffff;
    f.digest = r.digest;
    f.masked_digest = r.masked_digest;
    out->segments.push_back(f);
    cp += r.code_points;
  }

  // Tool definitions in body order ("tools", else legacy "functions").
  simdjson::dom::array tools;
  bool has_tools = !body.at_key("tools").get_array().get(tools) && tools.size() > 0;
  if (!has_tools) has_tools = !body.at_key("functions").get_array().get(tools);
  if (has_tools) {
    for (element t : tools) {
      ToolFact tf;
      std::string_view name;
      object fn;
      if (!t.at_key("function").get_object().get(fn)) {
        if (fn.at_key("name").get_string().get(name)) name = {};
      } else if (t.at_key("name").get_string().get(name)) {
        name = {};
      }
      tf.name_digest = Digest(name);
      scratch_.clear();
      AppendCanonical(t, &scratch_);
      tf.definition_digest = Digest(scratch_);
      out->tools.push_back(tf);
      if (HasCacheControl(t)) out->cache_control = -2;
    }
  }

  // The last cache_control marker: a message's (its index), else the tools' or system's.
  element system;
  if (!body.at_key("system").get(system) && HasCacheControl(system)) out->cache_control = -2;
  simdjson::dom::array messages;
  if (!body.at_key("messages").get_array().get(messages)) {
    int32_t i = 0;
    for (element m : messages) {
      if (HasCacheControl(m)) out->cache_control = i;
      ++i;
    }
  }
}

}  // namespace ltl
