// Parser: tokens -> AST with Jinja2's grammar and operator precedence (parser.py): conditional
// expressions, or/and/not, comparisons chained with in/not in, + -, ~, * / // %, **, unary - +,
// postfix . [] () and filters | / tests `is`; statements for/if/set/macro/call/filter/with/
// break/continue (loopcontrols) and {% generation %} (transformers' AssistantTracker).
// Unknown filters and tests fail at parse time, as Jinja2 fails at compile time.
// Internal to src/jinja/ (tests/build/internal_headers.cmake).
#pragma once

#include <string_view>

#include "jinja/ast.h"
#include "jinja/lexer.h"

namespace ltl::ct {

// Parses `source` into `pool`; returns the top-level body. Throws TemplateError (kSyntax or
// kUnsupported) with the position.
Body ParseTemplate(std::string_view source, NodePool* pool);

}  // namespace ltl::ct
