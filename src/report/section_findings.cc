// Findings: report.json "findings" (one sentence each, aggregates only), the page's list, the
// terminal's findings of gateway logs.
#include <nlohmann/json.hpp>

#include "analyze/gateway_findings.h"
#include "report/html_text.h"
#include "report/report_section.h"

namespace ltl {
namespace {

using Json = nlohmann::ordered_json;

std::string FindingsHtml(const Profile& p) {
  std::string o = "<section id=\"findings\">\n<h2>Findings</h2>\n";
  if (p.findings.empty()) {
    o += "<p class=\"empty\">Nothing was flagged.</p>\n</section>\n";
    return o;
  }
  o += "<ul class=\"findings\">\n";
  for (const std::string& f : p.findings) o += "<li>" + HtmlEscape(f) + "</li>\n";
  o += "</ul>\n</section>\n";
  return o;
}

class FindingsPart final : public ReportSection {
 public:
  std::string_view name() const override { return "findings"; }
  std::string_view toc_title() const override { return "Findings"; }
  void AddJson(const Profile& p, Json* root) const override { (*root)["findings"] = p.findings; }
  std::string Html(const Profile& p) const override { return FindingsHtml(p); }
  std::string Terminal(const Profile& p) const override {
    std::string out;
    if (p.gateway.present) {
      const std::vector<std::string> findings = GatewayFindingSentences(p.gateway);
      if (!findings.empty()) {
        out += "\nfindings\n";
        for (const auto& s : findings) out += "  - " + s + "\n";
      }
    }
    return out;
  }
};

}  // namespace

const ReportSection& FindingsSection() {
  static const FindingsPart section;
  return section;
}

}  // namespace ltl
