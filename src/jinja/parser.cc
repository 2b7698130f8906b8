// Recursive-descent parser following Jinja2's parser.py (see parser.h).
#include "jinja/parser.h"

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "jinja/builtins.h"
#include "jinja/errors.h"

namespace ltl::ct {

bool NodePool::IsLiteral(const char* data, size_t size) const {
  // The last literal starting at or before `data` is the only one that can hold it (literals
  // are distinct strings, so they do not overlap).
  auto it = std::upper_bound(literals.begin(), literals.end(), data,
                             [](const char* d, const std::pair<const char*, const char*>& r) {
                               return std::less<>()(d, r.first);
                             });
  if (it == literals.begin()) return false;
  --it;
  return !std::less<>()(data, it->first) && !std::less<>()(it->second, data + size);
}

int NodePool::Intern(const std::string& name) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  names.push_back(name);
  return static_cast<int>(names.size() - 1);
}

namespace {

class Parser {
 public:
  Parser(std::vector<Token> tokens, NodePool* pool) : toks_(std::move(tokens)), pool_(pool) {}

  Body ParseAll() {
    Body body = Subparse({});
    if (cur().type != Tok::kEof) Fail("unexpected " + Describe(cur()));
    return body;
  }

 private:
  const Token& cur() const { return toks_[pos_]; }
  const Token& look() const { return toks_[pos_ + 1 < toks_.size() ? pos_ + 1 : pos_]; }
  const Token& Next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool IsName(const Token& t, const char* name) const {
    return t.type == Tok::kName && t.text == name;
  }
  bool SkipIfName(const char* name) {
    if (IsName(cur(), name)) {
      Next();
      return true;
    }
    return false;
  }
  bool SkipIf(Tok t) {
    if (cur().type == t) {
      Next();
      return true;
    }
    return false;
  }
  static std::string Describe(const Token& t) {
    if (t.type == Tok::kName) return "'" + t.text + "'";
    return TokName(t.type);
  }
  [[noreturn]] void Fail(const std::string& msg, const Token* at = nullptr) {
    const Token& t = at ? *at : cur();
    throw TemplateError(ErrorKind::kSyntax, msg, t.line, t.column);
  }
  [[noreturn]] void Unsupported(const std::string& msg, const Token& at) {
    throw TemplateError(ErrorKind::kUnsupported, msg, at.line, at.column);
  }
  const Token& Expect(Tok t) {
    if (cur().type != t) {
      Fail(std::string("expected token ") + TokName(t) + ", got " + Describe(cur()));
    }
    return Next();
  }
  const Token& ExpectName(const char* name) {
    if (!IsName(cur(), name))
      Fail(std::string("expected token '") + name + "', got " + Describe(cur()));
    return Next();
  }
  Node* New(NodeKind k, const Token& t) { return pool_->New(k, t.line, t.column); }

  // --- statements ---------------------------------------------------------------------------

  // Parses until a block whose first name is in `ends` (left as the current token).
  Body Subparse(std::initializer_list<const char*> ends) {
    Body body;
    Node* output = nullptr;
    auto add_output = [&](const Node* n, const Token& t) {
      if (!output) {
        output = New(NodeKind::kOutput, t);
        body.push_back(output);
      }
      output->kids.push_back(n);
    };
    while (cur().type != Tok::kEof) {
      const Token& t = cur();
      if (t.type == Tok::kData) {
        Node* d = New(NodeKind::kTemplateData, t);
        d->name = t.text;
        Next();
        add_output(d, t);
      } else if (t.type == Tok::kVarBegin) {
        Next();
        const Token& at = cur();
        add_output(ParseTuple(false, true, {}, false), at);
        Expect(Tok::kVarEnd);
      } else if (t.type == Tok::kBlockBegin) {
        output = nullptr;
        Next();
        for (const char* e : ends) {
          if (IsName(cur(), e)) return body;
        }
        ParseStatement(&body);
        Expect(Tok::kBlockEnd);
      } else {
        Fail("internal parsing error");
      }
    }
    return body;
  }

