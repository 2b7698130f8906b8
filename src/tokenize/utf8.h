// UTF-8 validity and repair for tokenizer input. Tokenizers work on Unicode text; bytes that are
// not valid UTF-8 are replaced by U+FFFD exactly as a browser's / node's TextDecoder would
// ("substitution of maximal subparts", Unicode 3.9 / WHATWG Encoding), so a log with stray bytes
// tokenizes as the reference implementations see it after decoding.
#pragma once

#include <string>
#include <string_view>

namespace ltl {

// True when `text` is well-formed UTF-8 (no overlongs, surrogates or code points above U+10FFFF).
bool IsValidUtf8(std::string_view text);

// Copies `text` into *out (replacing its contents), each maximal ill-formed subpart replaced by
// U+FFFD (EF BF BD).
void ReplaceInvalidUtf8(std::string_view text, std::string* out);

// Returns `text` itself when it is valid UTF-8, otherwise a repaired copy kept in *storage.
std::string_view ValidUtf8View(std::string_view text, std::string* storage);

}  // namespace ltl
