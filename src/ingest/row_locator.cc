// RowLocator (see row_locator.h): source tables compiled into paths, CSV headers mapped onto them,
// and one record's fields found, converted and checked.
#include "ingest/row_locator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>

#include "common/ascii.h"
#include "common/json_memory.h"
#include "ingest/request_assembly.h"
#include "read/json_line.h"
#include "read/timestamp.h"

namespace ltl {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

// LiteLLM's truncation marker anywhere in the record. glibc's memmem rather than
// string_view::find, which stops at every 'l' of the prompt text (memchr + compare: ~2% of a
// worker on agentic logs); same answer.
bool HasTruncationMarker(std::string_view s) {
  static constexpr std::string_view kMarker = "litellm_truncated";
  return s.size() >= kMarker.size() &&
         memmem(s.data(), s.size(), kMarker.data(), kMarker.size()) != nullptr;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

bool ParseDouble(std::string_view s, double* out) {
  s = Trim(s);
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(*out);
}

std::string Lower(std::string_view s) {
  return AsciiLowered(s);
}

Status CompileList(const Paths& paths, CompiledSource::Fields* out) {
  for (std::string_view p : paths) {
    auto fp = ParseFieldPath(p);
    if (!fp.ok()) return fp.status();
    CompiledSource::Field f;
    f.path = std::move(fp).value();
    // Session fields are reported by their header name when they are one (x-session-id ...).
    const char* header = SessionHeaderField(Lower(p));
    // attributes["gen_ai.conversation.id"] is reported as gen_ai.conversation.id.
    std::string name(p);
    if (size_t q = name.rfind("[\""); q != std::string::npos && name.back() == ']')
      name = name.substr(q + 2, name.size() - q - 4);
    f.report_name = header ? header : name;
    out->push_back(std::move(f));
  }
  return Status::Ok();
}

// An override replaces the source's list for that field.
Status CompileWith(const Paths& paths, const std::string& override_path,
                   CompiledSource::Fields* out) {
  if (!override_path.empty()) return CompileList({override_path}, out);
  return CompileList(paths, out);
}

bool IsNonSuccess(int status) {
  return status != 0 && (status < 200 || status > 299);
}

}  // namespace

int ParseStatus(std::string_view text, bool* failed) {
  *failed = false;
  text = Trim(text);
  if (text.empty()) return 0;
  double code;
  if (ParseDouble(text, &code)) return code >= 1 && code < 1000 ? static_cast<int>(code) : 0;
  std::string lower = Lower(text);
  if (lower == "success" || lower == "ok" || lower == "succeeded" || lower == "true") return 200;
  if (lower == "failure" || lower == "failed" || lower == "error" || lower == "fail" ||
      lower == "false")
    *failed = true;
  return 0;
}

namespace {
Result<std::shared_ptr<const CompiledSource>> Compile(const SourceSpec& spec,
                                                      const FieldOverrides& ov);
}  // namespace

Result<std::shared_ptr<const CompiledSource>> CompileSource(const SourceSpec& spec,
                                                            const FieldOverrides& ov) {
  if (ov.any()) return Compile(spec, ov);
  // A source's own table compiles to the same thing every time: once per process (every input
  // of a run over many files, and every fuzz input, would otherwise parse the same paths again).
  static std::mutex mu;
  static std::map<const SourceSpec*, std::shared_ptr<const CompiledSource>> compiled;
  std::lock_guard<std::mutex> lock(mu);
  auto it = compiled.find(&spec);
  if (it != compiled.end()) return it->second;
  auto c = Compile(spec, ov);
  if (c.ok()) compiled.emplace(&spec, *c);
  return c;
}

namespace {
// The fields no command-line option overrides: each compiles from the source's own paths.
struct PlainField {
  Paths SourceSpec::*paths;
  CompiledSource::Fields CompiledSource::*fields;
};
constexpr PlainField kPlainFields[] = {
    {&SourceSpec::tools, &CompiledSource::tools},
    {&SourceSpec::system, &CompiledSource::system},
    {&SourceSpec::response, &CompiledSource::response},
    {&SourceSpec::prompt_tokens, &CompiledSource::prompt_tokens},
    {&SourceSpec::completion_tokens, &CompiledSource::completion_tokens},
    {&SourceSpec::cached_tokens, &CompiledSource::cached_tokens},
    {&SourceSpec::latency_s, &CompiledSource::latency_s},
    {&SourceSpec::latency_ms, &CompiledSource::latency_ms},
    {&SourceSpec::ttft_s, &CompiledSource::ttft_s},
    {&SourceSpec::ttft_ms, &CompiledSource::ttft_ms},
    {&SourceSpec::end_time, &CompiledSource::end_time},
    {&SourceSpec::first_token_time, &CompiledSource::first_token_time},
    {&SourceSpec::server_timing, &CompiledSource::server_timing},
};

Result<std::shared_ptr<const CompiledSource>> Compile(const SourceSpec& spec,
                                                      const FieldOverrides& ov) {
  auto c = std::make_shared<CompiledSource>();
  c->spec = &spec;
  Paths body = spec.body;
  for (std::string_view b : body)
    if (b == "." || b.empty()) c->body_is_record = true;
  body.erase(std::remove_if(body.begin(), body.end(),
                            [](std::string_view b) { return b == "." || b.empty(); }),
             body.end());
  if (!ov.body.empty()) c->body_is_record = ov.body == ".";
  Status st;
  auto add = [&](const Paths& p, const std::string& o, CompiledSource::Fields* f) {
    if (st.ok()) st = CompileWith(p, o, f);
  };
  add(body, ov.body == "." ? std::string() : ov.body, &c->body);
  if (ov.body == ".") c->body.clear();
  add(spec.model, ov.model, &c->model);
  add(spec.status, ov.status, &c->status);
  c->status_overridden = !ov.status.empty();
  add(spec.time, ov.time, &c->time);
  add(spec.session, ov.session, &c->session);
  if (ov.session.empty()) {
    add(spec.session_headers, "", &c->session_headers);
    add(spec.filler_session, "", &c->filler_session);
  }
  for (const PlainField& f : kPlainFields) add(spec.*f.paths, "", &(c.get()->*f.fields));
  if (!spec.kind_field.empty()) add({spec.kind_field}, "", &c->kind);
  if (!st.ok()) return st;
  std::string tried;
  if (c->body_is_record) tried = "messages";
  for (const auto& f : c->body) {
    if (!tried.empty()) tried += ", ";
    tried += f.path.text;
  }
  c->no_body_reason = fmt::format("no request body (looked for {}; --body-field names another)",
                                  tried.empty() ? "nothing" : tried);
  if (!spec.kind_field.empty()) {
    std::string keep;
    for (std::string_view k : spec.kind_keep) {
      if (!keep.empty()) keep.push_back('/');
      keep.append(k);
    }
    c->ignored_reason = fmt::format("{} is not {}", spec.kind_field, keep);
  }
  return std::shared_ptr<const CompiledSource>(std::move(c));
}
}  // namespace

CsvLayout MapCsvHeader(const CompiledSource& s, const std::vector<std::string>& names) {
  CsvLayout layout;
  layout.refs.resize(static_cast<size_t>(FieldId::kCount));
  auto slot_of = [&](size_t col) {
    for (size_t i = 0; i < layout.used.size(); ++i)
      if (layout.used[i] == col) return static_cast<int>(i);
    layout.used.push_back(col);
    return static_cast<int>(layout.used.size() - 1);
  };
  auto find_col = [&](std::string_view lower) -> long {
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == lower) return static_cast<long>(i);
    return -1;
  };
  for (size_t id = 0; id < static_cast<size_t>(FieldId::kCount); ++id) {
    const CompiledSource::Fields* fields = nullptr;
    switch (static_cast<FieldId>(id)) {
      case FieldId::kBody:
        fields = &s.body;
        break;
      case FieldId::kTools:
        fields = &s.tools;
        break;
      case FieldId::kSystem:
        fields = &s.system;
        break;
      case FieldId::kResponse:
        fields = &s.response;
        break;
      case FieldId::kModel:
        fields = &s.model;
        break;
      case FieldId::kStatus:
        fields = &s.status;
        break;
      case FieldId::kTime:
        fields = &s.time;
        break;
      case FieldId::kSession:
        fields = &s.session;
        break;
      case FieldId::kSessionHeaders:
        fields = &s.session_headers;
        break;
      case FieldId::kFillerSession:
        fields = &s.filler_session;
        break;
      case FieldId::kPromptTokens:
        fields = &s.prompt_tokens;
        break;
      case FieldId::kCompletionTokens:
        fields = &s.completion_tokens;
        break;
      case FieldId::kCachedTokens:
        fields = &s.cached_tokens;
        break;
      case FieldId::kLatencyS:
        fields = &s.latency_s;
        break;
      case FieldId::kLatencyMs:
        fields = &s.latency_ms;
        break;
      case FieldId::kTtftS:
        fields = &s.ttft_s;
        break;
      case FieldId::kTtftMs:
        fields = &s.ttft_ms;
        break;
      case FieldId::kEndTime:
        fields = &s.end_time;
        break;
      case FieldId::kFirstTokenTime:
        fields = &s.first_token_time;
        break;
      case FieldId::kServerTiming:
        fields = &s.server_timing;
        break;
      case FieldId::kKind:
        fields = &s.kind;
        break;
      case FieldId::kCount:
        break;
    }
    auto& refs = layout.refs[id];
    for (const auto& f : *fields) {
      CsvLayout::Ref r;
      long col = find_col(Lower(f.path.text));
      if (col >= 0) {
        r.slot = slot_of(static_cast<size_t>(col));
        r.rest = f.path.segments.size();
      } else if (!f.path.segments.empty() && f.path.segments[0].kind == PathSegment::Kind::kKey &&
                 (col = find_col(f.path.segments[0].lower)) >= 0) {
        r.slot = slot_of(static_cast<size_t>(col));
        r.rest = 1;
      }
      refs.push_back(r);
    }
  }
  for (const auto& r : layout.refs[static_cast<size_t>(FieldId::kBody)])
    layout.has_body = layout.has_body || r.slot >= 0;
  return layout;
}

