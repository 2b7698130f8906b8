// Format names and content-based detection (see input_format.h).
#include "read/input_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "common/ascii.h"

namespace ltl {

const char* FormatName(InputFormat f) {
  switch (f) {
    case InputFormat::kAuto:
      return "auto";
    case InputFormat::kMooncake:
      return "mooncake";
    case InputFormat::kBailian:
      return "bailian";
    case InputFormat::kCctrace:
      return "cctrace";
    case InputFormat::kCsv:
      return "csv";
    case InputFormat::kJsonl:
      return "jsonl";
  }
  return "?";
}

Result<InputFormat> ParseFormatName(std::string_view name) {
  for (InputFormat f : {InputFormat::kAuto, InputFormat::kMooncake, InputFormat::kBailian,
                        InputFormat::kCctrace, InputFormat::kCsv, InputFormat::kJsonl})
    if (name == FormatName(f)) return f;
  return Status::InvalidArgument(fmt::format(
      "unknown format '{}' (choose auto, mooncake, bailian, cctrace, csv or jsonl)", name));
}

namespace {

bool HasKey(std::string_view s, std::string_view key) {
  std::string quoted = fmt::format("\"{}\"", key);
  size_t pos = 0;
  while ((pos = s.find(quoted, pos)) != std::string_view::npos) {
    size_t after = pos + quoted.size();
    while (after < s.size() && (s[after] == ' ' || s[after] == '\t')) ++after;
    if (after < s.size() && s[after] == ':') return true;
    pos = after;
  }
  return false;
}

}  // namespace

const std::vector<std::string_view>& RecordArrayKeys() {
  static const std::vector<std::string_view> keys = {"requests", "data",  "logs",
                                                     "records",  "items", "observations"};
  return keys;
}

bool HeadDecides(std::string_view head, bool at_end) {
  if (at_end) return true;
  size_t i = head.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (i < head.size() &&
         (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n'))
    ++i;
  if (i >= head.size()) return false;
  if (head[i] == '{' || head[i] == '[') {
    JsonHead h = DescribeJsonHead(head, RecordArrayKeys());
    // One byte past the value tells a line end from a concatenated value.
    return h.complete && h.first_end + 2 <= head.size();
  }
  return head.find_first_of("\r\n", i) != std::string_view::npos;
}

Result<Detection> DetectFormat(std::string_view head, const std::string& name) {
  std::string_view s = head;
  if (s.size() >= 3 && static_cast<unsigned char>(s[0]) == 0xEF &&
      static_cast<unsigned char>(s[1]) == 0xBB && static_cast<unsigned char>(s[2]) == 0xBF)
    s.remove_prefix(3);
  size_t start = s.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos)
    return Status::InvalidArgument(fmt::format("{}:1: input is empty", name));
  s.remove_prefix(start);
  Detection d;
  if (s.front() == '{' || s.front() == '[') {
    JsonHead h = DescribeJsonHead(head, RecordArrayKeys());
    d.framing = h.framing;
    d.document_key = h.document_key;
    std::string_view first =
        h.complete ? head.substr(h.first_begin, h.first_end - h.first_begin) : s;
    if (s.front() == '[') {
      d.format = InputFormat::kJsonl;
      d.reason = "the input is a JSON array: each element is a gateway record";
      return d;
    }
    // A cache trace is one document per conversation; its keys decide before the line formats'.
    if (HasKey(first, "requests") && HasKey(first, "block_size") && !HasKey(first, "messages") &&
        !HasKey(first, "input_length") && !HasKey(first, "params")) {
      d.format = InputFormat::kCctrace;
      d.framing = JsonFraming::kStream;
      d.reason = "the first JSON document has requests and block_size (a cache trace)";
      return d;
    }
    if (d.framing == JsonFraming::kDocument) {
      d.format = InputFormat::kJsonl;
      d.reason = fmt::format("the input is one JSON document holding its records in a \"{}\" array",
                             d.document_key);
      return d;
    }
    if (HasKey(first, "chat_id") && HasKey(first, "hash_ids")) {
      d.format = InputFormat::kBailian;
      d.reason = "the first record has chat_id and hash_ids (a bailian trace)";
      return d;
    }
    if (HasKey(first, "hash_ids")) {
      d.format = InputFormat::kMooncake;
      d.reason = "the first record has hash_ids (a Mooncake trace)";
      return d;
    }
    if (!h.complete) {
      d.format = InputFormat::kJsonl;
      d.reason = "the first JSON value does not end within the record limit";
      return d;
    }
    d.format = InputFormat::kJsonl;
    d.reason = d.framing == JsonFraming::kLines
                   ? "the first line is one JSON object: gateway records, one per line"
                   : "the first JSON object is followed by another on the same line, spans "
                     "several lines or ends in a lone CR: gateway records read value by value";
    return d;
  }
  // Otherwise a CSV header is expected.
  size_t nl = s.find_first_of("\r\n");
  const std::string lower = AsciiLowered(s.substr(0, nl));
  if (lower.find("request_json") != std::string::npos || lower.find(',') != std::string::npos) {
    d.format = InputFormat::kCsv;
    d.reason = "the first line is a CSV header";
    return d;
  }
  return Status::InvalidArgument(fmt::format(
      "{}:1: cannot tell the format (not JSON lines, not a CSV header); pass --format", name));
}

}  // namespace ltl
