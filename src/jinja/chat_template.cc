// Parse once, render per request (see chat_template.h).
#include "jinja/chat_template.h"

#include <algorithm>

#include "jinja/evaluator.h"
#include "jinja/parser.h"

namespace ltl {

namespace ct {

const char* ErrorKindName(ErrorKind k) {
  switch (k) {
    case ErrorKind::kSyntax:
      return "syntax error";
    case ErrorKind::kUndefined:
      return "undefined";
    case ErrorKind::kType:
      return "type error";
    case ErrorKind::kSecurity:
      return "sandbox";
    case ErrorKind::kRaised:
      return "raise_exception";
    case ErrorKind::kLimit:
      return "limit";
    case ErrorKind::kUnsupported:
      return "unsupported";
  }
  return "error";
}

}  // namespace ct

uint32_t SegmentMap::SegmentAt(size_t offset) const {
  auto it = std::upper_bound(spans.begin(), spans.end(), offset,
                             [](size_t off, const SegmentSpan& s) { return off < s.offset; });
  if (it == spans.begin()) return 0;
  --it;
  return offset < it->offset + it->length ? it->segment : 0;
}

const char* SegmentKindName(SegmentKind k) {
  switch (k) {
    case SegmentKind::kFraming:
      return "framing";
    case SegmentKind::kTools:
      return "tools";
    case SegmentKind::kSystem:
      return "system";
    case SegmentKind::kMessage:
      return "message";
    case SegmentKind::kToolCall:
      return "tool_call";
    case SegmentKind::kToolResult:
      return "tool_result";
    case SegmentKind::kReasoning:
      return "reasoning";
    case SegmentKind::kDocuments:
      return "documents";
    case SegmentKind::kOther:
      return "other";
  }
  return "?";
}

const char* SegmentRoleName(SegmentRole r) {
  switch (r) {
    case SegmentRole::kNone:
      return "";
    case SegmentRole::kSystem:
      return "system";
    case SegmentRole::kDeveloper:
      return "developer";
    case SegmentRole::kUser:
      return "user";
    case SegmentRole::kAssistant:
      return "assistant";
    case SegmentRole::kTool:
      return "tool";
    case SegmentRole::kOther:
      return "other";
  }
  return "?";
}

std::string ChatTemplateError::ToString() const {
  std::string s;
  if (line > 0) s = "line " + std::to_string(line) + ":" + std::to_string(column) + ": ";
  if (kind != ct::ErrorKind::kRaised) s += std::string(ct::ErrorKindName(kind)) + ": ";
  return s + message;
}

Result<ChatTemplatePtr> ChatTemplate::Parse(std::string source) {
  std::shared_ptr<ChatTemplate> t(new ChatTemplate());
  t->source_ = std::move(source);
  try {
    t->body_ = ct::ParseTemplate(t->source_, &t->pool_);
  } catch (const ct::TemplateError& e) {
    ChatTemplateError err{e.kind(), e.message(), e.line(), e.column(), e.safe_message()};
    return Status::InvalidArgument("chat template " + err.ToString());
  }
  return ChatTemplatePtr(std::move(t));
}

bool ChatTemplate::UsesName(std::string_view name) const {
  for (const std::string& n : pool_.names) {
    if (n == name) return true;
  }
  return false;
}

bool ChatTemplate::Render(const ChatTemplateInput& input, ChatTemplateScratch* scratch) const {
  ct::RenderGlobals globals;
  globals.by_id.assign(pool_.names.size(), ct::Value());
  globals.given.assign(pool_.names.size(), false);
  globals.now_unix_seconds = input.now_unix_seconds;
  globals.max_steps = input.max_steps;
  for (const auto& [name, value] : input.vars) {
    for (size_t i = 0; i < pool_.names.size(); ++i) {
      if (pool_.names[i] == name) {
        globals.by_id[i] = value;
        globals.given[i] = true;
      }
    }
  }
  scratch->pieces.clear();
  scratch->text.clear();
  scratch->segments.spans.clear();
  struct BudgetScope {  // the byte budget covers this render only, whichever way it ends
    explicit BudgetScope(ct::Arena* a, size_t bytes) : arena(a) { arena->StartBudget(bytes); }
    ~BudgetScope() { arena->EndBudget(); }
    BudgetScope(const BudgetScope&) = delete;
    BudgetScope& operator=(const BudgetScope&) = delete;
    ct::Arena* arena;
  } budget(&scratch->arena, input.max_bytes);
  try {
    ct::Evaluator ev(pool_, globals, &scratch->arena);
    ev.Run(body_, &scratch->pieces);
  } catch (const ct::TemplateError& e) {
    scratch->error =
        ChatTemplateError{e.kind(), e.message(), e.line(), e.column(), e.safe_message()};
    return false;
  }
  size_t total = 0;
  for (const ct::Piece& p : scratch->pieces) total += p.size;
  scratch->text.reserve(total);
  for (const ct::Piece& p : scratch->pieces) {
    size_t at = scratch->text.size();
    scratch->text.append(p.data, p.size);
    if (p.src == ct::kFraming) continue;
    auto& spans = scratch->segments.spans;
    if (!spans.empty() && spans.back().segment == p.src &&
        spans.back().offset + spans.back().length == at) {
      spans.back().length += p.size;
    } else {
      spans.push_back(SegmentSpan{at, p.size, p.src});
    }
  }
  return true;
}

}  // namespace ltl
