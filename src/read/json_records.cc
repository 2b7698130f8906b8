// JsonRecordReader and the JSON head description (see json_records.h).
#include "read/json_records.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace ltl {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// A byte that ends a scalar (true, 12.5e3, null): whitespace or structure.
bool EndsScalar(char c) {
  return IsSpace(c) || c == ',' || c == ']' || c == '}' || c == '[' || c == '{' || c == '"';
}

// Position just past the string starting at s[i] == '"', or npos.
size_t StringEnd(std::string_view s, size_t i) {
  for (++i;;) {
    const void* q = std::memchr(s.data() + i, '"', s.size() - i);
    if (!q) return std::string_view::npos;
    size_t qp = static_cast<size_t>(static_cast<const char*>(q) - s.data());
    size_t back = 0;  // an odd run of backslashes before the quote escapes it
    while (qp - back > i && s[qp - back - 1] == '\\') ++back;
    if (back % 2 == 0) return qp + 1;
    i = qp + 1;
  }
}

}  // namespace

const char* JsonFramingName(JsonFraming f) {
  switch (f) {
    case JsonFraming::kLines:
      return "json lines";
    case JsonFraming::kStream:
      return "json values";
    case JsonFraming::kArray:
      return "json array";
    case JsonFraming::kDocument:
      return "json document";
  }
  return "?";
}

size_t JsonValueEnd(std::string_view s, size_t i) {
  const size_t n = s.size();
  if (i >= n) return std::string_view::npos;
  const char c0 = s[i];
  if (c0 == '"') return StringEnd(s, i);
  if (c0 != '{' && c0 != '[') {
    while (i < n && !EndsScalar(s[i])) ++i;
    return i < n ? i : std::string_view::npos;
  }
  size_t depth = 0;
  while (i < n) {
    const char c = s[i];
    if (c == '"') {
      i = StringEnd(s, i);
      if (i == std::string_view::npos) return i;
      continue;
    }
    if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
    ++i;
  }
  return std::string_view::npos;
}

