// CsvReader (see csv_reader.h). A record is parsed from the start of the unconsumed buffer; when
// it runs past the buffered bytes, more input is read (the buffer doubles up to the record limit)
// and the record is parsed again from its start, which costs at most twice the record's bytes.
#include "read/csv_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace ltl {

CsvReader::CsvReader(InputStream* in, const ReadLimits& limits, size_t buffer_bytes)
    : in_(in), limits_(limits) {
  buf_.resize(std::max<size_t>(buffer_bytes, 64));
}

bool CsvReader::Fill() {
  return RefillWindow(in_, &buf_, &begin_, &end_, &eof_, &error_);
}

bool CsvReader::FillBuffer() {
  // Short reads (pipes, decompressors) would make a long record be re-parsed from its start after
  // every few KiB; reading until the buffer is full keeps the re-parsing linear.
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
  line_ += static_cast<uint64_t>(std::count(buf_.data() + from, buf_.data() + to, '\n'));
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
  in_scratch_.clear();
  scratch_.clear();
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
      spans_.emplace_back(i, 0);
      in_scratch_.push_back(false);
      *consumed = i;
      return Parse::kDone;
    }
    size_t field_begin, field_len;
    bool scratch = false;
    size_t term;  // position of the terminator (',' '\n') or end_
    const size_t raw_begin = i;
    if (b[i] == '"') {
      size_t seg = i + 1;
      size_t scratch_begin = scratch_.size();
      bool copied = false;
      size_t j = seg;
      for (;;) {
        const char* q = static_cast<const char*>(std::memchr(b + j, '"', end_ - j));
        if (!q) {
          if (over(raw_begin, end_)) return Parse::kBadLimit;
          if (!eof_) return Parse::kNeedMore;
          bad_reason_ = "unterminated quoted CSV field";
          *consumed = end_;
          return Parse::kBad;
        }
        size_t qp = static_cast<size_t>(q - b);
        if (over(raw_begin, qp + 1)) return Parse::kBadLimit;
        if (qp + 1 >= end_ && !eof_) return Parse::kNeedMore;
        if (qp + 1 < end_ && b[qp + 1] == '"') {  // doubled quote
          scratch_.append(b + seg, qp + 1 - seg);
          copied = true;
          j = seg = qp + 2;
          continue;
        }
        if (copied) {
          scratch_.append(b + seg, qp - seg);
          field_begin = scratch_begin;
          field_len = scratch_.size() - scratch_begin;
          scratch = true;
        } else {
          field_begin = seg;
          field_len = qp - seg;
        }
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
    spans_.emplace_back(field_begin, field_len);
    in_scratch_.push_back(scratch);
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
    const bool blank = r == Parse::kDone && spans_.size() == 1 && spans_[0].second == 0 &&
                       !in_scratch_[0] && !HasInnerNewline(begin_, consumed);
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
        if (resync_) bad_reason_ = kResyncReason;
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
    if (spans_.size() == 1 && spans_[0].second == 0 && !in_scratch_[0]) {
      // A blank line (or a lone "\r") is not a record; a quoted "" would be, but has no use.
      continue;
    }
    fields_.clear();
    for (size_t k = 0; k < spans_.size(); ++k)
      fields_.emplace_back((in_scratch_[k] ? scratch_.data() : buf_.data()) + spans_[k].first,
                           spans_[k].second);
    return Outcome::kRecord;
  }
}

}  // namespace ltl