  Body ParseStatements(std::initializer_list<const char*> ends, bool drop_needle) {
    SkipIf(Tok::kColon);
    Expect(Tok::kBlockEnd);
    Body body = Subparse(ends);
    if (cur().type == Tok::kEof) {
      std::string want;
      for (const char* e : ends) want += std::string(want.empty() ? "" : " or ") + "'" + e + "'";
      Fail("Unexpected end of template. Jinja was looking for the following tags: " + want + ".");
    }
    if (drop_needle) Next();
    return body;
  }

  void ParseStatement(Body* body) {
    Nest nest(this);
    const Token& t = cur();
    if (t.type != Tok::kName) Fail("tag name expected");
    const std::string& w = t.text;
    if (w == "for") return body->push_back(ParseFor());
    if (w == "if") return body->push_back(ParseIf());
    if (w == "set") return body->push_back(ParseSet());
    if (w == "macro") return body->push_back(ParseMacro());
    if (w == "call") return body->push_back(ParseCallBlock());
    if (w == "filter") return body->push_back(ParseFilterBlock());
    if (w == "with") return body->push_back(ParseWith());
    if (w == "print") {
      Node* out = New(NodeKind::kOutput, Next());
      out->kids.push_back(ParseTuple(false, true, {}, false));
      return body->push_back(out);
    }
    if (w == "break" || w == "continue") {
      Node* n = New(w == "break" ? NodeKind::kBreak : NodeKind::kContinue, Next());
      return body->push_back(n);
    }
    if (w == "generation") {
      Node* n = New(NodeKind::kScopeBody, Next());
      n->body = ParseStatements({"endgeneration"}, true);
      return body->push_back(n);
    }
    if (w == "block" || w == "extends" || w == "include" || w == "import" || w == "from" ||
        w == "autoescape") {
      Unsupported("the '" + w + "' tag needs a template loader, which chat templates do not have",
                  t);
    }
    Fail("Encountered unknown tag '" + w + "'.");
  }

  Node* ParseFor() {
    const Token& t = Next();
    Node* n = New(NodeKind::kFor, t);
    Node* target = ParseAssignTarget(true, false, false, {"in"});
    ExpectName("in");
    Node* iter = ParseTuple(false, false, {"recursive"}, false);
    Node* test = nullptr;
    if (SkipIfName("if")) test = ParseExpression(true);
    n->recursive = SkipIfName("recursive");
    if (n->recursive) Unsupported("recursive loops are not supported", t);
    n->kids = {target, iter, test};
    n->body = ParseStatements({"endfor", "else"}, false);
    if (Next().text == "endfor") return n;
    n->else_body = ParseStatements({"endfor"}, true);
    return n;
  }

  Node* ParseIf() {
    const Token& t = Next();
    Node* n = New(NodeKind::kIf, t);
    while (true) {
      n->kids.push_back(ParseTuple(false, false, {}, false));
      n->bodies.push_back(ParseStatements({"elif", "else", "endif"}, false));
      const Token& end = Next();
      if (end.text == "elif") continue;
      if (end.text == "else") n->else_body = ParseStatements({"endif"}, true);
      break;
    }
    return n;
  }

  Node* ParseSet() {
    const Token& t = Next();
    Node* target = ParseAssignTarget(true, false, true, {});
    if (SkipIf(Tok::kAssign)) {
      Node* n = New(NodeKind::kAssign, t);
      n->kids = {target, ParseTuple(false, true, {}, false)};
      return n;
    }
    Node* n = New(NodeKind::kAssignBlock, t);
    Node* filter = cur().type == Tok::kPipe ? ParseFilter(nullptr, false) : nullptr;
    n->kids = {target, filter};
    n->body = ParseStatements({"endset"}, true);
    return n;
  }

  void ScanSignatureUse(Node* n, size_t first_node) {
    int varargs = pool_->Intern("varargs"), kwargs = pool_->Intern("kwargs"),
        caller = pool_->Intern("caller");
    for (size_t i = first_node; i < pool_->nodes.size(); ++i) {
      const Node& k = pool_->nodes[i];
      if (k.kind != NodeKind::kName) continue;
      if (k.name_id == varargs) n->uses_varargs = true;
      if (k.name_id == kwargs) n->uses_kwargs = true;
      if (k.name_id == caller) n->uses_caller = true;
    }
  }

