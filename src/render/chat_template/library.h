// The built-in library of the chat-template engine: Jinja2's filters and tests (filters.cc,
// tests.cc) and Python's str / dict / list methods (methods.cc), behind one call each.
#pragma once

#include "render/chat_template/builtins.h"
#include "render/chat_template/call_args.h"
#include "render/chat_template/ops.h"
#include "render/chat_template/value.h"

namespace ltl::ct {

class Evaluator;

Value ApplyFilter(FilterId id, const Value& input, const CallArgs& args, Evaluator* ev);
bool ApplyTest(TestId id, const Value& input, const CallArgs& args, Evaluator* ev);
Value CallMethod(Method m, const Value& self, const CallArgs& args, Arena* arena);

// strftime(fmt) of a UTC instant, as Python's datetime.strftime on Linux (glibc conversions).
std::string FormatTime(std::string_view fmt, int64_t unix_seconds);

}  // namespace ltl::ct
