// Prefix text for --show-prefix-text N (opt-in; the only way prompt text reaches a report): which
// input rows to render again for the listed prefixes, and the first N characters of a prefix cut
// from a rendered prompt. Escaping happens where the text is written (JSON, HTML, terminal).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tokenize/tokenizer.h"

namespace ltl {

// The first min(n_chars, prefix length) Unicode code points of `prompt`, where the prefix is its
// first `blocks` blocks: 4 x block_size code points each in approximate counting, or block_size
// tokens each with `tokenizer` (the code-point length whose encoding still fits, by bisection).
std::string PrefixTextOf(std::string_view prompt, uint32_t blocks, uint32_t block_size,
                         size_t n_chars, const Tokenizer* tokenizer);

// Text made safe for a terminal line: control characters (newline, tab, ESC, ...) become \n, \t,
// \x1b; at most one line.
std::string TerminalSafe(std::string_view text);

}  // namespace ltl