RowLocator::RowLocator(std::shared_ptr<const CompiledSource> source) : source_(std::move(source)) {}

const CompiledSource::Fields& RowLocator::FieldsOf(FieldId id) const {
  const CompiledSource& s = *source_;
  switch (id) {
    case FieldId::kBody:
      return s.body;
    case FieldId::kTools:
      return s.tools;
    case FieldId::kSystem:
      return s.system;
    case FieldId::kResponse:
      return s.response;
    case FieldId::kModel:
      return s.model;
    case FieldId::kStatus:
      return s.status;
    case FieldId::kTime:
      return s.time;
    case FieldId::kSession:
      return s.session;
    case FieldId::kSessionHeaders:
      return s.session_headers;
    case FieldId::kFillerSession:
      return s.filler_session;
    case FieldId::kPromptTokens:
      return s.prompt_tokens;
    case FieldId::kCompletionTokens:
      return s.completion_tokens;
    case FieldId::kCachedTokens:
      return s.cached_tokens;
    case FieldId::kLatencyS:
      return s.latency_s;
    case FieldId::kLatencyMs:
      return s.latency_ms;
    case FieldId::kTtftS:
      return s.ttft_s;
    case FieldId::kTtftMs:
      return s.ttft_ms;
    case FieldId::kEndTime:
      return s.end_time;
    case FieldId::kFirstTokenTime:
      return s.first_token_time;
    case FieldId::kServerTiming:
      return s.server_timing;
    case FieldId::kKind:
    case FieldId::kCount:
      break;
  }
  return s.kind;
}

