// Tree-walking interpreter for parsed chat templates (see evaluator.h).
#include "jinja/evaluator.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "jinja/builtins.h"
#include "jinja/errors.h"
#include "jinja/library.h"

namespace ltl::ct {

struct Frame {
  Frame* parent = nullptr;
  struct Var {
    int id;
    Value value;
  };
  Var* vars = nullptr;
  uint32_t n = 0, cap = 0;
};

namespace {

constexpr int kMaxDepth = 200;  // macro / caller nesting (Python would hit its recursion limit)
constexpr int64_t kMaxRange = 100000;  // jinja2.sandbox.MAX_RANGE

struct BuiltinName {
  const char* name;
  BuiltinFn fn;
};
const BuiltinName kBuiltins[] = {
    {"range", BuiltinFn::kRange},
    {"namespace", BuiltinFn::kNamespace},
    {"dict", BuiltinFn::kDict},
    {"raise_exception", BuiltinFn::kRaiseException},
    {"strftime_now", BuiltinFn::kStrftimeNow},
    {"lipsum", BuiltinFn::kLipsum},
    {"cycler", BuiltinFn::kCycler},
    {"joiner", BuiltinFn::kJoiner},
};

}  // namespace

Evaluator::Evaluator(const NodePool& pool, const RenderGlobals& globals, Arena* arena)
    : pool_(pool), globals_(globals), arena_(arena) {
  builtin_of_name_.assign(pool.names.size(), 0);
  loop_id_ = caller_id_ = varargs_id_ = kwargs_id_ = -1;
  for (size_t i = 0; i < pool.names.size(); ++i) {
    const std::string& n = pool.names[i];
    for (const BuiltinName& b : kBuiltins) {
      if (n == b.name) builtin_of_name_[i] = static_cast<int>(b.fn) + 1;
    }
    if (n == "loop") loop_id_ = static_cast<int>(i);
    if (n == "caller") caller_id_ = static_cast<int>(i);
    if (n == "varargs") varargs_id_ = static_cast<int>(i);
    if (n == "kwargs") kwargs_id_ = static_cast<int>(i);
  }
}

// Nesting of Eval/ExecNode calls: each level is one native frame, so an expression 50,000 `+`
// deep or nested macro calls would overflow the thread's stack (issue 35, item 3: a segfault).
// The count bounds it where frames have their release size; the stack bytes bound it wherever
// frames are larger (sanitizers): whichever comes first ends the render with a kLimit error, as
// Jinja2 ends with RecursionError.
class Evaluator::DepthGuard {
 public:
  explicit DepthGuard(Evaluator* e) : e_(e) {
    e_->Step();
    const auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
    if (++e_->eval_depth_ > kMaxEvalDepth ||
        (here < e_->stack_base_ && e_->stack_base_ - here > kMaxEvalStackBytes)) {
      --e_->eval_depth_;
      Fail(ErrorKind::kLimit, "template nested too deeply (evaluation depth limit)");
    }
  }
  ~DepthGuard() { --e_->eval_depth_; }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;

