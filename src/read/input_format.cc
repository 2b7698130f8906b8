// Format names and content-based detection (see input_format.h).
#include "read/input_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

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

Result<InputFormat> DetectFormat(std::string_view head, const std::string& name) {
  std::string_view s = head;
  if (s.size() >= 3 && static_cast<unsigned char>(s[0]) == 0xEF &&
      static_cast<unsigned char>(s[1]) == 0xBB && static_cast<unsigned char>(s[2]) == 0xBF)
    s.remove_prefix(3);
  size_t start = s.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos)
    return Status::InvalidArgument(fmt::format("{}:1: input is empty", name));
  s.remove_prefix(start);
  size_t nl = s.find('\n');
  std::string_view first = s.substr(0, nl);
  if (s.front() == '{') {
    // A single JSON document whose top level has "requests" is a cache trace; line-delimited JSON
    // objects are traces or gateway records depending on their keys.
    // A cache trace is often written on one line, so its keys decide before the line formats'.
    if (HasKey(s.substr(0, 1 << 16), "requests") && HasKey(s.substr(0, 1 << 16), "block_size") &&
        !HasKey(first, "messages") && !HasKey(first, "input_length"))
      return InputFormat::kCctrace;
    if (HasKey(first, "chat_id") && HasKey(first, "hash_ids")) return InputFormat::kBailian;
    if (HasKey(first, "hash_ids")) return InputFormat::kMooncake;
    bool one_line_object = nl != std::string_view::npos || first.back() == '}';
    if (HasKey(s.substr(0, 1 << 16), "requests") && HasKey(s.substr(0, 1 << 16), "block_size") &&
        !HasKey(first, "messages"))
      return InputFormat::kCctrace;
    if (one_line_object) return InputFormat::kJsonl;
    return InputFormat::kCctrace;
  }
  // Otherwise a CSV header is expected.
  std::string lower(first);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower.find("request_json") != std::string::npos || lower.find(',') != std::string::npos)
    return InputFormat::kCsv;
  return Status::InvalidArgument(fmt::format(
      "{}:1: cannot tell the format (not JSON lines, not a CSV header); pass --format", name));
}

}  // namespace ltl