bool RowLocator::AsJson(const Value& v, element* out) {
  if (v.is_elem) {
    std::string_view s;
    if (v.elem.get_string().get(s)) {
      *out = v.elem;
      return true;
    }
    return ParseEmbeddedJson(s, &scratch_, out);
  }
  if (ParseEmbeddedJson(v.text, &scratch_, out)) return true;
  // Helicone's CSV export doubles the JSON's quotes once more than RFC 4180 undoes.
  if (source_->spec->doubled_quotes && v.text.find("\"\"") != std::string_view::npos) {
    fixed_.clear();
    for (size_t i = 0; i < v.text.size(); ++i) {
      fixed_.push_back(v.text[i]);
      if (v.text[i] == '"' && i + 1 < v.text.size() && v.text[i + 1] == '"') ++i;
    }
    return ParseEmbeddedJson(fixed_, &scratch_, out);
  }
  return false;
}

bool RowLocator::Find(FieldId id, Value* v) {
  const auto& fields = FieldsOf(id);
  for (size_t i = 0; i < fields.size(); ++i) {
    const FieldPath& p = fields[i].path;
    if (csv_) {
      const CsvLayout::Ref& r = layout_->refs[static_cast<size_t>(id)][i];
      if (r.slot < 0) continue;
      std::string_view cell = (*cells_)[static_cast<size_t>(r.slot)];
      if (Trim(cell).empty()) continue;
      if (r.rest >= p.segments.size()) {
        *v = Value();
        v->text = cell;
        found_name_ = fields[i].report_name.c_str();
        return true;
      }
      element j;
      Value cv;
      cv.text = cell;
      if (!AsJson(cv, &j) || !ResolvePath(j, p, r.rest, &scratch_, &v->elem)) continue;
      v->is_elem = true;
      found_name_ = fields[i].report_name.c_str();
      return true;
    }
    element e;
    if (!ResolvePath(root_, p, 0, &scratch_, &e)) continue;
    std::string_view s;
    if (!e.get_string().get(s) && Trim(s).empty()) continue;
    *v = Value();
    v->is_elem = true;
    v->elem = e;
    found_name_ = fields[i].report_name.c_str();
    return true;
  }
  return false;
}

