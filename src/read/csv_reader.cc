// CsvReader (see csv_reader.h). A record is parsed from the start of the unconsumed buffer; when
// it runs past the buffered bytes, more input is read (the buffer doubles up to the record limit)
// and the record is parsed again from its start, which costs at most twice the record's bytes.
#include "read/csv_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ltl {
namespace {

// Inside a quoted field at `j` (after the opening quote or a doubled quote): skips, 32 bytes at a
// time, every byte before the field's closing quote, and returns where the byte-wise scan goes on
// (at the closing quote when it was found, else near the end of the buffered bytes). The quotes of
// a well-formed quoted field come in pairs (""), so counting quotes from `j`, the closing quote is
// the first one with an odd count that is not followed by another quote. *escaped is set when a
// doubled quote was passed over. Reads only bytes below `end`.
size_t SkipToClosingQuote(const char* b, size_t j, size_t end, bool* escaped) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  auto mask = [&](const char* p) {
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));
    return static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(lo, quote))) |
           static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(hi, quote))) << 16;
  };
  uint32_t carry = 0;  // all ones when the first byte of the chunk closes a pair
  while (j + 33 <= end) {
    const uint32_t q = mask(b + j);
    if (q == 0 && carry == 0) {
      j += 32;
      continue;
    }
    const uint32_t next = mask(b + j + 1);  // bit k: byte k + 1 is a quote
    uint32_t odd = q;                       // prefix XOR: quotes so far in the chunk, odd
    odd ^= odd << 1;
    odd ^= odd << 2;
    odd ^= odd << 4;
    odd ^= odd << 8;
    odd ^= odd << 16;
    odd ^= carry;
    const uint32_t closing = q & odd & ~next;
    if (closing) {
      const int k = std::countr_zero(closing);
      if (q & ((uint32_t{1} << k) - 1)) *escaped = true;
      return j + static_cast<size_t>(k);
    }
    if (q) *escaped = true;
    carry = (odd >> 31) ? ~uint32_t{0} : 0;  // the chunk's last quote opens a pair
    j += 32;
  }
  return carry ? j + 1 : j;  // b[j] is then the second quote of a pair
#else
  (void)b;
  (void)end;
  (void)escaped;
  return j;
#endif
}

}  // namespace

size_t CsvReader::Unescape(std::string_view raw, char* out) {
  // Every quote in a raw escaped field is the first of a pair: it stays, the second goes.
  const char* in = raw.data();
  const size_t n = raw.size();
  size_t i = 0, o = 0;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  while (i + 16 <= n) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + o), chunk);
    const auto m = static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, quote)));
    if (m == 0) {
      i += 16;
      o += 16;
      continue;
    }
    const auto k = static_cast<size_t>(std::countr_zero(m));
    o += k + 1;
    i += k + 2;
  }
#endif
  for (; i < n; ++i) {
    out[o++] = in[i];
    if (in[i] == '"') ++i;
  }
  return o;
}

const std::vector<std::string_view>& CsvReader::fields() const {
  if (fields_ready_) return fields_;
  fields_ready_ = true;
  fields_.clear();
  scratch_.clear();
  size_t unescaped = 0;
  for (const RawField& f : raw_)
    if (f.escaped) unescaped += f.bytes.size();
  scratch_.resize(unescaped + kUnescapeSlack);  // no reallocation below: the views stay valid
  size_t at = 0;
  for (const RawField& f : raw_) {
    if (!f.escaped) {
      fields_.push_back(f.bytes);
      continue;
    }
    const size_t n = Unescape(f.bytes, scratch_.data() + at);
    fields_.emplace_back(scratch_.data() + at, n);
    at += n;
  }
  return fields_;
}

CsvReader::CsvReader(InputStream* in, const ReadLimits& limits, size_t buffer_bytes)
    : in_(in), limits_(limits) {
  buf_.resize(std::max<size_t>(buffer_bytes, 64));
}

void CsvReader::HandOffBuffer() {
  if (!handoff_ || !returned_) return;
  returned_ = false;
  std::string next = handoff_->Take();
  if (next.size() < buf_.size()) next.resize(buf_.size());
  if (end_ > begin_) std::memcpy(next.data(), buf_.data() + begin_, end_ - begin_);
  end_ -= begin_;
  begin_ = 0;
  std::swap(next, buf_);
  handoff_->Give(std::move(next));
}

bool CsvReader::Fill() {
  HandOffBuffer();
  return RefillWindow(in_, &buf_, &begin_, &end_, &eof_, &error_);
}

