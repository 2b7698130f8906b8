// The built-in library of the chat-template engine: Jinja2's filters and tests (filters.cc,
// tests.cc) and Python's str / dict / list methods (methods.cc), behind one call each.
// Internal to src/jinja/ (tests/build/internal_headers.cmake).
#pragma once

#include "jinja/builtins.h"
#include "jinja/call_args.h"
#include "jinja/ops.h"
#include "jinja/value.h"

namespace ltl::ct {

class Evaluator;

Value ApplyFilter(FilterId id, const Value& input, const CallArgs& args, Evaluator* ev);
bool ApplyTest(TestId id, const Value& input, const CallArgs& args, Evaluator* ev);
Value CallMethod(Method m, const Value& self, const CallArgs& args, Arena* arena);

// strftime(fmt) of a UTC instant, as Python's datetime.strftime on Linux (glibc conversions).
std::string FormatTime(std::string_view fmt, int64_t unix_seconds);

}  // namespace ltl::ct