bool RowLocator::FindText(FieldId id, std::string_view* s, const char** name) {
  Value v;
  if (!Find(id, &v)) return false;
  if (name) *name = found_name_;
  if (!v.is_elem) {
    *s = Trim(v.text);
    return !s->empty();
  }
  return !v.elem.get_string().get(*s) && !s->empty();
}

bool RowLocator::FindNumber(FieldId id, double* d) {
  Value v;
  if (!Find(id, &v)) return false;
  std::string_view s;
  if (!v.is_elem) return ParseDouble(v.text, d);
  if (!v.elem.get_double().get(*d)) return std::isfinite(*d);
  return !v.elem.get_string().get(s) && ParseDouble(s, d);
}

bool RowLocator::FindCount(FieldId id, int64_t* n) {
  double d;
  if (!FindNumber(id, &d) || !(d >= 0) || d > 9e18) return false;
  *n = static_cast<int64_t>(d);
  return true;
}

LocateResult RowLocator::LocateJson(std::string_view raw, uint64_t line, LocatedRow* out,
                                    const char** reason) {
  *out = LocatedRow();
  out->line = line;
  scratch_.Reset();
  csv_ = false;
  if (record_buf_.size() < raw.size() + simdjson::SIMDJSON_PADDING)
    record_buf_.resize(raw.size() + simdjson::SIMDJSON_PADDING + raw.size() / 4);
  std::memcpy(record_buf_.data(), raw.data(), raw.size());
  if (auto err = JsonOrOutOfMemory(
          record_parser_.parse(record_buf_.data(), raw.size(), false).get(root_))) {
    *reason = JsonErrorReason(err, "invalid JSON");
    return LocateResult::kSkipped;
  }
  if (!root_.is_object()) {
    *reason = "line is not a JSON object";
    return LocateResult::kSkipped;
  }
  return Finish(out, reason, raw);
}