  void ParseSignature(Node* n) {
    Expect(Tok::kLParen);
    while (cur().type != Tok::kRParen) {
      if (!n->params.empty()) Expect(Tok::kComma);
      const Token& name = Expect(Tok::kName);
      n->params.push_back(pool_->Intern(name.text));
      n->param_names.push_back(name.text);
      if (SkipIf(Tok::kAssign)) {
        n->defaults.push_back(ParseExpression(true));
      } else if (!n->defaults.empty()) {
        Fail("non-default argument follows default argument");
      }
    }
    Expect(Tok::kRParen);
  }

  Node* ParseMacro() {
    const Token& t = Next();
    Node* n = New(NodeKind::kMacro, t);
    const Token& name = Expect(Tok::kName);
    n->name = name.text;
    n->name_id = pool_->Intern(name.text);
    ParseSignature(n);
    size_t first = pool_->nodes.size();
    n->body = ParseStatements({"endmacro"}, true);
    ScanSignatureUse(n, first);
    return n;
  }

  Node* ParseCallBlock() {
    const Token& t = Next();
    Node* n = New(NodeKind::kCallBlock, t);
    if (cur().type == Tok::kLParen) ParseSignature(n);
    Node* call = ParseExpression(true);
    if (call->kind != NodeKind::kCall) Fail("expected call", &t);
    n->kids = {call};
    size_t first = pool_->nodes.size();
    n->body = ParseStatements({"endcall"}, true);
    ScanSignatureUse(n, first);
    return n;
  }

  Node* ParseFilterBlock() {
    const Token& t = Next();
    Node* n = New(NodeKind::kFilterBlock, t);
    n->kids = {ParseFilter(nullptr, true)};
    n->body = ParseStatements({"endfilter"}, true);
    return n;
  }

  Node* ParseWith() {
    const Token& t = Next();
    Node* n = New(NodeKind::kWith, t);
    while (cur().type != Tok::kBlockEnd) {
      if (!n->kids.empty()) Expect(Tok::kComma);
      Node* target = ParseAssignTarget(true, false, false, {});
      Expect(Tok::kAssign);
      n->kids.push_back(target);
      n->kids.push_back(ParseExpression(true));
    }
    n->body = ParseStatements({"endwith"}, true);
    return n;
  }

  Node* ParseAssignTarget(bool with_tuple, bool name_only, bool with_namespace,
                          std::initializer_list<const char*> extra_end) {
    if (with_namespace && look().type == Tok::kDot) {
      const Token& ns = Expect(Tok::kName);
      Next();
      const Token& attr = Expect(Tok::kName);
      Node* n = New(NodeKind::kNSRef, ns);
      n->name_id = pool_->Intern(ns.text);
      n->name = attr.text;
      return n;
    }
    Node* target;
    if (name_only) {
      const Token& t = Expect(Tok::kName);
      target = New(NodeKind::kName, t);
      target->name_id = pool_->Intern(t.text);
      target->name = t.text;
    } else if (with_tuple) {
      target = ParseTuple(true, true, extra_end, false);
    } else {
      target = ParsePrimary();
    }
    if (!CanAssign(target)) {
      Fail("can't assign to '" + KindName(target) + "'");
    }
    return target;
  }

  static bool CanAssign(const Node* n) {
    if (n->kind == NodeKind::kName) {
      return n->name != "true" && n->name != "false" && n->name != "none" && n->name != "True" &&
             n->name != "False" && n->name != "None";
    }
    if (n->kind == NodeKind::kTuple) {
      for (const Node* k : n->kids) {
        if (!CanAssign(k)) return false;
      }
      return true;
    }
    return n->kind == NodeKind::kNSRef;
  }
  static std::string KindName(const Node* n) {
    switch (n->kind) {
      case NodeKind::kConst:
        return "const";
      case NodeKind::kList:
        return "list";
      case NodeKind::kDict:
        return "dict";
      default:
        return "expression";
    }
  }

  // --- expressions --------------------------------------------------------------------------

  bool IsTupleEnd(std::initializer_list<const char*> extra_end) const {
    Tok t = cur().type;
    if (t == Tok::kVarEnd || t == Tok::kBlockEnd || t == Tok::kRParen) return true;
    for (const char* e : extra_end) {
      if (IsName(cur(), e)) return true;
    }
    return false;
  }

