// HTML escaping for report.html: every string that came from the input goes through HtmlEscape.
// (Compact number and time formats are in common/units.h.)
#pragma once

#include <string>
#include <string_view>

namespace ltl {

// Escapes & < > " ' so the text is inert in element content and in quoted attribute values.
std::string HtmlEscape(std::string_view text);

}  // namespace ltl
