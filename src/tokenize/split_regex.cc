// PCRE2 compilation and matching for SplitRegex, and the pattern adaptation that makes PCRE2's
// character classes agree with the reference tokenizers' regex engines.
#define PCRE2_CODE_UNIT_WIDTH 8
#include "tokenize/split_regex.h"

#include <fmt/format.h>
#include <pcre2.h>

#include <algorithm>
#include <limits>

#include "tokenize/unicode_delta.h"

namespace ltl {
namespace {

// Unicode White_Space, the set Rust's regex crate uses for \s.
constexpr std::string_view kWhiteSpace =
    "\\t\\n\\x{0B}\\f\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}"
    "\\x{205F}\\x{3000}";

// One PCRE2 JIT stack and match context per thread, reused by every Matcher on that thread.
struct ThreadJitResources {
  pcre2_match_context* context = nullptr;
  pcre2_jit_stack* stack = nullptr;
  ThreadJitResources() {
    context = pcre2_match_context_create(nullptr);
    stack = pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, nullptr);
    if (context && stack) pcre2_jit_stack_assign(context, nullptr, stack);
  }
  ~ThreadJitResources() {
    pcre2_jit_stack_free(stack);
    pcre2_match_context_free(context);
  }
};

pcre2_match_context* ThreadMatchContext() {
  thread_local ThreadJitResources resources;
  return resources.context;
}

}  // namespace

std::string AdaptSplitPattern(std::string_view p) {
  std::string out;
  out.reserve(p.size() * 2);
  bool in_class = false;
  size_t i = 0;
  const size_t n = p.size();
  while (i < n) {
    const char c = p[i];
    if (c == '\\' && i + 1 < n) {
      const char e = p[i + 1];
      if (e == 's') {
        if (in_class) {
          out += kWhiteSpace;
        } else {
          out += '[';
          out += kWhiteSpace;
          out += ']';
        }
        i += 2;
        continue;
      }
      if (e == 'S' && !in_class) {
        out += "[^";
        out += kWhiteSpace;
        out += ']';
        i += 2;
        continue;
      }
      if ((e == 'p' || e == 'P') && i + 2 < n) {
        std::string_view prop;
        size_t len;
        if (p[i + 2] == '{') {
          size_t close = p.find('}', i + 3);
          if (close == std::string_view::npos) {
            out.append(p.substr(i));
            break;
          }
          prop = p.substr(i + 3, close - (i + 3));
          len = close + 1 - i;
        } else {
          prop = p.substr(i + 2, 1);
          len = 3;
        }
        std::string_view extra = UnicodeDeltaMembers(prop);
        std::string canonical = fmt::format("\\p{{{}}}", prop);
        if (extra.empty() || (e == 'P' && in_class)) {
          out.append(p.substr(i, len));
        } else if (in_class) {
          out += canonical;
          out += extra;
        } else {
          out += e == 'p' ? "[" : "[^";
          out += canonical;
          out += extra;
          out += ']';
        }
        i += len;
        continue;
      }
      out.append(p.substr(i, 2));
      i += 2;
      continue;
    }
    if (c == '[') {
      if (!in_class) {
        in_class = true;
        out += c;
        ++i;
        if (i < n && p[i] == '^') out += p[i++];
        if (i < n && p[i] == ']') out += p[i++];  // a leading ']' is a literal member
        continue;
      }
      if (i + 1 < n && p[i + 1] == ':') {  // POSIX class such as [:alpha:]
        size_t close = p.find(":]", i + 2);
        if (close != std::string_view::npos) {
          out.append(p.substr(i, close + 2 - i));
          i = close + 2;
          continue;
        }
      }
    } else if (c == ']' && in_class) {
      in_class = false;
    }
    out += c;
    ++i;
  }
  return out;
}

Result<std::shared_ptr<const SplitRegex>> SplitRegex::Compile(std::string_view pattern,
                                                              bool adapt) {
  std::shared_ptr<SplitRegex> re(new SplitRegex());
  re->source_ = std::string(pattern);
  re->pattern_ = adapt ? AdaptSplitPattern(pattern) : std::string(pattern);
  int error = 0;
  PCRE2_SIZE offset = 0;
  re->code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(re->pattern_.data()), re->pattern_.size(),
                            PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
  if (!re->code_) {
    PCRE2_UCHAR buf[256];
    pcre2_get_error_message(error, buf, sizeof buf);
    return Status::InvalidArgument(fmt::format("split pattern does not compile at offset {}: {}",
                                               offset, reinterpret_cast<const char*>(buf)));
  }
  re->jit_ = pcre2_jit_compile(re->code_, PCRE2_JIT_COMPLETE) == 0;
  return std::shared_ptr<const SplitRegex>(std::move(re));
}

