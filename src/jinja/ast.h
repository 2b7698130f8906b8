// AST: the parsed template, one Node type with a kind (as Jinja2's nodes module, reduced to what
// chat templates can contain). Nodes are owned by the ChatTemplate and never change after parsing,
// so one parsed template is shared read-only by every rendering thread.
// Internal to src/jinja/ (tests/build/internal_headers.cmake).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "jinja/value.h"

namespace ltl::ct {

enum class NodeKind : uint8_t {
  // expressions
  kConst,    // value (none/bool/int/float/string literal)
  kName,     // name_id
  kGetattr,  // kids[0].name
  kGetitem,  // kids[0][kids[1]]
  kSlice,    // kids: start, stop, step (nullptr when absent)
  kCall,     // kids[0](args...) ; args/kwargs below
  kFilter,   // kids[0] (or nullptr inside filter blocks) | name(args)
  kTest,     // kids[0] is name(args)
  kNot,
  kNeg,
  kPos,
  kBinary,   // op, kids[0], kids[1]
  kConcat,   // kids...
  kCompare,  // kids[0] then (ops[i], kids[i+1])
  kAnd,
  kOr,
  kCondExpr,  // kids: test, true_expr, false_expr (nullptr = undefined)
  kList,
  kTuple,
  kDict,  // kids: key0, value0, key1, value1, ...
  // statements
  kTemplateData,  // text
  kOutput,        // kids: TemplateData / expressions
  kFor,           // target, iter, test (nullable); body, else_body
  kIf,            // kids: test0, test1...; bodies[i]; else_body
  kAssign,        // target, value
  kAssignBlock,   // target, filter (nullable); body
  kMacro,         // name; params (targets) + defaults; body
  kCallBlock,     // kids[0] = the call; params + defaults (caller's); body
  kFilterBlock,   // kids[0] = filter chain (innermost node nullptr); body
  kWith,          // targets/values in kids (pairs); body
  kBreak,
  kContinue,
  kScopeBody,  // body only ({% generation %})
  kNSRef,      // assignment target ns.attr: name_id + name (attr)
};

enum class BinOp : uint8_t { kAdd, kSub, kMul, kDiv, kFloorDiv, kMod, kPow };
enum class CmpOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe, kIn, kNotIn };

struct Node;
using Body = std::vector<const Node*>;

struct Keyword {
  std::string name;
  const Node* value = nullptr;
};

struct Node {
  NodeKind kind = NodeKind::kConst;
  int line = 0, column = 0;
  int name_id = -1;  // kName, kNSRef, kMacro; filter/test id for kFilter/kTest
  std::string name;  // attribute / filter / test / macro name, template data text
  Value constant;    // kConst
  BinOp binop = BinOp::kAdd;
  std::vector<CmpOp> cmp_ops;
  std::vector<const Node*> kids;
  std::vector<Keyword> kwargs;
  const Node* dyn_args = nullptr;    // *args
  const Node* dyn_kwargs = nullptr;  // **kwargs
  Body body, else_body;
  std::vector<Body> bodies;  // kIf branches
  // kMacro / kCallBlock signature
  std::vector<int> params;  // name ids
  std::vector<std::string> param_names;
  std::vector<const Node*> defaults;  // aligned to the last params
  bool uses_varargs = false, uses_kwargs = false, uses_caller = false;
  bool recursive = false;
};

// Nesting limits of a template (issue 35, item 3: 10,000 parentheses, 20,000 nested ifs or
// 50,000 chained `+` overflowed the stack; Jinja2 ends such templates with RecursionError). The
// parser's own recursion counts one level per nested statement, unary operator, `not`, inline if
// and sub-expression (a parenthesis counts about two); the tree it builds may be at most
// kMaxTreeDepth nodes deep (a chain of 50,000 `+1` builds a tree that deep without recursing).
constexpr int kMaxParseNesting = 500;
constexpr int kMaxTreeDepth = 1000;

// Owns the nodes and the interned names of one template.
struct NodePool {
  std::deque<Node> nodes;
  std::vector<std::string> names;  // name id -> name
  // Where the template's own literal text lives (string constants and template data), sorted by
  // address: a piece of a raise_exception message is shown only when it lies inside one of
  // these (issue 35, item 7), because anything else may have been computed from the request.
  std::vector<std::pair<const char*, const char*>> literals;
  bool IsLiteral(const char* data, size_t size) const;
  Node* New(NodeKind kind, int line, int column) {
    nodes.emplace_back();
    Node* n = &nodes.back();
    n->kind = kind;
    n->line = line;
    n->column = column;
    return n;
  }
  int Intern(const std::string& name);
};

}  // namespace ltl::ct
