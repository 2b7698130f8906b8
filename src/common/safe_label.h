// SafeLabel: an input-supplied label that reports print verbatim (a model name) made safe to
// print: invalid UTF-8 and control characters (terminal escapes, NUL, newlines) become '?', and
// labels longer than a limit are cut at a character boundary with "...". JSON writers then never
// see invalid UTF-8, and a hostile log cannot rewrite the user's terminal.
#pragma once

#include <string>
#include <string_view>

namespace ltl {

constexpr size_t kMaxLabelBytes = 128;

std::string SafeLabel(std::string_view s, size_t max_bytes = kMaxLabelBytes);

}  // namespace ltl