SplitRegex::~SplitRegex() {
  pcre2_code_free(code_);
}

SplitRegex::Matcher::Matcher(const SplitRegex& regex)
    : regex_(regex), data_(pcre2_match_data_create_from_pattern(regex.code_, nullptr)) {}

SplitRegex::Matcher::~Matcher() {
  pcre2_match_data_free(data_);
}

namespace {

// The limits for one match over `subject` bytes (see SplitRegex::LimitHits); a split calls Find
// many times over one subject, so they are set only when the subject's size changes.
void SetLimits(pcre2_match_context* context, size_t subject) {
  thread_local size_t last = static_cast<size_t>(-1);
  if (subject == last) return;
  last = subject;
  const uint64_t n = subject;
  pcre2_set_match_limit(context, static_cast<uint32_t>(std::min<uint64_t>(
                                     1'000'000 + 64 * n, std::numeric_limits<uint32_t>::max())));
  pcre2_set_depth_limit(context, static_cast<uint32_t>(std::min<uint64_t>(
                                     100'000 + 4 * n, std::numeric_limits<uint32_t>::max())));
  // In KiB.
  pcre2_set_heap_limit(context, static_cast<uint32_t>(std::min<uint64_t>(
                                    64 * 1024 + n / 4, std::numeric_limits<uint32_t>::max())));
}

bool IsLimitError(int rc) {
  return rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
         rc == PCRE2_ERROR_HEAPLIMIT;
}

}  // namespace

void SplitRegex::RecordLimitHit(int rc, size_t subject) const {
  limit_count_.fetch_add(1, std::memory_order_relaxed);
  uint64_t prev = limit_longest_.load(std::memory_order_relaxed);
  while (prev < subject &&
         !limit_longest_.compare_exchange_weak(prev, subject, std::memory_order_relaxed)) {
  }
  int expected = 0;
  limit_rc_.compare_exchange_strong(expected, rc, std::memory_order_relaxed);
}

SplitRegex::LimitHits SplitRegex::limit_hits() const {
  LimitHits h;
  h.count = limit_count_.load(std::memory_order_relaxed);
  h.longest_subject = limit_longest_.load(std::memory_order_relaxed);
  const int rc = limit_rc_.load(std::memory_order_relaxed);
  h.what = rc == PCRE2_ERROR_DEPTHLIMIT  ? "depth limit"
           : rc == PCRE2_ERROR_HEAPLIMIT ? "heap limit"
                                         : "match limit";
  return h;
}

bool SplitRegex::Matcher::Find(std::string_view text, size_t start, size_t* begin, size_t* end) {
  if (start >= text.size()) return false;
  if (regex_.limit_count_.load(std::memory_order_relaxed) > 0) {
    // The pattern has failed once: the run will stop with that error, so do not spend the limit
    // again on every remaining piece; the rest of the text is one piece.
    *begin = start;
    *end = text.size();
    return true;
  }
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  pcre2_match_context* context = ThreadMatchContext();
  SetLimits(context, text.size());
  int rc;
  if (regex_.jit_) {
    rc = pcre2_jit_match(regex_.code_, subject, text.size(), start, 0, data_, context);
  } else {
    rc = pcre2_match(regex_.code_, subject, text.size(), start, PCRE2_NO_UTF_CHECK, data_, context);
  }
  if (rc == PCRE2_ERROR_JIT_STACKLIMIT) {
    // JIT stack exhausted on a deep but legitimate run: the interpreter keeps its frames on the
    // heap (still under the depth and heap limits).
    rc = pcre2_match(regex_.code_, subject, text.size(), start, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT,
                     data_, context);
  }
  if (rc < 0) {
    if (rc == PCRE2_ERROR_NOMATCH) return false;
    if (IsLimitError(rc)) regex_.RecordLimitHit(rc, text.size() - start);
    // Take one character as its own piece so no text is lost (no ids are exact any more; the
    // caller reports EncodeStatus).
    size_t next = start + 1;
    while (next < text.size() && (static_cast<unsigned char>(text[next]) & 0xC0) == 0x80) ++next;
    *begin = start;
    *end = next;
    return true;
  }
  const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data_);
  *begin = ovector[0];
  *end = ovector[1];
  return true;
}

}  // namespace ltl