LocateResult RowLocator::LocateCsv(const CsvLayout& layout,
                                   const std::vector<std::string_view>& cells, uint64_t line,
                                   LocatedRow* out, const char** reason) {
  *out = LocatedRow();
  out->line = line;
  scratch_.Reset();
  csv_ = true;
  layout_ = &layout;
  cells_ = &cells;
  return Finish(out, reason, {});
}

bool RowLocator::Assemble(element found, LocatedRow* out, const char** reason) {
  const SourceSpec& spec = *source_->spec;
  Value tv, sv;
  element tools, system;
  const bool has_tools = Find(FieldId::kTools, &tv) && AsJson(tv, &tools);
  const bool has_system = Find(FieldId::kSystem, &sv) && AsJson(sv, &system);
  bool ok = false;
  switch (spec.shape) {
    case BodyShape::kRequest:
      return true;
    case BodyShape::kMessageList: {
      if (found.is_object()) {  // already a request ({messages, tools})
        if (!has_tools) {
          out->body = found;
          return true;
        }
        element msgs;
        if (found.at_key("messages").get(msgs)) {
          out->body = found;
          return true;
        }
        found = msgs;
      }
      if (!found.is_array()) {
        *reason = "messages is not an array";
        return false;
      }
      AssembleMessageList(found, has_tools ? &tools : nullptr, has_system ? &system : nullptr,
                          &assembled_);
      ok = true;
      break;
    }
    case BodyShape::kOtelParts:
      ok = AssembleOtelParts(found, has_system ? &system : nullptr, has_tools ? &tools : nullptr,
                             &assembled_);
      if (!ok) {
        *reason = "gen_ai.input.messages is not a list of messages with parts";
        return false;
      }
      break;
    case BodyShape::kOtelFlat: {
      simdjson::dom::array attrs;
      if (found.get_array().get(attrs) || !AssembleOtelFlat(attrs, &assembled_)) {
        *reason = "span has no gen_ai.prompt.N attributes";
        return false;
      }
      ok = true;
      break;
    }
  }
  if (ok && scratch_.Parse(assembled_, &out->body)) {
    *reason = "invalid JSON in request body";
    return false;
  }
  return ok;
}

bool RowLocator::FindBody(LocatedRow* out, const char** reason, std::string_view raw) {
  const CompiledSource& s = *source_;
  if (!csv_ && s.body_is_record && s.spec->shape == BodyShape::kRequest &&
      !root_.at_key("messages").error()) {
    out->body = root_;
    out->truncated = HasTruncationMarker(raw);
    return true;
  }
  Value v;
  if (s.spec->shape == BodyShape::kOtelFlat) {
    element attrs;
    FieldPath p;
    p.segments.push_back({PathSegment::Kind::kKey, "attributes", "attributes", 0});
    if (csv_ || !ResolvePath(root_, p, 0, &scratch_, &attrs)) {
      *reason = "span has no attributes";
      return false;
    }
    return Assemble(attrs, out, reason);
  }
  if (!Find(FieldId::kBody, &v)) {
    // A CSV body column that is present but empty.
    if (csv_) {
      for (const auto& r : layout_->refs[static_cast<size_t>(FieldId::kBody)])
        if (r.slot >= 0) {
          *reason = "empty request_json";
          return false;
        }
    }
    *reason = s.no_body_reason.c_str();
    return false;
  }
  element body;
  if (!AsJson(v, &body)) {
    const char* invalid = csv_ ? "invalid JSON in request_json" : "invalid JSON in request body";
    *reason = invalid;
    std::string_view text;
    element dummy;
    if (!v.is_elem)
      text = v.text;
    else if (v.elem.get_string().get(text))
      text = {};
    if (!text.empty())  // the parser's own verdict: invalid UTF-8 and deep nesting say so
      *reason = JsonErrorReason(scratch_.Parse(text, &dummy), invalid);
    if (*reason == std::string_view("invalid JSON")) *reason = invalid;
    return false;
  }
  out->truncated = HasTruncationMarker(!v.is_elem ? v.text : raw);
  simdjson::dom::object holder;
  element inner, headers;
  if (s.spec->shape == BodyShape::kRequest && !body.get_object().get(holder) &&
      holder.at_key("messages").error()) {
    if (holder.size() == 0 && !s.spec->empty_body_reason.empty()) {
      *reason = s.spec->empty_body_reason.data();
      return false;
    }
    // A holder {"body": ..., "headers": ...} (Portkey's request object).
    if (!holder.at_key("body").get(inner) && !inner.is_null()) {
      if (!holder.at_key("headers").get(headers) && headers.is_object())
        FindHeaderSession(headers.get_object().value_unsafe(), &out->session);
      Value iv;
      iv.is_elem = true;
      iv.elem = inner;
      if (!AsJson(iv, &body)) {
        *reason = "invalid JSON in request body";
        return false;
      }
    }
  }
  out->body = body;
  return Assemble(body, out, reason);
}