bool CsvReader::FillBuffer() {
  // Short reads (pipes, decompressors) would make a long record be re-parsed from its start after
  // every few KiB; reading until the buffer is full keeps the re-parsing linear.
  HandOffBuffer();
  return RefillWindowFull(in_, &buf_, &begin_, &end_, &eof_, &error_);
}

bool CsvReader::OverLimit(size_t field_begin, size_t known_end) {
  // Whichever limit the bytes cross first wins, so the verdict does not depend on how much of the
  // input happened to be buffered when the record was parsed.
  const bool field = known_end - field_begin > limits_.max_field_bytes;
  const bool record = known_end - begin_ > limits_.max_line_bytes;
  if (!field && !record) return false;
  if (field &&
      (!record || field_begin + limits_.max_field_bytes <= begin_ + limits_.max_line_bytes))
    bad_reason_ = fmt::format("CSV field longer than {} bytes", limits_.max_field_bytes);
  else
    bad_reason_ = fmt::format("CSV record longer than {} bytes", limits_.max_line_bytes);
  return true;
}

void CsvReader::CountLines(size_t from, size_t to) {
  // Newlines are rare inside records (JSON escapes them): memchr jumps from one to the next.
  const char* p = buf_.data() + from;
  const char* const e = buf_.data() + to;
  while (p < e) {
    p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(e - p)));
    if (!p) break;
    ++line_;
    ++p;
  }
}

void CsvReader::Discard(size_t from, bool in_quotes, bool mind_quotes) {
  size_t i = from;
  for (;;) {
    for (; i < end_; ++i) {
      char c = buf_[i];
      if (c == '"' && mind_quotes) {
        in_quotes = !in_quotes;
      } else if (c == '\n' && !in_quotes) {
        CountLines(begin_, i + 1);
        begin_ = i + 1;
        return;
      }
    }
    CountLines(begin_, end_);
    begin_ = end_;
    if (!Fill()) {
      begin_ = end_;
      return;
    }
    i = begin_;
  }
}

void CsvReader::StartResync() {
  Discard(begin_, false, /*mind_quotes=*/false);
  resync_ = true;
}

bool CsvReader::HasInnerNewline(size_t from, size_t consumed) const {
  if (consumed <= from + 1) return false;
  return std::memchr(buf_.data() + from, '\n', consumed - from - 1) != nullptr;
}

CsvReader::Parse CsvReader::ParseRecord(size_t* consumed) {
  spans_.clear();
  const char* b = buf_.data();
  size_t i = begin_;
  // Limits are measured on the raw bytes (quotes included); a violation discards the whole record.
  auto over = [&](size_t field_start, size_t known_end) {
    if (!OverLimit(field_start, known_end)) return false;
    *consumed = begin_;
    return true;
  };
  for (;;) {  // one field per iteration
    if (i >= end_) {
      if (over(i, end_)) return Parse::kBadLimit;
      if (!eof_) return Parse::kNeedMore;
      // End of input right after a comma: one last empty field.
      spans_.push_back(Span{i, 0, false});
      *consumed = i;
      return Parse::kDone;
    }
    size_t field_begin, field_len;
    bool escaped = false;
    size_t term;  // position of the terminator (',' '\n') or end_
    const size_t raw_begin = i;
    if (b[i] == '"') {
      const size_t seg = i + 1;
      size_t j = SkipToClosingQuote(b, seg, end_, &escaped);
      for (;;) {
        const char* q = static_cast<const char*>(std::memchr(b + j, '"', end_ - j));
        if (!q) {
          if (over(raw_begin, end_)) return Parse::kBadLimit;
          if (!eof_) return Parse::kNeedMore;
          bad_reason_ = "unterminated quoted CSV field";
          cut_by_end_ = true;
          *consumed = end_;
          return Parse::kBad;
        }
        size_t qp = static_cast<size_t>(q - b);
        if (over(raw_begin, qp + 1)) return Parse::kBadLimit;
        if (qp + 1 >= end_ && !eof_) return Parse::kNeedMore;
        if (qp + 1 < end_ && b[qp + 1] == '"') {  // doubled quote
          escaped = true;
          j = qp + 2;
          continue;
        }
        field_begin = seg;
        field_len = qp - seg;
        i = qp + 1;
        break;
      }
      // After the closing quote: a comma, a line end, or the end of input.
      if (i < end_ && b[i] == '\r') {
        if (over(raw_begin, i + 1)) return Parse::kBadLimit;
        if (i + 1 >= end_ && !eof_) return Parse::kNeedMore;
        if (i + 1 < end_ && b[i + 1] == '\n') ++i;
      }
      if (i < end_ && b[i] != ',' && b[i] != '\n') {
        if (over(raw_begin, i + 1)) return Parse::kBadLimit;
        bad_reason_ = "text after a closing quote in a CSV field";
        *consumed = i;
        return Parse::kBad;
      }
      term = i;
    } else {
      size_t j = i;
      while (j < end_ && b[j] != ',' && b[j] != '\n') ++j;
      if (over(raw_begin, j)) return Parse::kBadLimit;
      if (j >= end_ && !eof_) return Parse::kNeedMore;
      field_begin = i;
      field_len = j - i;
      if (j < end_ && b[j] == '\n' && field_len > 0 && b[j - 1] == '\r') --field_len;
      if (j >= end_ && field_len > 0 && b[j - 1] == '\r') --field_len;
      term = j;
    }
    spans_.push_back(Span{field_begin, field_len, escaped});
    if (term >= end_) {
      *consumed = end_;
      return Parse::kDone;
    }
    if (b[term] == '\n') {
      *consumed = term + 1;
      return Parse::kDone;
    }
    i = term + 1;  // after the comma
  }
}

