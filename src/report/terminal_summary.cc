// The terminal summary (see terminal_summary.h): every registered report section's lines, in
// order (report/report_section.h).
#include "report/terminal_summary.h"

#include "report/report_section.h"

namespace ltl {

std::string RenderTerminalSummary(const Profile& p) {
  std::string out;
  for (const ReportSection* s : ReportSections()) out += s->Terminal(p);
  return out;
}

}  // namespace ltl
