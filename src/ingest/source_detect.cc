// Source detection and nested-record expansion (see source_detect.h).
#include "ingest/source_detect.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <cctype>

#include "common/ascii.h"
#include "common/json_memory.h"
#include "ingest/field_path.h"

namespace ltl {
namespace {

using simdjson::dom::element;

std::string Lower(std::string_view s) {
  return AsciiLowered(s);
}

bool Has(element rec, std::string_view path, JsonScratch* scratch) {
  auto p = ParseFieldPath(path);
  element out;
  return p.ok() && ResolvePath(rec, *p, 0, scratch, &out);
}

bool Matches(const SourceSpec& s, element rec, JsonScratch* scratch) {
  if (s.detect_all.empty() && s.detect_any.empty()) return false;
  for (std::string_view p : s.detect_all)
    if (!Has(rec, p, scratch)) return false;
  if (s.detect_any.empty()) return true;
  for (std::string_view p : s.detect_any)
    if (Has(rec, p, scratch)) return true;
  return false;
}

void Collect(element e, const Paths& keys, size_t k, std::vector<element>* out) {
  if (k == keys.size()) {
    out->push_back(e);
    return;
  }
  simdjson::dom::array arr;
  if (e.at_key(keys[k]).get_array().get(arr)) return;
  for (element x : arr) Collect(x, keys, k + 1, out);
}

std::string KeyList(const SourceSpec& s) {
  std::string keys;
  for (std::string_view p : s.detect_all) {
    if (!keys.empty()) keys.append(", ");
    keys.append(p);
  }
  if (!s.detect_any.empty()) {
    keys.append(keys.empty() ? "one of " : " and one of ");
    for (size_t i = 0; i < s.detect_any.size(); ++i) {
      if (i) keys.push_back('/');
      keys.append(s.detect_any[i]);
    }
  }
  return keys;
}

}  // namespace

SourceChoice DetectJsonSource(std::string_view record) {
  SourceChoice c;
  c.source = FindSource("generic");
  c.reason = "no tool's keys matched the first record: generic gateway source";
  simdjson::dom::parser parser;
  simdjson::padded_string padded = PaddedOrOutOfMemory(record);
  element root;
  if (JsonOrOutOfMemory(parser.parse(padded).get(root))) return c;
  JsonScratch scratch;
  int best = -1000;
  for (const SourceSpec* s : AllSources()) {
    if (!s->json) continue;
    std::vector<element> recs;
    if (s->records_at.empty())
      recs.push_back(root);
    else
      Collect(root, s->records_at, 0, &recs);
    bool hit = false;
    for (element r : recs) {
      scratch.Reset();
      if ((hit = Matches(*s, r, &scratch))) break;
    }
    if (hit && s->priority > best) {
      best = s->priority;
      c.source = s;
      c.reason = fmt::format("the first record has {} ({})", KeyList(*s), s->tool);
    }
  }
  return c;
}

SourceChoice DetectCsvSource(const std::vector<std::string>& names) {
  SourceChoice c;
  c.source = FindSource("generic");
  c.reason = "no tool's columns matched the header: generic gateway source";
  auto has = [&](std::string_view path) {
    std::string whole = Lower(path);
    auto p = ParseFieldPath(path);
    std::string first = p.ok() && !p->segments.empty() ? p->segments[0].lower : whole;
    for (const auto& n : names)
      if (n == whole || n == first) return true;
    return false;
  };
  int best = -1000;
  for (const SourceSpec* s : AllSources()) {
    if (!s->csv || (s->detect_all.empty() && s->detect_any.empty())) continue;
    bool ok = true;
    for (std::string_view p : s->detect_all) ok = ok && has(p);
    if (ok && !s->detect_any.empty()) {
      bool any = false;
      for (std::string_view p : s->detect_any) any = any || has(p);
      ok = any;
    }
    if (ok && s->priority > best) {
      best = s->priority;
      c.source = s;
      c.reason = fmt::format("the CSV header has {} ({})", KeyList(*s), s->tool);
    }
  }
  return c;
}

bool ExpandNestedRecords(const SourceSpec& source, std::string_view value,
                         std::vector<std::string>* out) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded = PaddedOrOutOfMemory(value);
  element root;
  if (JsonOrOutOfMemory(parser.parse(padded).get(root))) return false;
  std::vector<element> recs;
  Collect(root, source.records_at, 0, &recs);
  for (element r : recs) out->push_back(simdjson::to_string(r));
  return true;
}

}  // namespace ltl