LocateResult RowLocator::Finish(LocatedRow* out, const char** reason, std::string_view raw) {
  const CompiledSource& s = *source_;
  const SourceSpec& spec = *s.spec;
  // Records of another kind (Langfuse spans and events, OTel spans that are no LLM call).
  if (!s.kind.empty()) {
    std::string_view kind;
    bool keep = false;
    if (FindText(FieldId::kKind, &kind))
      for (std::string_view k : spec.kind_keep) keep = keep || kind == k;
    if (!keep) {
      *reason = s.ignored_reason.c_str();
      return LocateResult::kIgnored;
    }
  }
  // Status first: failed requests are not rendered at all.
  Value sv;
  bool failed = false;
  if (Find(FieldId::kStatus, &sv)) {
    double code;
    std::string_view text;
    bool b;
    const bool is_num = sv.is_elem ? !sv.elem.get_double().get(code) : false;
    if (!sv.is_elem)
      text = sv.text;
    else if (!is_num && sv.elem.get_string().get(text) && !sv.elem.get_bool().get(b))
      text = b ? "true" : "false";
    const StatusKind kind = s.status_overridden ? StatusKind::kHttp : spec.status_kind;
    if (kind == StatusKind::kOtel) {
      if (is_num)
        failed = code == 2;
      else
        failed = Trim(text) == "2" || Trim(text) == "STATUS_CODE_ERROR";
    } else if (kind == StatusKind::kLevel) {
      failed = Lower(Trim(text)) == "error";
    } else if (is_num) {
      out->status = code >= 1 && code < 1000 ? static_cast<int>(code) : 0;
    } else {
      out->status = ParseStatus(text, &failed);
    }
  }
  if (failed || IsNonSuccess(out->status)) return LocateResult::kFiltered;

  if (!FindBody(out, reason, raw)) return LocateResult::kSkipped;

  Value rv;
  element resp;
  if (Find(FieldId::kResponse, &rv) && AsJson(rv, &resp) && resp.is_object()) {
    object ro = resp.get_object().value_unsafe();
    element inner;
    bool usable = true;
    if (ro.at_key("usage").error() && ro.at_key("choices").error() &&
        ro.at_key("content").error() && !ro.at_key("body").get(inner)) {
      Value iv;
      iv.is_elem = true;
      iv.elem = inner;
      // Portkey: response.body. (A default element has no document: never query one.)
      usable = AsJson(iv, &inner) && inner.is_object();
      if (usable) resp = inner;
    }
    if (usable) {
      out->response = resp;
      out->has_response = true;
    }
  }
  FindText(FieldId::kModel, &out->model);

  Value tv;
  if (Find(FieldId::kTime, &tv)) {
    double t;
    std::string_view text = tv.text;
    if (tv.is_elem && !tv.elem.get_double().get(t)) {
      if (std::isfinite(t)) {
        out->time_s = EpochSecondsFromNumber(t);
        out->has_time = true;
      }
    } else if (!tv.is_elem || !tv.elem.get_string().get(text)) {
      if (!ParseTimestamp(Trim(text), &out->time_s)) {
        *reason = "unparseable timestamp";
        return LocateResult::kSkipped;
      }
      out->has_time = true;
    }
  }

  // Session identifiers: the source's session fields, request headers, then the body's own.
  std::string_view sid;
  const char* name = nullptr;
  if (!out->session.field && FindText(FieldId::kSession, &sid, &name)) {
    out->session.field = name;
    out->session.value.assign(sid);
  }
  if (!out->session.field) {
    const auto& fields = s.session_headers;
    for (size_t i = 0; i < fields.size() && !out->session.field; ++i) {
      element h;
      if (csv_) {
        const CsvLayout::Ref& r = layout_->refs[static_cast<size_t>(FieldId::kSessionHeaders)][i];
        Value cv;
        if (r.slot < 0) continue;
        cv.text = (*cells_)[static_cast<size_t>(r.slot)];
        if (!AsJson(cv, &h) || (r.rest < fields[i].path.segments.size() &&
                                !ResolvePath(h, fields[i].path, r.rest, &scratch_, &h)))
          continue;
      } else if (!ResolvePath(root_, fields[i].path, 0, &scratch_, &h)) {
        continue;
      }
      Value hv;
      hv.is_elem = true;
      hv.elem = h;
      if (AsJson(hv, &h) && h.is_object())
        FindHeaderSession(h.get_object().value_unsafe(), &out->session);
    }
  }
  object body_obj;
  if (!out->session.field && !out->body.get_object().get(body_obj))
    FindBodySession(body_obj, &aux_parser_, &out->session);
  if (FindText(FieldId::kFillerSession, &sid, &name)) {
    out->filler.field = name;
    out->filler.value.assign(sid);
  }
  FindCount(FieldId::kPromptTokens, &out->prompt_tokens);
  FindCount(FieldId::kCompletionTokens, &out->completion_tokens);
  FindCount(FieldId::kCachedTokens, &out->cached_tokens);
  return LocateResult::kOk;
}