  Node* ParseTuple(bool simplified, bool with_condexpr,
                   std::initializer_list<const char*> extra_end, bool explicit_parentheses) {
    const Token& start = cur();
    std::vector<const Node*> args;
    bool is_tuple = false;
    while (true) {
      if (!args.empty()) Expect(Tok::kComma);
      if (IsTupleEnd(extra_end)) break;
      if (simplified) {
        args.push_back(ParsePrimary());
      } else {
        args.push_back(ParseExpression(with_condexpr));
      }
      if (cur().type == Tok::kComma) {
        is_tuple = true;
      } else {
        break;
      }
    }
    if (!is_tuple) {
      if (!args.empty()) return const_cast<Node*>(args[0]);
      if (!explicit_parentheses) Fail("Expected an expression, got " + Describe(cur()));
    }
    Node* n = New(NodeKind::kTuple, start);
    n->kids = std::move(args);
    return n;
  }

  Node* ParseExpression(bool with_condexpr) { return with_condexpr ? ParseCondExpr() : ParseOr(); }

  // One level of the parser's recursion (see kMaxParseNesting).
  class Nest {
   public:
    explicit Nest(Parser* p) : p_(p) {
      if (++p_->nesting_ > kMaxParseNesting) {
        --p_->nesting_;
        p_->Fail("template nested too deeply (more than " + std::to_string(kMaxParseNesting) +
                 " levels of statements and expressions)");
      }
    }
    ~Nest() { --p_->nesting_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

   private:
    Parser* p_;
  };

  Node* ParseCondExpr() {
    Nest nest(this);
    Node* expr1 = ParseOr();
    while (IsName(cur(), "if")) {
      const Token& t = Next();
      Node* expr2 = ParseOr();
      Node* expr3 = nullptr;
      if (SkipIfName("else")) expr3 = ParseCondExpr();
      Node* n = New(NodeKind::kCondExpr, t);
      n->kids = {expr2, expr1, expr3};
      expr1 = n;
    }
    return expr1;
  }

  Node* ParseOr() {
    Node* left = ParseAnd();
    while (IsName(cur(), "or")) {
      const Token& t = Next();
      Node* n = New(NodeKind::kOr, t);
      n->kids = {left, ParseAnd()};
      left = n;
    }
    return left;
  }

  Node* ParseAnd() {
    Node* left = ParseNot();
    while (IsName(cur(), "and")) {
      const Token& t = Next();
      Node* n = New(NodeKind::kAnd, t);
      n->kids = {left, ParseNot()};
      left = n;
    }
    return left;
  }

  Node* ParseNot() {
    Nest nest(this);
    if (IsName(cur(), "not")) {
      const Token& t = Next();
      Node* n = New(NodeKind::kNot, t);
      n->kids = {ParseNot()};
      return n;
    }
    return ParseCompare();
  }

  Node* ParseCompare() {
    const Token& start = cur();
    Node* expr = ParseMath1();
    Node* cmp = nullptr;
    while (true) {
      CmpOp op;
      Tok t = cur().type;
      if (t == Tok::kEq) {
        op = CmpOp::kEq;
      } else if (t == Tok::kNe) {
        op = CmpOp::kNe;
      } else if (t == Tok::kLt) {
        op = CmpOp::kLt;
      } else if (t == Tok::kLe) {
        op = CmpOp::kLe;
      } else if (t == Tok::kGt) {
        op = CmpOp::kGt;
      } else if (t == Tok::kGe) {
        op = CmpOp::kGe;
      } else if (IsName(cur(), "in")) {
        op = CmpOp::kIn;
      } else if (IsName(cur(), "not") && IsName(look(), "in")) {
        Next();
        op = CmpOp::kNotIn;
      } else {
        break;
      }
      Next();
      if (!cmp) {
        cmp = New(NodeKind::kCompare, start);
        cmp->kids.push_back(expr);
      }
      cmp->cmp_ops.push_back(op);
      cmp->kids.push_back(ParseMath1());
    }
    return cmp ? cmp : expr;
  }

  Node* Binary(BinOp op, const Token& t, Node* l, Node* r) {
    Node* n = New(NodeKind::kBinary, t);
    n->binop = op;
    n->kids = {l, r};
    return n;
  }

  Node* ParseMath1() {
    Node* left = ParseConcat();
    while (cur().type == Tok::kAdd || cur().type == Tok::kSub) {
      const Token& t = Next();
      left = Binary(t.type == Tok::kAdd ? BinOp::kAdd : BinOp::kSub, t, left, ParseConcat());
    }
    return left;
  }

