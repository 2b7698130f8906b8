// report.json rendering (see report_json.h): every registered report section adds its keys, in
// order (report/report_section.h). Rates are ratios in [0, 1]; tokens are integers.
#include "report/report_json.h"

#include "report/report_section.h"

namespace ltl {

nlohmann::ordered_json ProfileToJson(const Profile& p) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const ReportSection* s : ReportSections()) s->AddJson(p, &j);
  return j;
}

std::string RenderReportJson(const Profile& p) {
  return ProfileToJson(p).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
         "\n";
}

}  // namespace ltl