void RowLocator::LocateTiming(LocatedRow* out) {
  double x;
  if (FindNumber(FieldId::kLatencyS, &x) && x >= 0)
    out->latency_s = x;
  else if (FindNumber(FieldId::kLatencyMs, &x) && x >= 0)
    out->latency_s = x / 1000.0;
  else
    out->bad_latency = FindNumber(FieldId::kLatencyS, &x) || FindNumber(FieldId::kLatencyMs, &x);
  if (FindNumber(FieldId::kTtftS, &x) && x >= 0)
    out->ttft_s = x;
  else if (FindNumber(FieldId::kTtftMs, &x) && x >= 0)
    out->ttft_s = x / 1000.0;
  auto time_of = [&](FieldId id, double* t) {
    Value v;
    if (!Find(id, &v)) return false;
    std::string_view s = v.text;
    if (v.is_elem && !v.elem.get_double().get(*t)) {
      *t = EpochSecondsFromNumber(*t);
      return std::isfinite(*t);
    }
    if (v.is_elem && v.elem.get_string().get(s)) return false;
    return ParseTimestamp(Trim(s), t);
  };
  time_of(FieldId::kEndTime, &out->end_time) || (out->end_time = -1, false);
  time_of(FieldId::kFirstTokenTime, &out->first_token_time) || (out->first_token_time = -1, false);
  std::string_view st;
  if (out->ttft_s < 0 && FindText(FieldId::kServerTiming, &st)) {
    // Server-Timing: "name;dur=123.4, other;dur=5" -> the first duration, in seconds.
    size_t pos = st.find("dur=");
    double ms;
    if (pos != std::string_view::npos) {
      std::string_view rest = st.substr(pos + 4);
      auto r = std::from_chars(rest.data(), rest.data() + rest.size(), ms);
      if (r.ec == std::errc() && std::isfinite(ms) && ms >= 0) out->ttft_s = ms / 1000.0;
    }
  }
}

}  // namespace ltl
