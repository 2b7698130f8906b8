// The code points whose general category the reference tokenizers (Unicode 16) and PCRE2 10.42
// (Unicode 14) disagree on, per property, as PCRE2 bracket-class members.
// Internal to src/tokenize/ (tests/build/internal_headers.cmake).
#pragma once

#include <string_view>

namespace ltl {

// Members to add to `\p{prop}` ("L", "N", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "P", "S") so that
// PCRE2 matches what Unicode 16 assigns to it; "" when nothing is missing.
std::string_view UnicodeDeltaMembers(std::string_view prop);

}  // namespace ltl
