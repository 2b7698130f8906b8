// Fleets (--workers): report.json "fleet", the page's fleet chart and table, the terminal's
// policy x size table.
#include <nlohmann/json.hpp>

#include "report/fleet_chart.h"
#include "report/fleet_json.h"
#include "report/fleet_summary.h"
#include "report/report_section.h"

namespace ltl {
namespace {

using Json = nlohmann::ordered_json;

class FleetPart final : public ReportSection {
 public:
  std::string_view name() const override { return "fleet"; }
  std::string_view toc_title() const override { return "Fleet"; }
  void AddJson(const Profile& p, Json* root) const override {
    if (p.fleet) (*root)["fleet"] = FleetToJson(*p.fleet, p.block_size);
  }
  std::string Html(const Profile& p) const override {
    return p.fleet ? FleetSectionHtml(*p.fleet, p.block_size, p.warmup) : "";
  }
  std::string Terminal(const Profile& p) const override {
    return p.fleet ? RenderFleetSummary(*p.fleet, p.block_size, p.warmup) : "";
  }
};

}  // namespace

const ReportSection& FleetSection() {
  static const FleetPart section;
  return section;
}

}  // namespace ltl