  Node* ParseConcat() {
    const Token& start = cur();
    Node* first = ParseMath2();
    if (cur().type != Tok::kTilde) return first;
    Node* n = New(NodeKind::kConcat, start);
    n->kids.push_back(first);
    while (SkipIf(Tok::kTilde)) n->kids.push_back(ParseMath2());
    return n;
  }

  Node* ParseMath2() {
    Node* left = ParsePow();
    while (true) {
      Tok t = cur().type;
      BinOp op;
      if (t == Tok::kMul) {
        op = BinOp::kMul;
      } else if (t == Tok::kDiv) {
        op = BinOp::kDiv;
      } else if (t == Tok::kFloorDiv) {
        op = BinOp::kFloorDiv;
      } else if (t == Tok::kMod) {
        op = BinOp::kMod;
      } else {
        break;
      }
      const Token& tok = Next();
      left = Binary(op, tok, left, ParsePow());
    }
    return left;
  }

  Node* ParsePow() {
    Node* left = ParseUnary(true);
    while (cur().type == Tok::kPow) {
      const Token& t = Next();
      left = Binary(BinOp::kPow, t, left, ParseUnary(true));
    }
    return left;
  }

  Node* ParseUnary(bool with_filter) {
    Nest nest(this);
    Node* node;
    if (cur().type == Tok::kSub || cur().type == Tok::kAdd) {
      const Token& t = Next();
      node = New(t.type == Tok::kSub ? NodeKind::kNeg : NodeKind::kPos, t);
      node->kids = {ParseUnary(false)};
    } else {
      node = ParsePrimary();
    }
    node = ParsePostfix(node);
    if (with_filter) node = ParseFilterExpr(node);
    return node;
  }

  Node* ParsePrimary() {
    const Token& t = cur();
    Node* node;
    if (t.type == Tok::kName) {
      node = New(NodeKind::kConst, t);
      if (t.text == "true" || t.text == "True" || t.text == "false" || t.text == "False") {
        node->constant = Value::Bool(t.text[0] == 't' || t.text[0] == 'T');
      } else if (t.text == "none" || t.text == "None") {
        node->constant = Value::None();
      } else {
        node->kind = NodeKind::kName;
        node->name_id = pool_->Intern(t.text);
        node->name = t.text;
      }
      Next();
    } else if (t.type == Tok::kString) {
      node = New(NodeKind::kConst, t);
      node->name = t.text;
      Next();
      while (cur().type == Tok::kString) node->name += Next().text;  // adjacent literals join
      node->constant = Value::Str(node->name);  // fixed up after the pool stops moving
    } else if (t.type == Tok::kInteger) {
      node = New(NodeKind::kConst, t);
      node->constant = Value::Int(t.int_value);
      Next();
    } else if (t.type == Tok::kFloat) {
      node = New(NodeKind::kConst, t);
      node->constant = Value::Float(t.float_value);
      Next();
    } else if (t.type == Tok::kLParen) {
      Next();
      node = ParseTuple(false, true, {}, true);
      Expect(Tok::kRParen);
    } else if (t.type == Tok::kLBracket) {
      node = New(NodeKind::kList, Next());
      while (cur().type != Tok::kRBracket) {
        if (!node->kids.empty()) Expect(Tok::kComma);
        if (cur().type == Tok::kRBracket) break;
        node->kids.push_back(ParseExpression(true));
      }
      Expect(Tok::kRBracket);
    } else if (t.type == Tok::kLBrace) {
      node = New(NodeKind::kDict, Next());
      while (cur().type != Tok::kRBrace) {
        if (!node->kids.empty()) Expect(Tok::kComma);
        if (cur().type == Tok::kRBrace) break;
        node->kids.push_back(ParseExpression(true));
        Expect(Tok::kColon);
        node->kids.push_back(ParseExpression(true));
      }
      Expect(Tok::kRBrace);
    } else {
      Fail("unexpected " + Describe(t));
    }
    return node;
  }

  Node* ParsePostfix(Node* node) {
    while (true) {
      Tok t = cur().type;
      if (t == Tok::kDot || t == Tok::kLBracket) {
        node = ParseSubscript(node);
      } else if (t == Tok::kLParen) {
        node = ParseCall(node);
      } else {
        break;
      }
    }
    return node;
  }