JsonHead DescribeJsonHead(std::string_view head,
                          const std::vector<std::string_view>& document_keys) {
  JsonHead h;
  size_t i = 0;
  if (head.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  while (i < head.size() && IsSpace(head[i])) ++i;
  h.first_begin = i;
  if (i >= head.size()) return h;
  if (head[i] == '[') {
    h.framing = JsonFraming::kArray;
    size_t j = i + 1;
    while (j < head.size() && IsSpace(head[j])) ++j;
    size_t e = JsonValueEnd(head, j);
    h.complete = e != std::string_view::npos;
    h.first_begin = j;
    h.first_end = h.complete ? e : 0;
    return h;
  }
  size_t e = JsonValueEnd(head, i);
  if (e == std::string_view::npos) return h;
  h.complete = true;
  h.first_end = e;
  std::string_view first = head.substr(i, e - i);
  // A document holding the records: one object whose key's value is an array, nothing after it.
  size_t after = e;
  while (after < head.size() && IsSpace(head[after])) ++after;
  if (after >= head.size()) {
    for (std::string_view k : document_keys) {
      std::string quoted = fmt::format("\"{}\"", k);
      size_t pos = first.find(quoted);
      if (pos == std::string_view::npos) continue;
      size_t p = pos + quoted.size();
      while (p < first.size() && IsSpace(first[p])) ++p;
      if (p >= first.size() || first[p] != ':') continue;
      ++p;
      while (p < first.size() && IsSpace(first[p])) ++p;
      if (p < first.size() && first[p] == '[') {
        h.framing = JsonFraming::kDocument;
        h.document_key = std::string(k);
        return h;
      }
    }
  }
  // Line-delimited only when the value sits on one line and a '\n' (or the end) follows it.
  const bool one_line =
      first.find('\n') == std::string_view::npos && first.find('\r') == std::string_view::npos;
  size_t k = e;
  while (k < head.size() && (head[k] == ' ' || head[k] == '\t')) ++k;
  const bool lf_after = k >= head.size() || head[k] == '\n' ||
                        (head[k] == '\r' && k + 1 < head.size() && head[k + 1] == '\n');
  h.framing = one_line && lf_after ? JsonFraming::kLines : JsonFraming::kStream;
  return h;
}

JsonRecordReader::JsonRecordReader(InputStream* in, JsonFraming framing, std::string document_key,
                                   size_t max_record_bytes, size_t buffer_bytes)
    : in_(in),
      framing_(framing),
      document_key_(std::move(document_key)),
      max_record_(max_record_bytes) {
  buf_.resize(std::max<size_t>(buffer_bytes, 64));
}

bool JsonRecordReader::Fill() {
  return RefillWindowFull(in_, &buf_, &begin_, &end_, &eof_, &error_);
}

void JsonRecordReader::Advance(size_t to) {
  // Common case, no '\r' in the range: count the '\n's with memchr instead of a branch per byte
  // (the byte loop below walked every byte of every record, the reading thread's largest cost
  // after the copy into the batch arena). Same counts: a '\n' right after a CR that ended the
  // previous range closes no new line.
  const char* p = buf_.data() + begin_;
  const size_t n = to > begin_ ? to - begin_ : 0;
  if (n > 0 && !std::memchr(p, '\r', n)) {
    const char* const stop = p + n;
    size_t lines = 0;
    for (const char* q = p; (q = static_cast<const char*>(std::memchr(q, '\n', stop - q))); ++q)
      ++lines;
    if (lines > 0) {
      if (last_cr_ && *p == '\n') --lines;
      line_ += lines;
      cr_lines_ = false;
    }
    last_cr_ = false;
    begin_ = to;
    return;
  }
  for (size_t i = begin_; i < to; ++i) {
    const char c = buf_[i];
    if (c == '\n') {
      if (!last_cr_) ++line_;
      cr_lines_ = false;
      last_cr_ = false;
    } else if (c == '\r') {
      ++line_;
      last_cr_ = true;
    } else {
      last_cr_ = false;
    }
  }
  begin_ = to;
}

bool JsonRecordReader::SkipSpace() {
  for (;;) {
    size_t i = begin_;
    while (i < end_ && IsSpace(buf_[i])) ++i;
    Advance(i);
    if (begin_ < end_) return true;
    if (!Fill()) return false;
  }
}

JsonRecordReader::Outcome JsonRecordReader::NextLine(std::string_view* record) {
  for (;;) {
    size_t scan = begin_;
    bool too_long = false;
    for (;;) {
      const char* nl = static_cast<const char*>(std::memchr(buf_.data() + scan, '\n', end_ - scan));
      if (nl || (eof_ && end_ > begin_)) {
        size_t pos = nl ? static_cast<size_t>(nl - buf_.data()) : end_;
        record_line_ = line_;
        std::string_view line(buf_.data() + begin_, pos - begin_);
        Advance(nl ? pos + 1 : pos);
        if (too_long) return Outcome::kTooLong;
        if (record_line_ == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
          line.remove_suffix(1);
        size_t lead = line.find_first_not_of(" \t");
        if (lead == std::string_view::npos) break;  // blank line: next
        *record = line.substr(lead);
        return Outcome::kRecord;
      }
      if (end_ - begin_ > max_record_) {  // drop what we have of an over-long line
        too_long = true;
        size_t keep_line = line_;
        Advance(end_);
        line_ = keep_line;
      }
      scan = end_;
      size_t old_begin = begin_;
      if (!Fill()) {
        if (!error_.ok()) return Outcome::kError;
        if (too_long) {
          record_line_ = line_;
          return Outcome::kTooLong;
        }
        if (end_ <= begin_) return Outcome::kEnd;
      }
      scan -= old_begin - begin_;
    }
  }
}

JsonRecordReader::Outcome JsonRecordReader::Enter() {
  started_ = true;
  if (!SkipSpace()) return error_.ok() ? Outcome::kEnd : Outcome::kError;
  if (buf_.compare(begin_, 3, "\xEF\xBB\xBF") == 0) {
    begin_ += 3;
    if (!SkipSpace()) return error_.ok() ? Outcome::kEnd : Outcome::kError;
  }
  if (framing_ == JsonFraming::kArray) {
    if (buf_[begin_] != '[') {
      bad_reason_ = "input is not a JSON array";
      return Outcome::kBad;
    }
    Advance(begin_ + 1);
    in_array_ = true;
    return Outcome::kRecord;
  }
  // kDocument: walk the top-level keys to the one holding the records.
  if (buf_[begin_] != '{') {
    bad_reason_ = "input is not a JSON object";
    return Outcome::kBad;
  }
  Advance(begin_ + 1);
  for (;;) {
    if (!SkipSpace()) break;
    if (buf_[begin_] == ',') {
      Advance(begin_ + 1);
      continue;
    }
    if (buf_[begin_] == '}') break;
    // The key, then the colon, then the value.
    size_t e;
    while ((e = JsonValueEnd(std::string_view(buf_.data(), end_), begin_)) ==
           std::string_view::npos) {
      if (!Fill()) break;
    }
    if (e == std::string_view::npos) break;
    std::string key(buf_.data() + begin_ + 1, e - begin_ - (e - begin_ >= 2 ? 2 : 1));
    Advance(e);
    if (!SkipSpace() || buf_[begin_] != ':') break;
    Advance(begin_ + 1);
    if (!SkipSpace()) break;
    if (key == document_key_ && buf_[begin_] == '[') {
      Advance(begin_ + 1);
      in_array_ = true;
      return Outcome::kRecord;
    }
    while ((e = JsonValueEnd(std::string_view(buf_.data(), end_), begin_)) ==
           std::string_view::npos) {
      if (end_ - begin_ > max_record_ || !Fill()) break;
    }
    if (e == std::string_view::npos) break;
    Advance(e);
  }
  if (!error_.ok()) return Outcome::kError;
  bad_reason_ = fmt::format("no \"{}\" array in the JSON document", document_key_);
  return Outcome::kBad;
}

JsonRecordReader::Outcome JsonRecordReader::Resync() {
  // Skip to the next line whose first byte opens a value; the broken bytes are one bad record.
  for (;;) {
    for (size_t i = begin_ + 1; i + 1 < end_; ++i) {
      if ((buf_[i] == '\n' || buf_[i] == '\r') && (buf_[i + 1] == '{' || buf_[i + 1] == '[')) {
        Advance(i + 1);
        return Outcome::kBad;
      }
    }
    if (eof_) {
      Advance(end_);
      return Outcome::kBad;
    }
    size_t keep = end_ > begin_ + 1 ? end_ - 1 : begin_;
    Advance(keep);
    if (!Fill()) {
      Advance(end_);
      return error_.ok() ? Outcome::kBad : Outcome::kError;
    }
  }
}

JsonRecordReader::Outcome JsonRecordReader::NextValue(std::string_view* record) {
  for (;;) {
    if (!SkipSpace()) return error_.ok() ? Outcome::kEnd : Outcome::kError;
    char c = buf_[begin_];
    if (in_array_) {
      if (c == ',') {  // between elements (a trailing comma before ']' is tolerated)
        Advance(begin_ + 1);
        continue;
      }
      if (c == ']') {
        Advance(begin_ + 1);
        in_array_ = false;
        if (framing_ == JsonFraming::kDocument) return Outcome::kEnd;  // the rest is not records
        // Another array may follow (paginated dumps concatenated).
        if (!SkipSpace()) return error_.ok() ? Outcome::kEnd : Outcome::kError;
        if (buf_[begin_] == '[') {
          Advance(begin_ + 1);
          in_array_ = true;
          continue;
        }
        record_line_ = line_;
        bad_reason_ = "text after the JSON array";
        Advance(end_);
        while (Fill()) Advance(end_);
        return error_.ok() ? Outcome::kBad : Outcome::kError;
      }
    }
    record_line_ = line_;
    size_t e;
    for (;;) {
      e = JsonValueEnd(std::string_view(buf_.data(), end_), begin_);
      if (e != std::string_view::npos) break;
      if (eof_) {
        if (c != '{' && c != '[' && c != '"') {  // a scalar ending at the end of input
          e = end_;
          break;
        }
        bad_reason_ = "unterminated JSON value";
        Advance(end_);
        return Outcome::kBad;
      }
      if (end_ - begin_ > max_record_) {
        bad_reason_ = fmt::format("JSON record longer than {} bytes", max_record_);
        Outcome o = Resync();
        return o == Outcome::kBad ? Outcome::kTooLong : o;
      }
      if (!Fill()) {
        if (!error_.ok()) return Outcome::kError;
      }
    }
    if (e - begin_ > max_record_) {
      Advance(e);
      return Outcome::kTooLong;
    }
    *record = std::string_view(buf_.data() + begin_, e - begin_);
    Advance(e);
    return Outcome::kRecord;
  }
}

JsonRecordReader::Outcome JsonRecordReader::Next(std::string_view* record) {
  if (!error_.ok()) return Outcome::kError;
  if (framing_ == JsonFraming::kLines) return NextLine(record);
  if (!started_ && (framing_ == JsonFraming::kArray || framing_ == JsonFraming::kDocument)) {
    Outcome o = Enter();
    if (o != Outcome::kRecord) {
      record_line_ = line_;
      return o;
    }
  }
  if (!started_) {
    started_ = true;
    if (SkipSpace() && buf_.compare(begin_, 3, "\xEF\xBB\xBF") == 0) begin_ += 3;
  }
  if ((framing_ == JsonFraming::kArray || framing_ == JsonFraming::kDocument) && !in_array_)
    return Outcome::kEnd;
  return NextValue(record);
}

}  // namespace ltl
