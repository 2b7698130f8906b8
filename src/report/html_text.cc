// HTML escaping (see html_text.h).
#include "report/html_text.h"

#include "common/html_escape.h"

namespace ltl {

std::string HtmlEscape(std::string_view text) {
  std::string out;
  AppendHtmlEscaped(text, "&quot;", &out);
  return out;
}

}  // namespace ltl