  Node* ParseFilterExpr(Node* node) {
    while (true) {
      if (cur().type == Tok::kPipe) {
        node = ParseFilter(node, false);
      } else if (IsName(cur(), "is")) {
        node = ParseTest(node);
      } else if (cur().type == Tok::kLParen) {
        node = ParseCall(node);
      } else {
        break;
      }
    }
    return node;
  }

  Node* ParseSubscript(Node* node) {
    const Token& t = Next();
    if (t.type == Tok::kDot) {
      const Token& attr = Next();
      if (attr.type == Tok::kName) {
        Node* n = New(NodeKind::kGetattr, t);
        n->kids = {node};
        n->name = attr.text;
        return n;
      }
      if (attr.type != Tok::kInteger) Fail("expected name or number", &attr);
      Node* idx = New(NodeKind::kConst, attr);
      idx->constant = Value::Int(attr.int_value);
      Node* n = New(NodeKind::kGetitem, t);
      n->kids = {node, idx};
      return n;
    }
    std::vector<const Node*> args;
    while (cur().type != Tok::kRBracket) {
      if (!args.empty()) Expect(Tok::kComma);
      args.push_back(ParseSubscribed());
    }
    Expect(Tok::kRBracket);
    Node* n = New(NodeKind::kGetitem, t);
    if (args.size() == 1) {
      n->kids = {node, args[0]};
    } else {
      Node* tup = New(NodeKind::kTuple, t);
      tup->kids = std::move(args);
      n->kids = {node, tup};
    }
    return n;
  }

  Node* ParseSubscribed() {
    const Token& start = cur();
    std::vector<const Node*> args;
    if (cur().type == Tok::kColon) {
      Next();
      args.push_back(nullptr);
    } else {
      Node* node = ParseExpression(true);
      if (cur().type != Tok::kColon) return node;
      Next();
      args.push_back(node);
    }
    if (cur().type == Tok::kColon) {
      args.push_back(nullptr);
    } else if (cur().type != Tok::kRBracket && cur().type != Tok::kComma) {
      args.push_back(ParseExpression(true));
    } else {
      args.push_back(nullptr);
    }
    if (cur().type == Tok::kColon) {
      Next();
      if (cur().type != Tok::kRBracket && cur().type != Tok::kComma) {
        args.push_back(ParseExpression(true));
      } else {
        args.push_back(nullptr);
      }
    } else {
      args.push_back(nullptr);
    }
    Node* n = New(NodeKind::kSlice, start);
    n->kids = std::move(args);
    return n;
  }

  void ParseCallArgs(Node* n) {
    const Token& open = Expect(Tok::kLParen);
    bool require_comma = false;
    auto ensure = [&](bool ok) {
      if (!ok) Fail("invalid syntax for function call expression", &open);
    };
    while (cur().type != Tok::kRParen) {
      if (require_comma) {
        Expect(Tok::kComma);
        if (cur().type == Tok::kRParen) break;
      }
      if (cur().type == Tok::kMul) {
        ensure(!n->dyn_args && !n->dyn_kwargs);
        Next();
        n->dyn_args = ParseExpression(true);
      } else if (cur().type == Tok::kPow) {
        ensure(!n->dyn_kwargs);
        Next();
        n->dyn_kwargs = ParseExpression(true);
      } else if (cur().type == Tok::kName && look().type == Tok::kAssign) {
        ensure(!n->dyn_kwargs);
        std::string key = Next().text;
        Next();
        n->kwargs.push_back(Keyword{key, ParseExpression(true)});
      } else {
        ensure(!n->dyn_args && !n->dyn_kwargs && n->kwargs.empty());
        n->kids.push_back(ParseExpression(true));
      }
      require_comma = true;
    }
    Expect(Tok::kRParen);
  }

  Node* ParseCall(Node* callee) {
    Node* n =
        pool_->New(NodeKind::kCall, callee->line, callee->column);  // errors point at the callee
    n->kids.push_back(callee);
    ParseCallArgs(n);
    return n;
  }

