// Session identifiers and gateway-log facts: report.json "session_ids" and "gateway", the
// terminal's session-identifier and provider-cache lines.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/units.h"
#include "report/gateway_findings_render.h"
#include "report/html_widgets.h"
#include "report/report_section.h"

namespace ltl {
namespace {

using Json = nlohmann::ordered_json;

std::string SessionLine(const Profile& p) {
  const double share =
      p.requests > 0 ? static_cast<double>(p.dist.with_session_id) / static_cast<double>(p.requests)
                     : 0.0;
  const char* note = share == 0    ? "affinity routing cannot reach this reuse"
                     : share < 0.5 ? "affinity routing reaches only these requests"
                                   : "affinity routing can pin most conversations";
  return fmt::format("session identifiers  {} of requests  ({})\n", Percent(share), note);
}

class SessionsPart final : public ReportSection {
 public:
  std::string_view name() const override { return "sessions"; }
  void AddJson(const Profile& p, Json* root) const override {
    Json& j = *root;
    const Distributions& d = p.dist;
    Json fields = Json::object();
    for (const auto& [f, n] : d.session_fields) fields[f] = n;
    j["session_ids"] = Json{
        {"requests", d.with_session_id},
        {"share", Ratio(static_cast<int64_t>(d.with_session_id), static_cast<int64_t>(p.requests))},
        {"fields", fields}};
    if (p.gateway.present) j["gateway"] = GatewayFindingsJson(p.gateway);
  }
  std::string Terminal(const Profile& p) const override {
    // Gateway logs name the session fields they saw; other inputs get the generic line.
    return p.gateway.present ? GatewayFindingsLines(p.gateway) : SessionLine(p);
  }
};

}  // namespace

const ReportSection& SessionsSection() {
  static const SessionsPart section;
  return section;
}

}  // namespace ltl