CsvReader::Outcome CsvReader::Next() {
  if (!error_.ok()) return Outcome::kError;
  for (;;) {
    if (begin_ >= end_ && !Fill()) return error_.ok() ? Outcome::kEnd : Outcome::kError;
    if (first_) {
      if (end_ - begin_ < 3 && !eof_) {
        Fill();
        continue;
      }
      first_ = false;
      if (end_ - begin_ >= 3 && std::memcmp(buf_.data() + begin_, "\xEF\xBB\xBF", 3) == 0)
        begin_ += 3;
      continue;
    }
    size_t consumed = 0;
    Parse r = ParseRecord(&consumed);
    if (r == Parse::kNeedMore) {
      if (!FillBuffer() && !error_.ok()) return Outcome::kError;
      continue;
    }
    record_line_ = line_;
    last_whole_ = r == Parse::kDone;
    const bool blank = r == Parse::kDone && spans_.size() == 1 && spans_[0].length == 0 &&
                       !HasInnerNewline(begin_, consumed);
    if (expected_fields_ > 0 && !blank) {
      // Recovery from a runaway quoted field (see csv_reader.h): a damaged record gives back
      // every line after its first, to be tried again as record starts.
      // (The field count is compared first: the newline scan is then paid by damaged rows only.)
      const bool runaway = r != Parse::kDone || (spans_.size() != expected_fields_ &&
                                                 (resync_ || HasInnerNewline(begin_, consumed)));
      if (runaway) {
        if (r == Parse::kDone)
          bad_reason_ =
              "CSV record with a quoted field running across lines has the wrong "
              "number of fields (unbalanced quote)";
        if (resync_) {
          bad_reason_ = resync_reason_;
        } else {
          // The lines given back are named after what started the search: a record over a size
          // limit is not a broken quote (issue 35, item 13: its lines were all counted as "lost
          // resynchronizing after a broken quoted field").
          resync_reason_ = r == Parse::kBadLimit
                               ? "CSV line lost resynchronizing after a record over a size "
                                 "limit (" +
                                     bad_reason_ + ")"
                               : std::string(kResyncReason);
        }
        StartResync();
        if (!error_.ok()) return Outcome::kError;
        return Outcome::kBad;
      }
      resync_ = false;
    }
    if (r == Parse::kBadLimit) {  // skip to the end of the record, minding quoted newlines
      Discard(begin_, false);
      if (!error_.ok()) return Outcome::kError;
      return Outcome::kBad;
    }
    if (r == Parse::kBad) {
      CountLines(begin_, consumed);
      begin_ = consumed;
      if (begin_ < end_ || !eof_) Discard(begin_, false);
      return Outcome::kBad;
    }
    CountLines(begin_, consumed);
    begin_ = consumed;
    if (spans_.size() == 1 && spans_[0].length == 0) {
      // A blank line (or a lone "\r") is not a record; a quoted "" would be, but has no use.
      continue;
    }
    raw_.clear();
    for (const Span& sp : spans_)
      raw_.push_back(RawField{std::string_view(buf_.data() + sp.offset, sp.length), sp.escaped});
    fields_ready_ = false;
    returned_ = true;
    return Outcome::kRecord;
  }
}

}  // namespace ltl
