// SafeLabel: an input-supplied label that reports print verbatim (a model name) made safe to
// print: invalid UTF-8 and control characters (terminal escapes, NUL, newlines) become '?', and
// labels longer than a limit are cut at a character boundary with "...". JSON writers then never
// see invalid UTF-8, and a hostile log cannot rewrite the user's terminal. EscapeForTerminal does
// the same for message lines (file names) reversibly.
#pragma once

#include <string>
#include <string_view>

namespace ltl {

constexpr size_t kMaxLabelBytes = 128;

std::string SafeLabel(std::string_view s, size_t max_bytes = kMaxLabelBytes);

// A message line made safe for a terminal without losing information: control characters
// (terminal escapes, newlines, NUL) and bytes that are not well-formed UTF-8 become `\xNN` (a
// file name holding a newline prints as `a\x0ab`, on one line); everything else is kept. Never cut.
std::string EscapeForTerminal(std::string_view s);

}  // namespace ltl
