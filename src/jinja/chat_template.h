// ChatTemplate: a Hugging Face chat template (Jinja2) parsed once and rendered per request,
// exactly as transformers' apply_chat_template renders it (utils/chat_template_utils.py,
// _compile_jinja_template at huggingface/transformers@5e43e2e8: ImmutableSandboxedEnvironment
// with trim_blocks=True, lstrip_blocks=True, the loopcontrols extension and {% generation %},
// globals raise_exception and strftime_now, and a tojson filter that is json.dumps with
// ensure_ascii=False / indent / separators / sort_keys).
//
// This folder is a Jinja2 engine written for this purpose: no C++ Jinja library is packaged in
// Debian, and the subset chat templates use is small enough to match Python's Jinja2 byte for
// byte (the oracle tests compare every real template on thousands of requests). Files:
//   lexer.*       tokens (whitespace control, raw, comments)      ast.h       the node tree
//   parser.*      Jinja2's grammar and precedence                  value.*     values, ropes, arena
//   ops.*         Python semantics (str/repr, ==, <, +, in, ...)   json.*      tojson / json.loads
//   evaluator.*   statements, scopes, macros, calls                filters.cc  Jinja2's filters
//   tests.cc      Jinja2's tests    methods.cc  str/dict/list methods    strftime.cc  strftime_now
//   py_unicode.*  Python's Unicode predicates and case mapping     errors.h    TemplateError
//   builtins.*    filter / test name tables                        segment_map.h  provenance
//
// Thread safety: a parsed ChatTemplate is immutable; any number of threads render it at once,
// each with its own ChatTemplateScratch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/segment_map.h"
#include "common/status.h"
#include "jinja/ast.h"
#include "jinja/errors.h"
#include "jinja/value.h"

namespace ltl {

class ChatTemplate;
using ChatTemplatePtr = std::shared_ptr<const ChatTemplate>;

// Why a render failed: the template's own message for raise_exception, else what Jinja2 would
// raise, with the template position. Never contains request text unless the template put it
// into its own raise_exception message.
struct ChatTemplateError {
  ct::ErrorKind kind = ct::ErrorKind::kType;
  std::string message;
  int line = 0, column = 0;
  // kRaised: `message` with every part that is not the template's own literal text replaced by
  // "…" (templates quote roles or contents in their messages, also through '%s' %, format, or a
  // list turned into a string); safe for skip reasons and reports.
  std::string safe_message;
  std::string ToString() const;  // "line L:C: message"
};

// Per-thread state of renders: the arena that holds every value of a render, and the result.
struct ChatTemplateScratch {
  ct::Arena arena;
  std::vector<ct::Piece> pieces;
  std::string text;
  SegmentMap segments;
  ChatTemplateError error;
};

// The variables one render sees (messages, tools, add_generation_prompt, bos_token, ...),
// built in `scratch.arena` (template_messages.h builds them from request bodies).
struct ChatTemplateInput {
  std::vector<std::pair<std::string, ct::Value>> vars;
  int64_t now_unix_seconds = 0;  // what strftime_now() formats
  // Per-render limits (issue 35, item 9; docs/ROBUSTNESS.md), each ending the render with a
  // kLimit error that names it: work steps (every expression and statement evaluated, loop
  // iteration and macro call), and bytes (everything the render allocates, temporaries and the
  // output included; the input built before the render is not counted).
  uint64_t max_steps = 100'000'000;
  size_t max_bytes = size_t{512} << 20;
  void Set(std::string name, const ct::Value& v) { vars.emplace_back(std::move(name), v); }
};

class ChatTemplate {
 public:
  // Parses `source`; a syntax error names the line and column.
  static Result<ChatTemplatePtr> Parse(std::string source);

  // Renders into scratch->text and scratch->segments; false (with scratch->error) when the
  // template raises. The input's values must live in scratch->arena or outlive the call.
  // Does not reset the arena: callers Reset() it before building the next request's input.
  bool Render(const ChatTemplateInput& input, ChatTemplateScratch* scratch) const;

  const std::string& source() const { return source_; }
  // Names the template reads that are not set by it (for reporting which kwargs matter).
  bool UsesName(std::string_view name) const;
  // The parsed tree (read-only), for analyses such as the content-format detection.
  const ct::NodePool& pool() const { return pool_; }

 private:
  ChatTemplate() = default;
  std::string source_;
  ct::NodePool pool_;
  ct::Body body_;
};

}  // namespace ltl