 private:
  Evaluator* e_;
};

void Evaluator::Run(const Body& body, std::vector<Piece>* out) {
  stack_base_ = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  out_ = out;
  frame_ = NewFrame(nullptr);
  Exec(body);
}

void Evaluator::Step() {
  if (++steps_ > globals_.max_steps)
    Fail(ErrorKind::kLimit, "template ran too long (work step limit)");
}

Frame* Evaluator::NewFrame(Frame* parent) {
  Frame* f = arena_->New<Frame>();
  f->parent = parent;
  return f;
}

void Evaluator::SetVar(Frame* f, int name_id, const Value& v) {
  for (uint32_t i = 0; i < f->n; ++i) {
    if (f->vars[i].id == name_id) {
      f->vars[i].value = v;
      return;
    }
  }
  if (f->n == f->cap) {
    uint32_t ncap = f->cap ? f->cap * 2 : 4;
    auto* nv =
        static_cast<Frame::Var*>(arena_->Alloc(sizeof(Frame::Var) * ncap, alignof(Frame::Var)));
    if (f->n) std::memcpy(static_cast<void*>(nv), f->vars, sizeof(Frame::Var) * f->n);
    f->vars = nv;
    f->cap = ncap;
  }
  f->vars[f->n].id = name_id;
  f->vars[f->n].value = v;
  ++f->n;
}

Value Evaluator::Lookup(int name_id, const Node* at) {
  for (Frame* f = frame_; f; f = f->parent) {
    for (uint32_t i = 0; i < f->n; ++i) {
      if (f->vars[i].id == name_id) return f->vars[i].value;
    }
  }
  if (static_cast<size_t>(name_id) < globals_.given.size() && globals_.given[name_id]) {
    return globals_.by_id[name_id];
  }
  if (int b = builtin_of_name_[name_id]) {
    Callable* c = arena_->New<Callable>();
    c->kind = CallableKind::kBuiltin;
    c->builtin = static_cast<BuiltinFn>(b - 1);
    c->name = kBuiltins[b - 1].name;
    return Value::Fn(c);
  }
  (void)at;
  return MakeUndefined(arena_, "'" + pool_.names[name_id] + "' is undefined");
}

// --- statements -------------------------------------------------------------------------------

Evaluator::Flow Evaluator::Exec(const Body& body) {
  for (const Node* n : body) {
    Flow f = ExecNode(n);
    if (f != Flow::kNormal) return f;
  }
  return Flow::kNormal;
}

void Evaluator::Emit(const Value& v) {
  if (v.kind == Kind::kUndefined) return;
  const Value s = v.kind == Kind::kString ? v : ToStringValue(v, arena_);
  // The output is copied into one text at the end: its bytes count against the render's budget
  // like any allocation (a 200 MB string printed in a loop would otherwise fill the memory).
  arena_->Charge(s.size + (s.rope ? s.r->count : 1) * sizeof(Piece));
  AppendPieces(s, out_);
}

Evaluator::Flow Evaluator::ExecNode(const Node* n) {
  DepthGuard guard(this);
  try {
    switch (n->kind) {
      case NodeKind::kOutput:
        for (const Node* k : n->kids) {
          if (k->kind == NodeKind::kTemplateData) {
            arena_->Charge(k->name.size() + sizeof(Piece));
            out_->push_back(Piece{k->name.data(), static_cast<uint32_t>(k->name.size()), kFraming});
          } else {
            Emit(Eval(k));
          }
        }
        return Flow::kNormal;
      case NodeKind::kIf:
        for (size_t i = 0; i < n->kids.size(); ++i) {
          if (Truthy(Eval(n->kids[i]))) return Exec(n->bodies[i]);
        }
        return Exec(n->else_body);
      case NodeKind::kFor:
        return ExecFor(n);
      case NodeKind::kAssign:
        ExecAssign(n->kids[0], Eval(n->kids[1]));
        return Flow::kNormal;
      case NodeKind::kAssignBlock: {
        Value captured = Capture(n->body, frame_);
        if (n->kids[1]) {
          const Value* saved = filter_base_;
          filter_base_ = &captured;
          captured = Eval(n->kids[1]);
          filter_base_ = saved;
        }
        ExecAssign(n->kids[0], captured);
        return Flow::kNormal;
      }
      case NodeKind::kMacro: {
        MacroDef* m = arena_->New<MacroDef>();
        m->node = n;
        m->closure = frame_;
        m->name = n->name.c_str();
        Callable* c = arena_->New<Callable>();
        c->kind = CallableKind::kMacro;
        c->macro = m;
        c->name = m->name;
        SetVar(frame_, n->name_id, Value::Fn(c));
        return Flow::kNormal;
      }
      case NodeKind::kCallBlock: {
        MacroDef* m = arena_->New<MacroDef>();
        m->node = n;
        m->closure = frame_;
        m->name = "caller";
        Callable* c = arena_->New<Callable>();
        c->kind = CallableKind::kMacro;
        c->macro = m;
        c->name = "caller";
        const Node* call = n->kids[0];
        Value callee = Eval(call->kids[0]);
        CallArgs args;
        EvalArgs(call, 1, &args);
        args.kw.emplace_back("caller", Value::Fn(c));
        Emit(CallValue(callee, args));
        return Flow::kNormal;
      }
      case NodeKind::kFilterBlock: {
        Value captured = Capture(n->body, frame_);
        const Value* saved = filter_base_;
        filter_base_ = &captured;
        Value result = Eval(n->kids[0]);
        filter_base_ = saved;
        Emit(result);
        return Flow::kNormal;
      }
      case NodeKind::kWith: {
        Frame* f = NewFrame(frame_);
        for (size_t i = 0; i + 1 < n->kids.size(); i += 2) {
          Value v = Eval(n->kids[i + 1]);  // values see the outer scope
          Frame* saved = frame_;
          frame_ = f;
          ExecAssign(n->kids[i], v);
          frame_ = saved;
        }
        Frame* saved = frame_;
        frame_ = f;
        Flow flow = Exec(n->body);
        frame_ = saved;
        return flow;
      }
      case NodeKind::kBreak:
        return Flow::kBreak;
      case NodeKind::kContinue:
        return Flow::kContinue;
      case NodeKind::kScopeBody:
        return Exec(n->body);
      default:
        Fail(ErrorKind::kUnsupported, "unexpected statement");
    }
  } catch (TemplateError& e) {
    if (!e.has_position()) e.SetPosition(n->line, n->column);
    throw;
  }
}

Evaluator::Flow Evaluator::ExecFor(const Node* n) {
  Value iterable = Eval(n->kids[1]);
  std::vector<Value> items;
  PyIterate(iterable, arena_, &items);
  const Node* target = n->kids[0];
  const Node* test = n->kids[2];
  if (test) {
    std::vector<Value> kept;
    for (const Value& item : items) {
      Frame* f = NewFrame(frame_);
      Frame* saved = frame_;
      frame_ = f;
      ExecAssign(target, item);
      bool ok = Truthy(Eval(test));
      frame_ = saved;
      if (ok) kept.push_back(item);
    }
    items.swap(kept);
  }
  if (items.empty()) return Exec(n->else_body);
  // The items must outlive this call only while the loop runs; keep them in the arena so a
  // captured `loop` (rare) never dangles.
  Value* stable = arena_->NewArray<Value>(items.size());
  std::copy(items.begin(), items.end(), stable);
  LoopState* loop = arena_->New<LoopState>();
  loop->items = stable;
  loop->length = items.size();
  int outer_depth = 0;
  if (loop_id_ >= 0) {
    Value outer = Lookup(loop_id_, n);
    if (outer.kind == Kind::kLoop) outer_depth = outer.loop->depth;
  }
  loop->depth = outer_depth + 1;
  Value loop_value;
  loop_value.kind = Kind::kLoop;
  loop_value.loop = loop;
  Frame* saved = frame_;
  for (size_t i = 0; i < items.size(); ++i) {
    Step();
    loop->index = i;
    frame_ = NewFrame(saved);
    if (loop_id_ >= 0) SetVar(frame_, loop_id_, loop_value);
    ExecAssign(target, stable[i]);
    Flow f;
    try {
      f = Exec(n->body);
    } catch (...) {
      frame_ = saved;
      throw;
    }
    frame_ = saved;
    if (f == Flow::kBreak) break;
  }
  return Flow::kNormal;
}

void Evaluator::ExecAssign(const Node* target, const Value& v) {
  switch (target->kind) {
    case NodeKind::kName:
      SetVar(frame_, target->name_id, v);
      return;
    case NodeKind::kNSRef: {
      Value ns = Lookup(target->name_id, target);
      if (ns.kind != Kind::kNamespace) {
        throw TemplateError(ErrorKind::kType, "cannot assign attribute on non-namespace object",
                            target->line, target->column);
      }
      ns.dict->Set(arena_, Value::Str(target->name), v);
      return;
    }
    case NodeKind::kTuple: {
      std::vector<Value> items;
      PyIterate(v, arena_, &items);
      if (items.size() != target->kids.size()) {
        if (items.size() > target->kids.size()) {
          TypeFail("too many values to unpack (expected " + std::to_string(target->kids.size()) +
                   ")");
        }
        TypeFail("not enough values to unpack (expected " + std::to_string(target->kids.size()) +
                 ", got " + std::to_string(items.size()) + ")");
      }
      for (size_t i = 0; i < items.size(); ++i) ExecAssign(target->kids[i], items[i]);
      return;
    }
    default:
      Fail(ErrorKind::kSyntax, "can't assign to this target");
  }
}

Value Evaluator::Capture(const Body& body, Frame* frame) {
  std::vector<Piece> pieces;
  std::vector<Piece>* saved_out = out_;
  Frame* saved_frame = frame_;
  out_ = &pieces;
  frame_ = frame;
  try {
    Exec(body);
  } catch (...) {
    out_ = saved_out;
    frame_ = saved_frame;
    throw;
  }
  out_ = saved_out;
  frame_ = saved_frame;
  return MakeString(arena_, pieces.data(), pieces.size());
}

// --- expressions ------------------------------------------------------------------------------

Value Evaluator::Eval(const Node* n) {
  DepthGuard guard(this);
  try {
    switch (n->kind) {
      case NodeKind::kConst:
        return n->constant;
      case NodeKind::kName:
        return Lookup(n->name_id, n);
      case NodeKind::kGetattr: {
        Value obj = Eval(n->kids[0]);
        if (obj.kind == Kind::kLoop) return LoopAttr(obj.loop, n->name);
        return GetAttr(obj, n->name, arena_);
      }
      case NodeKind::kGetitem: {
        Value obj = Eval(n->kids[0]);
        const Node* key = n->kids[1];
        if (key->kind == NodeKind::kSlice) {
          Value parts[3];
          for (int i = 0; i < 3; ++i) {
            if (key->kids[i]) parts[i] = Eval(key->kids[i]);
          }
          if (obj.is_undefined()) FailUndefined(obj);
          return SliceValue(obj, parts[0], parts[1], parts[2], arena_);
        }
        Value k = Eval(key);
        if (obj.kind == Kind::kLoop && k.kind == Kind::kString) {
          return LoopAttr(obj.loop, StrView(k, arena_));
        }
        return GetItem(obj, k, arena_);
      }
      case NodeKind::kCall:
        return EvalCall(n);
      case NodeKind::kFilter:
        return EvalFilter(n);
      case NodeKind::kTest:
        return Value::Bool(EvalTest(n));
      case NodeKind::kNot:
        return Value::Bool(!Truthy(Eval(n->kids[0])));
      case NodeKind::kNeg:
        return PyNegate(Eval(n->kids[0]), true);
      case NodeKind::kPos:
        return PyNegate(Eval(n->kids[0]), false);
      case NodeKind::kBinary: {
        Value a = Eval(n->kids[0]);
        Value b = Eval(n->kids[1]);
        return PyBinary(n->binop, a, b, arena_);
      }
      case NodeKind::kConcat: {
        std::vector<Piece> pieces;
        for (const Node* k : n->kids) AppendPieces(ToStringValue(Eval(k), arena_), &pieces);
        return MakeString(arena_, pieces.data(), pieces.size());
      }
      case NodeKind::kCompare: {
        Value left = Eval(n->kids[0]);
        for (size_t i = 0; i < n->cmp_ops.size(); ++i) {
          Value right = Eval(n->kids[i + 1]);
          if (!PyCompare(n->cmp_ops[i], left, right, arena_)) return Value::Bool(false);
          left = right;
        }
        return Value::Bool(true);
      }
      case NodeKind::kAnd: {
        Value a = Eval(n->kids[0]);
        return Truthy(a) ? Eval(n->kids[1]) : a;
      }
      case NodeKind::kOr: {
        Value a = Eval(n->kids[0]);
        return Truthy(a) ? a : Eval(n->kids[1]);
      }
      case NodeKind::kCondExpr:
        if (Truthy(Eval(n->kids[0]))) return Eval(n->kids[1]);
        if (n->kids[2]) return Eval(n->kids[2]);
        return MakeUndefined(arena_, "the inline if-expression on line " + std::to_string(n->line) +
                                         " evaluated to false and no else section was defined.");
      case NodeKind::kList:
      case NodeKind::kTuple: {
        List* l = arena_->New<List>();
        l->is_tuple = n->kind == NodeKind::kTuple;
        for (const Node* k : n->kids) l->Push(arena_, Eval(k));
        return Value::ListOf(l);
      }
      case NodeKind::kDict: {
        Dict* d = arena_->New<Dict>();
        for (size_t i = 0; i + 1 < n->kids.size(); i += 2) {
          Value k = Eval(n->kids[i]);
          if (k.kind == Kind::kList && !k.list->is_tuple) TypeFail("unhashable type: 'list'");
          if (k.kind == Kind::kDict) TypeFail("unhashable type: 'dict'");
          d->Set(arena_, k, Eval(n->kids[i + 1]));
        }
        return Value::DictOf(d);
      }
      default:
        Fail(ErrorKind::kUnsupported, "unexpected expression");
    }
  } catch (TemplateError& e) {
    if (!e.has_position()) e.SetPosition(n->line, n->column);
    throw;
  }
}

void Evaluator::EvalArgs(const Node* n, size_t first_kid, CallArgs* args) {
  for (size_t i = first_kid; i < n->kids.size(); ++i) args->pos.push_back(Eval(n->kids[i]));
  for (const Keyword& kw : n->kwargs) args->kw.emplace_back(kw.name, Eval(kw.value));
  if (n->dyn_args) {
    Value extra = Eval(n->dyn_args);
    std::vector<Value> items;
    PyIterate(extra, arena_, &items);
    args->pos.insert(args->pos.end(), items.begin(), items.end());
  }
  if (n->dyn_kwargs) {
    Value extra = Eval(n->dyn_kwargs);
    if (extra.kind != Kind::kDict) TypeFail("argument after ** must be a mapping");
    for (size_t i = 0; i < extra.dict->size; ++i) {
      const DictEntry& e = extra.dict->entries[i];
      if (e.key.kind != Kind::kString) TypeFail("keywords must be strings");
      args->kw.emplace_back(StrView(e.key, arena_), e.value);
    }
  }
}

Value Evaluator::EvalCall(const Node* n) {
  Value callee = Eval(n->kids[0]);
  CallArgs args;
  EvalArgs(n, 1, &args);
  return CallValue(callee, args);
}

Value Evaluator::EvalFilter(const Node* n) {
  Value input;
  if (n->kids[0]) {
    input = Eval(n->kids[0]);
  } else if (filter_base_) {
    input = *filter_base_;
  }
  CallArgs args;
  EvalArgs(n, 1, &args);
  return ApplyFilter(static_cast<FilterId>(n->name_id), input, args, this);
}

bool Evaluator::EvalTest(const Node* n) {
  Value input = Eval(n->kids[0]);
  CallArgs args;
  EvalArgs(n, 1, &args);
  return ApplyTest(static_cast<TestId>(n->name_id), input, args, this);
}

Value Evaluator::ApplyFilterById(int id, const Value& input, const CallArgs& args) {
  return ApplyFilter(static_cast<FilterId>(id), input, args, this);
}

bool Evaluator::ApplyTestById(int id, const Value& input, const CallArgs& args) {
  return ApplyTest(static_cast<TestId>(id), input, args, this);
}

Value Evaluator::LoopAttr(LoopState* loop, std::string_view name) {
  size_t i = loop->index, n = loop->length;
  if (name == "index") return Value::Int(static_cast<int64_t>(i + 1));
  if (name == "index0") return Value::Int(static_cast<int64_t>(i));
  if (name == "revindex") return Value::Int(static_cast<int64_t>(n - i));
  if (name == "revindex0") return Value::Int(static_cast<int64_t>(n - i - 1));
  if (name == "first") return Value::Bool(i == 0);
  if (name == "last") return Value::Bool(i + 1 == n);
  if (name == "length") return Value::Int(static_cast<int64_t>(n));
  if (name == "depth") return Value::Int(loop->depth);
  if (name == "depth0") return Value::Int(loop->depth - 1);
  if (name == "previtem") {
    if (i == 0) return MakeUndefined(arena_, "there is no previous item");
    return loop->items[i - 1];
  }
  if (name == "nextitem") {
    if (i + 1 >= n) return MakeUndefined(arena_, "there is no next item");
    return loop->items[i + 1];
  }
  if (name == "cycle" || name == "changed") {
    Callable* c = arena_->New<Callable>();
    c->kind = name == "cycle" ? CallableKind::kLoopCycle : CallableKind::kLoopChanged;
    c->loop = loop;
    c->name = name == "cycle" ? "cycle" : "changed";
    return Value::Fn(c);
  }
  return MakeUndefined(arena_, "'LoopContext object' has no attribute '" + std::string(name) + "'");
}

// --- calls ------------------------------------------------------------------------------------

Value Evaluator::CallValue(const Value& callee, const CallArgs& args) {
  if (callee.kind == Kind::kUndefined) FailUndefined(callee);
  if (callee.kind != Kind::kCallable) {
    TypeFail(std::string("'") + TypeName(callee) + "' object is not callable");
  }
  const Callable* c = callee.fn;
  switch (c->kind) {
    case CallableKind::kMacro: {
      const Value* caller = nullptr;
      CallArgs rest;
      rest.pos = args.pos;
      for (const auto& [k, v] : args.kw) {
        if (k == "caller" && c->macro->node->kind == NodeKind::kMacro) {
          caller = &v;
        } else {
          rest.kw.emplace_back(k, v);
        }
      }
      return CallMacro(c->macro, rest, caller);
    }
    case CallableKind::kBuiltin:
      return CallBuiltin(c, args);
    case CallableKind::kMethod:
      return CallMethod(c->method, c->self, args, arena_);
    case CallableKind::kLoopCycle: {
      if (args.pos.empty()) TypeFail("no items for cycling given");
      return args.pos[c->loop->index % args.pos.size()];
    }
    case CallableKind::kLoopChanged: {
      List* l = arena_->New<List>();
      l->is_tuple = true;
      for (const Value& v : args.pos) l->Push(arena_, v);
      Value now = Value::ListOf(l);
      LoopState* loop = c->loop;
      if (!loop->has_changed || !PyEquals(loop->last_changed, now, arena_)) {
        loop->has_changed = true;
        loop->last_changed = now;
        return Value::Bool(true);
      }
      return Value::Bool(false);
    }
    case CallableKind::kJoiner: {
      Callable* mut = const_cast<Callable*>(c);
      if (mut->state++ == 0) return Value::Str(std::string_view(""));
      return mut->self;
    }
    case CallableKind::kCycler:
      Fail(ErrorKind::kUnsupported, "cycler() is not supported");
  }
  TypeFail("object is not callable");
}

Value Evaluator::CallMacro(const MacroDef* m, const CallArgs& args, const Value* caller) {
  const Node* def = m->node;
  Step();
  if (++depth_ > kMaxDepth) {
    --depth_;
    Fail(ErrorKind::kLimit, "macro calls nested too deeply");
  }
  Frame* f = NewFrame(m->closure);
  size_t np = def->params.size();
  size_t first_default = np - def->defaults.size();
  std::vector<bool> bound(np, false);
  List* varargs = nullptr;
  for (size_t i = 0; i < args.pos.size(); ++i) {
    if (i < np) {
      SetVar(f, def->params[i], args.pos[i]);
      bound[i] = true;
    } else if (def->uses_varargs) {
      if (!varargs) varargs = arena_->New<List>();
      varargs->Push(arena_, args.pos[i]);
    } else {
      --depth_;
      TypeFail("macro '" + std::string(m->name) + "' takes not more than " + std::to_string(np) +
               " argument(s)");
    }
  }
  Dict* kwargs = nullptr;
  for (const auto& [k, v] : args.kw) {
    size_t i = 0;
    while (i < np && def->param_names[i] != k) ++i;
    if (i < np) {
      if (bound[i]) {
        --depth_;
        TypeFail("macro '" + std::string(m->name) + "' got multiple values for argument '" +
                 std::string(k) + "'");
      }
      SetVar(f, def->params[i], v);
      bound[i] = true;
    } else if (def->uses_kwargs) {
      if (!kwargs) kwargs = arena_->New<Dict>();
      kwargs->Set(arena_, Value::Str(k), v);
    } else {
      --depth_;
      TypeFail("macro '" + std::string(m->name) + "' takes no keyword argument '" + std::string(k) +
               "'");
    }
  }
  if (caller && !def->uses_caller) {
    --depth_;
    TypeFail("macro '" + std::string(m->name) + "' takes no keyword argument 'caller'");
  }
  Frame* saved = frame_;
  frame_ = f;
  try {
    for (size_t i = 0; i < np; ++i) {
      if (bound[i]) continue;
      if (i >= first_default) {
        SetVar(f, def->params[i], Eval(def->defaults[i - first_default]));
      } else {
        SetVar(f, def->params[i],
               MakeUndefined(arena_, "parameter '" + def->param_names[i] + "' was not provided"));
      }
    }
  } catch (...) {
    frame_ = saved;
    --depth_;
    throw;
  }
  frame_ = saved;
  if (varargs_id_ >= 0 && def->uses_varargs) {
    SetVar(f, varargs_id_, Value::ListOf(varargs ? varargs : arena_->New<List>()));
  }
  if (kwargs_id_ >= 0 && def->uses_kwargs) {
    SetVar(f, kwargs_id_, Value::DictOf(kwargs ? kwargs : arena_->New<Dict>()));
  }
  if (caller_id_ >= 0 && def->uses_caller) {
    SetVar(f, caller_id_, caller ? *caller : MakeUndefined(arena_, "No caller defined"));
  }
  Value result;
  try {
    result = Capture(def->body, f);
  } catch (...) {
    --depth_;
    throw;
  }
  --depth_;
  return result;
}

Value Evaluator::CallBuiltin(const Callable* c, const CallArgs& args) {
  switch (c->builtin) {
    case BuiltinFn::kRange: {
      if (!args.kw.empty()) TypeFail("range() takes no keyword arguments");
      if (args.pos.empty() || args.pos.size() > 3) {
        TypeFail("range expected at most 3 arguments, got " + std::to_string(args.pos.size()));
      }
      int64_t v[3] = {0, 0, 1};
      for (size_t i = 0; i < args.pos.size(); ++i) {
        if (!AsIndex(args.pos[i], &v[i])) {
          TypeFail(std::string("'") + TypeName(args.pos[i]) +
                   "' object cannot be interpreted as an integer");
        }
      }
      int64_t start = 0, stop, step = 1;
      if (args.pos.size() == 1) {
        stop = v[0];
      } else {
        start = v[0];
        stop = v[1];
        if (args.pos.size() == 3) step = v[2];
      }
      if (step == 0) TypeFail("range() arg 3 must not be zero");
      int64_t count = 0;
      if (step > 0 && start < stop) count = (stop - start + step - 1) / step;
      if (step < 0 && start > stop) count = (start - stop - step - 1) / -step;
      if (count > kMaxRange) {
        TypeFail("Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
      }
      List* l = arena_->New<List>();
      for (int64_t k = 0; k < count; ++k) l->Push(arena_, Value::Int(start + k * step));
      return Value::ListOf(l);
    }
    case BuiltinFn::kNamespace:
    case BuiltinFn::kDict: {
      Dict* d = arena_->New<Dict>();
      if (args.pos.size() > 1) TypeFail("expected at most 1 positional argument");
      if (args.pos.size() == 1) {
        const Value& init = args.pos[0];
        if (init.kind == Kind::kDict || init.kind == Kind::kNamespace) {
          for (size_t i = 0; i < init.dict->size; ++i)
            d->Set(arena_, init.dict->entries[i].key, init.dict->entries[i].value);
        } else {
          std::vector<Value> items;
          PyIterate(init, arena_, &items);
          for (const Value& it : items) {
            std::vector<Value> kv;
            PyIterate(it, arena_, &kv);
            if (kv.size() != 2) TypeFail("dictionary update sequence element has wrong length");
            d->Set(arena_, kv[0], kv[1]);
          }
        }
      }
      for (const auto& [k, v] : args.kw) d->Set(arena_, Value::Str(k), v);
      return Value::DictOf(d, c->builtin == BuiltinFn::kNamespace ? Kind::kNamespace : Kind::kDict);
    }
    case BuiltinFn::kRaiseException: {
      // The safe message keeps only the template's own literal text: every byte of a piece that
      // lies inside a string constant or template data of this template (NodePool::literals)
      // and is not attributed to a request segment; a run of anything else becomes one "…".
      // Request text reached reports through '%s' % content, |format, str(messages) and the
      // like, which compute new framing-attributed strings (issue 35, item 7); whatever
      // computes a string now puts it in the arena, outside every literal, so it is masked.
      std::string msg, safe;
      if (!args.pos.empty()) {
        const Value& v = args.pos[0];
        AppendStr(v, arena_, &msg);
        std::vector<Piece> pieces;
        if (v.kind == Kind::kString) AppendPieces(v, &pieces);
        bool masked = false;  // one "…" for a run of masked pieces
        for (const Piece& p : pieces) {
          if (p.src == kFraming && pool_.IsLiteral(p.data, p.size)) {
            safe.append(p.data, p.size);
            masked = false;
          } else if (!masked && p.size) {
            safe += "\u2026";
            masked = true;
          }
        }
        if (v.kind != Kind::kString && !msg.empty()) safe = "\u2026";
      }
      TemplateError e(ErrorKind::kRaised, msg);
      e.set_safe_message(std::move(safe));
      throw e;
    }
    case BuiltinFn::kStrftimeNow: {
      const Value* fmt = args.Get(0, "format");
      if (!fmt || fmt->kind != Kind::kString) TypeFail("strftime_now() argument must be str");
      return NewString(arena_, FormatTime(StrView(*fmt, arena_), globals_.now_unix_seconds));
    }
    case BuiltinFn::kJoiner: {
      Callable* j = arena_->New<Callable>();
      j->kind = CallableKind::kJoiner;
      j->name = "joiner";
      const Value* sep = args.Get(0, "sep");
      j->self = sep ? ToStringValue(*sep, arena_) : Value::Str(", ");
      return Value::Fn(j);
    }
    case BuiltinFn::kLipsum:
      Fail(ErrorKind::kUnsupported, "lipsum() is not supported");
    case BuiltinFn::kCycler:
      Fail(ErrorKind::kUnsupported, "cycler() is not supported");
  }
  TypeFail("unknown built-in");
}

}  // namespace ltl::ct
