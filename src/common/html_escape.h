// AppendHtmlEscaped: & < > " ' replaced by entities, the one escaping loop that report.html
// (report/html_text.h) and the chat-template engine's |escape filter (markupsafe's rule) share.
#pragma once

#include <string>
#include <string_view>

namespace ltl {

// Appends `text` to *out with & < > " ' as &amp; &lt; &gt; `double_quote` &#39;. The double quote's
// entity is the caller's: markupsafe (Jinja's |escape) writes "&#34;", report.html "&quot;".
void AppendHtmlEscaped(std::string_view text, std::string_view double_quote, std::string* out);

}  // namespace ltl