  // A filter chain; `node` is the filtered expression (nullptr in filter blocks / block sets).
  Node* ParseFilter(Node* node, bool start_inline) {
    while (cur().type == Tok::kPipe || start_inline) {
      if (!start_inline) Next();
      const Token& name = Expect(Tok::kName);
      std::string full = name.text;
      while (cur().type == Tok::kDot) {
        Next();
        full += "." + Expect(Tok::kName).text;
      }
      int id = LookupFilter(full);
      if (id < 0) {
        if (IsUnsupportedJinjaFilter(full))
          Unsupported("filter '" + full + "' is not supported", name);
        Fail("No filter named '" + full + "'.", &name);
      }
      Node* f = New(NodeKind::kFilter, name);
      f->name = full;
      f->name_id = id;
      f->kids.push_back(node);
      if (cur().type == Tok::kLParen) ParseCallArgs(f);
      node = f;
      start_inline = false;
    }
    return node;
  }

  Node* ParseTest(Node* node) {
    const Token& is = Next();
    bool negated = SkipIfName("not");
    const Token& name = Expect(Tok::kName);
    std::string full = name.text;
    while (cur().type == Tok::kDot) {
      Next();
      full += "." + Expect(Tok::kName).text;
    }
    int id = LookupTest(full);
    if (id < 0) Fail("No test named '" + full + "'.", &name);
    Node* t = New(NodeKind::kTest, is);
    t->name = full;
    t->name_id = id;
    t->kids.push_back(node);
    Tok c = cur().type;
    if (c == Tok::kLParen) {
      ParseCallArgs(t);
    } else if ((c == Tok::kName || c == Tok::kString || c == Tok::kInteger || c == Tok::kFloat ||
                c == Tok::kLParen || c == Tok::kLBracket || c == Tok::kLBrace) &&
               !IsName(cur(), "else") && !IsName(cur(), "or") && !IsName(cur(), "and")) {
      if (IsName(cur(), "is")) Fail("You cannot chain multiple tests with is");
      Node* arg = ParsePostfix(ParsePrimary());
      t->kids.push_back(arg);
    }
    if (!negated) return t;
    Node* n = New(NodeKind::kNot, is);
    n->kids = {t};
    return n;
  }

  std::vector<Token> toks_;
  size_t pos_ = 0;
  int nesting_ = 0;
  NodePool* pool_;
};

// The deepest path from `body` down the tree, without recursing (an explicit stack); fails at the
// first node deeper than kMaxTreeDepth, naming its position.
void CheckTreeDepth(const Body& body) {
  std::vector<std::pair<const Node*, int>> stack;
  for (const Node* n : body)
    if (n) stack.emplace_back(n, 1);
  while (!stack.empty()) {
    const Node* n = stack.back().first;
    const int depth = stack.back().second;
    stack.pop_back();
    if (depth > kMaxTreeDepth) {
      throw TemplateError(ErrorKind::kSyntax,
                          "template nested too deeply (an expression or statement more than " +
                              std::to_string(kMaxTreeDepth) + " levels deep)",
                          n->line, n->column);
    }
    auto push = [&](const Node* k) {
      if (k) stack.emplace_back(k, depth + 1);
    };
    for (const Node* k : n->kids) push(k);
    for (const Keyword& k : n->kwargs) push(k.value);
    push(n->dyn_args);
    push(n->dyn_kwargs);
    for (const Node* k : n->body) push(k);
    for (const Node* k : n->else_body) push(k);
    for (const Body& b : n->bodies)
      for (const Node* k : b) push(k);
    for (const Node* k : n->defaults) push(k);
  }
}

}  // namespace

Body ParseTemplate(std::string_view source, NodePool* pool) {
  Parser p(Tokenize(source), pool);
  Body body = p.ParseAll();
  CheckTreeDepth(body);
  // String constants point at their node's own text (stable: deque never moves elements).
  pool->literals.clear();
  for (Node& n : pool->nodes) {
    if (n.kind == NodeKind::kConst && n.constant.kind == Kind::kString) {
      n.constant = Value::Str(n.name);
    }
    if ((n.kind == NodeKind::kConst && n.constant.kind == Kind::kString) ||
        n.kind == NodeKind::kTemplateData) {
      if (!n.name.empty())
        pool->literals.emplace_back(n.name.data(), n.name.data() + n.name.size());
    }
  }
  std::sort(pool->literals.begin(), pool->literals.end());
  return body;
}

}  // namespace ltl::ct
