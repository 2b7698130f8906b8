// SplitRegex: a pre-tokenization pattern (tiktoken's pat_str, a tokenizer.json Split regex)
// compiled with PCRE2 (UTF + UCP + JIT), adapted so that PCRE2 classifies characters as the
// reference tokenizers do (see AdaptSplitPattern), and matched repeatedly over one text without
// re-validating UTF-8 each time (PCRE2_NO_UTF_CHECK; the caller validates once).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"

struct pcre2_real_code_8;
struct pcre2_real_match_data_8;

namespace ltl {

// Rewrites a split pattern for PCRE2 10.42 so that it behaves like the Rust regex engines behind
// tiktoken and Hugging Face tokenizers:
//  - `\s` / `\S` become the Unicode White_Space class (PCRE2's UCP `\s` also matches U+180E);
//  - `\p{L}`, `\p{N}`, `\p{Lu}`, ... gain the code points that Unicode 15-16 made letters, digits
//  or
//    marks (PCRE2 10.42 knows Unicode 14; see unicode_delta.h).
// `\S` inside a bracket class cannot be expanded and is kept (it differs only at U+180E).
std::string AdaptSplitPattern(std::string_view pattern);

class SplitRegex {
 public:
  // Compiles `pattern` (adapted first when `adapt` is true). The error names the offset.
  static Result<std::shared_ptr<const SplitRegex>> Compile(std::string_view pattern,
                                                           bool adapt = true);
  ~SplitRegex();
  SplitRegex(const SplitRegex&) = delete;
  SplitRegex& operator=(const SplitRegex&) = delete;

  const std::string& pattern() const { return pattern_; }  // as compiled (adapted)
  const std::string& source() const { return source_; }    // as given

  // Every match runs under PCRE2 limits that grow with the subject, so a pattern that backtracks
  // catastrophically (`(\w+\s?)+$`) fails within milliseconds instead of running for minutes:
  // match limit 1,000,000 + 64 per subject byte (JIT and interpreter), depth limit 100,000 + 4 per
  // byte and heap limit 64 MiB + 256 bytes per byte (interpreter). Linear-time patterns stay far
  // below them. A match that hits one is counted here and the tokenizer reports it as an error
  // (EncodeStatus); from then on the pattern is not run again and the rest of each text is one
  // piece, so a run with such a pattern ends quickly with that error and no text is lost.
  struct LimitHits {
    uint64_t count = 0;
    uint64_t longest_subject = 0;  // bytes
    const char* what = "";         // "match limit", "depth limit" or "heap limit"
  };
  LimitHits limit_hits() const;

  // Per-call matching state (PCRE2 match data); one per thread at a time, cheap to create.
  class Matcher {
   public:
    explicit Matcher(const SplitRegex& regex);
    ~Matcher();
    Matcher(const Matcher&) = delete;
    Matcher& operator=(const Matcher&) = delete;
    // Finds the leftmost match starting at or after `start` in `text` (which must be valid
    // UTF-8, `start` on a character boundary). Returns false when there is none.
    bool Find(std::string_view text, size_t start, size_t* begin, size_t* end);

   private:
    const SplitRegex& regex_;
    pcre2_real_match_data_8* data_;
  };

 private:
  SplitRegex() = default;
  std::string pattern_;
  std::string source_;
  void RecordLimitHit(int rc, size_t subject) const;
  pcre2_real_code_8* code_ = nullptr;
  bool jit_ = false;
  mutable std::atomic<uint64_t> limit_count_{0};
  mutable std::atomic<uint64_t> limit_longest_{0};
  mutable std::atomic<int> limit_rc_{0};
};

}  // namespace ltl
