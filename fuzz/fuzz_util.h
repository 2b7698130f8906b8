// Helpers shared by the libFuzzer targets: an InputStream over the fuzzer's bytes that hands them
// out in chunks of a chosen size (to exercise buffer refills at every offset), a check macro that
// aborts with a message (libFuzzer then saves the input), and a record comparison.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "common/request_record.h"
#include "common/skip_counter.h"
#include "read/input_stream.h"

namespace ltl::fuzz {

// Aborts (a finding) when a property does not hold.
#define LTL_FUZZ_CHECK(cond)                                                            \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      std::fprintf(stderr, "property failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                     \
    }                                                                                   \
  } while (0)

class MemoryStream : public InputStream {
 public:
  MemoryStream(std::string_view data, size_t chunk) : data_(data), chunk_(chunk ? chunk : 1) {}
  Result<size_t> Read(char* buf, size_t cap) override {
    size_t n = std::min({cap, chunk_, data_.size() - pos_});
    std::memcpy(buf, data_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  uint64_t raw_bytes_read() const override { return pos_; }
  uint64_t raw_size() const override { return data_.size(); }
  const char* encoding() const override { return "plain"; }

 private:
  std::string_view data_;
  size_t chunk_;
  size_t pos_ = 0;
};

inline bool SameRecord(const RequestRecord& a, const RequestRecord& b) {
  auto same_double = [](double x, double y) {
    return std::memcmp(&x, &y, sizeof x) == 0;  // bit-identical, NaN-safe
  };
  return a.line == b.line && same_double(a.time_s, b.time_s) && a.has_time == b.has_time &&
         a.input_tokens == b.input_tokens && a.output_tokens == b.output_tokens &&
         a.block_size == b.block_size && a.block_ids == b.block_ids &&
         a.conversation == b.conversation && a.session_field == b.session_field &&
         a.model == b.model && a.stream == b.stream && a.status_code == b.status_code &&
         a.type == b.type && a.turn == b.turn &&
         a.provider_cached_tokens == b.provider_cached_tokens && a.exact_counts == b.exact_counts &&
         a.tools_digest == b.tools_digest && a.truncated_body == b.truncated_body;
}

inline bool SameRecords(const std::vector<RequestRecord>& a, const std::vector<RequestRecord>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!SameRecord(a[i], b[i])) return false;
  return true;
}

inline bool SameSkips(const SkipCounter& a, const SkipCounter& b) {
  if (a.total() != b.total() || a.by_reason().size() != b.by_reason().size()) return false;
  auto ia = a.by_reason().begin();
  for (auto ib = b.by_reason().begin(); ib != b.by_reason().end(); ++ia, ++ib)
    if (ia->first != ib->first || ia->second.count != ib->second.count ||
        ia->second.lines != ib->second.lines)
      return false;
  return true;
}

// Lines of `data` as LineReader numbers them, minus blank ones: an independent count of the rows a
// reader must either accept or skip. A blank line holds only bytes of `blank` and a final '\r':
// " \t" for the hashed-trace readers; the gateway JSON reader trims every JSON whitespace byte, so
// a line of spaces around an inner CR is blank there (pass " \t\r").
inline uint64_t NonBlankLines(std::string_view data, std::string_view blank = " \t") {
  uint64_t n = 0;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t nl = data.find('\n', pos);
    std::string_view line = data.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(blank) != std::string_view::npos) ++n;
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return n;
}

}  // namespace ltl::fuzz
