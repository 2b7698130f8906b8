// Template errors: what Jinja2 would raise (syntax error, undefined use, type error, sandbox
// refusal, or the template's own raise_exception), with the template line and column.
//
// Inside the engine an error is a C++ exception (TemplateError), because the interpreter is deeply
// recursive and errors are rare per node; it never leaves the engine: ChatTemplate::Parse and
// ChatTemplate::Render catch it and return a Status-like result.
// Internal to src/jinja/ (tests/build/internal_headers.cmake).
#pragma once

#include <stdexcept>
#include <string>

namespace ltl::ct {

enum class ErrorKind {
  kSyntax,       // TemplateSyntaxError / TemplateAssertionError (at parse time)
  kUndefined,    // UndefinedError
  kType,         // TypeError, ValueError, ZeroDivisionError, ... raised by Python operations
  kSecurity,     // SecurityError: the immutable sandbox refused an attribute or call
  kRaised,       // raise_exception(msg): the template's own message
  kLimit,        // our own limits (recursion depth, output size)
  kUnsupported,  // a Python feature this engine does not implement
};

const char* ErrorKindName(ErrorKind k);

class TemplateError : public std::exception {
 public:
  TemplateError(ErrorKind kind, std::string message, int line = 0, int column = 0)
      : kind_(kind), message_(std::move(message)), line_(line), column_(column) {}
  const char* what() const noexcept override { return message_.c_str(); }
  ErrorKind kind() const { return kind_; }
  const std::string& message() const { return message_; }
  int line() const { return line_; }
  int column() const { return column_; }
  bool has_position() const { return line_ > 0; }
  void SetPosition(int line, int column) {
    line_ = line;
    column_ = column;
  }
  // raise_exception's message with every piece that came from the request replaced by "…".
  const std::string& safe_message() const { return safe_message_; }
  void set_safe_message(std::string m) { safe_message_ = std::move(m); }

 private:
  ErrorKind kind_;
  std::string message_;
  int line_, column_;
  std::string safe_message_;
};

[[noreturn]] inline void Fail(ErrorKind kind, std::string message) {
  throw TemplateError(kind, std::move(message));
}
[[noreturn]] inline void TypeFail(std::string message) {
  Fail(ErrorKind::kType, std::move(message));
}

}  // namespace ltl::ct
