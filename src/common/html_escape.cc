// HTML escaping shared by the report and the chat-template engine (see html_escape.h).
#include "common/html_escape.h"

namespace ltl {

void AppendHtmlEscaped(std::string_view text, std::string_view double_quote, std::string* out) {
  out->reserve(out->size() + text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out->append("&amp;");
        break;
      case '<':
        out->append("&lt;");
        break;
      case '>':
        out->append("&gt;");
        break;
      case '"':
        out->append(double_quote);
        break;
      case '\'':
        out->append("&#39;");
        break;
      default:
        out->push_back(c);
    }
  }
}

}  // namespace ltl
