// Skipped rows: the page's table of skip reasons (the counts are in the headline's report.json
// "counts").
#include <fmt/format.h>

#include "common/units.h"
#include "report/html_text.h"
#include "report/html_widgets.h"
#include "report/report_section.h"

namespace ltl {
namespace {

std::string SkippedHtml(const Profile& p) {
  std::string o = "<section id=\"skipped\">\n<h2>Skipped rows</h2>\n";
  if (p.skipped.total() == 0 && p.filtered_status == 0) {
    o += fmt::format("<p>None: all {} rows read were replayed.</p>\n</section>\n",
                     Commas(p.rows_read));
    return o;
  }
  o += fmt::format("<p>{} of {} rows were skipped ({}); a skipped row is not replayed.</p>\n",
                   Commas(p.skipped.total()), Commas(p.rows_read),
                   Percent(Ratio(p.skipped.total(), p.rows_read)));
  if (p.skipped.total() > 0) {
    o += "<table id=\"skipped-table\"><thead><tr><th>reason</th><th class=\"num\">rows</th>"
         "<th>first rows (line or record number)</th></tr></thead><tbody>\n";
    for (const auto& [reason, e] : p.skipped.by_reason()) {
      std::string lines;
      for (uint64_t l : e.lines) lines += (lines.empty() ? "" : ", ") + Commas(l);
      o += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                       HtmlEscape(reason), Commas(e.count), lines);
    }
    o += "</tbody></table>\n";
  }
  if (p.filtered_status > 0)
    o += fmt::format("<p>{} further rows had a non-2xx status code and were not replayed.</p>\n",
                     Commas(p.filtered_status));
  o += "</section>\n";
  return o;
}

class SkippedPart final : public ReportSection {
 public:
  std::string_view name() const override { return "skipped"; }
  std::string_view toc_title() const override { return "Skipped rows"; }
  std::string Html(const Profile& p) const override { return SkippedHtml(p); }
};

}  // namespace

const ReportSection& SkippedSection() {
  static const SkippedPart section;
  return section;
}

}  // namespace ltl
