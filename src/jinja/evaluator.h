// Evaluator: runs a parsed template over the render's globals and writes the output as pieces.
// Scoping follows Jinja2: the template's top level is one frame, every for-loop iteration and
// every macro / caller call gets a fresh frame whose parent is where it was defined (so a macro
// sees the template's variables as they are when it is called, not the caller's locals);
// `set` writes the innermost frame; namespace() objects are the only mutable values.
// Internal to src/jinja/ (tests/build/internal_headers.cmake).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "jinja/ast.h"
#include "jinja/call_args.h"
#include "jinja/ops.h"
#include "jinja/value.h"

namespace ltl::ct {

struct Frame;

struct MacroDef {
  const Node* node = nullptr;  // kMacro or kCallBlock (caller)
  Frame* closure = nullptr;
  const char* name = "";
};

struct LoopState {
  const Value* items = nullptr;
  size_t length = 0, index = 0;
  int depth = 1;
  bool has_changed = false;
  Value last_changed;
};

// Evaluation nesting: Eval/ExecNode levels, and native stack bytes below Run's frame (threads
// have 8 MiB; see DepthGuard in evaluator.cc). docs/ROBUSTNESS.md lists every limit.
constexpr int kMaxEvalDepth = 2000;
constexpr uintptr_t kMaxEvalStackBytes = 4u << 20;

struct RenderGlobals {
  // Template globals by name id (the template's interned names); kUndefined when not given.
  std::vector<Value> by_id;
  std::vector<bool> given;
  int64_t now_unix_seconds = 0;  // strftime_now() formats this instant (UTC)
  // Work: every expression and statement evaluated, loop iteration and macro call is one step.
  uint64_t max_steps = 100'000'000;
};

class Evaluator {
 public:
  Evaluator(const NodePool& pool, const RenderGlobals& globals, Arena* arena);

  // Renders `body` into `out`. Throws TemplateError with the failing node's position.
  void Run(const Body& body, std::vector<Piece>* out);

  Arena* arena() const { return arena_; }
  // Calls a callable value (macro, built-in, bound method) with evaluated arguments.
  Value CallValue(const Value& callee, const CallArgs& args);
  // Filters and tests by id, for filters that take other filters/tests (map, select, ...).
  Value ApplyFilterById(int id, const Value& input, const CallArgs& args);
  bool ApplyTestById(int id, const Value& input, const CallArgs& args);

 private:
  enum class Flow { kNormal, kBreak, kContinue };

  Flow Exec(const Body& body);
  Flow ExecNode(const Node* n);
  Flow ExecFor(const Node* n);
  void ExecAssign(const Node* target, const Value& v);
  void Emit(const Value& v);

  Value Eval(const Node* n);
  Value EvalCall(const Node* n);
  Value EvalFilter(const Node* n);
  bool EvalTest(const Node* n);
  Value Lookup(int name_id, const Node* at);
  void EvalArgs(const Node* n, size_t first_kid, CallArgs* args);

  Value CallMacro(const MacroDef* m, const CallArgs& args, const Value* caller);
  Value CallBuiltin(const Callable* c, const CallArgs& args);
  Value Capture(const Body& body, Frame* frame);

  Frame* NewFrame(Frame* parent);
  void SetVar(Frame* f, int name_id, const Value& v);
  Value LoopAttr(LoopState* loop, std::string_view name);

  const NodePool& pool_;
  const RenderGlobals& globals_;
  Arena* arena_;
  std::vector<Piece>* out_ = nullptr;
  Frame* frame_ = nullptr;
  const Value* filter_base_ = nullptr;  // the captured body in filter blocks / block sets
  int depth_ = 0;
  uint64_t steps_ = 0;
  int eval_depth_ = 0;
  uintptr_t stack_base_ = 0;
  void Step();
  class DepthGuard;
  std::vector<int> builtin_of_name_;  // name id -> BuiltinFn + 1, or 0
  int loop_id_, caller_id_, varargs_id_, kwargs_id_;
};

}  // namespace ltl::ct
