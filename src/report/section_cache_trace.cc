// Cache traces (cctrace): report.json "cctrace" and the terminal's reference-replay line (the
// page states it in the method section).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/units.h"
#include "report/report_section.h"

namespace ltl {
namespace {

using Json = nlohmann::ordered_json;

Json CctraceRatesJson(const CctraceRates& r) {
  return Json{{"requests", r.requests}, {"blocks", r.blocks},         {"hit_blocks", r.hit_blocks},
              {"tokens", r.tokens},     {"hit_tokens", r.hit_tokens}, {"hit_rate", r.hit_rate()}};
}

Json CctraceJson(const CctraceSummary& c) {
  Json convs = Json::array();
  for (const auto& cs : c.conversations)
    convs.push_back(Json{{"id", cs.id},
                         {"segment", cs.segment},
                         {"subagents", cs.subagents},
                         {"parent", CctraceRatesJson(cs.parent)},
                         {"subagent", CctraceRatesJson(cs.subagent)}});
  return Json{
      {"files", c.files},
      {"ignored_files", c.ignored_files},
      {"subagents", c.subagents},
      {"warm_prefix", c.warm_prefix},
      {"warm_blocks", c.warm_blocks},
      {"usage", Json{{"parent", Json{{"input", c.parent_in}, {"output", c.parent_out}}},
                     {"subagent", Json{{"input", c.subagent_in}, {"output", c.subagent_out}}}}},
      {"reference_replay",
       Json{{"parent", CctraceRatesJson(c.parent)}, {"subagent", CctraceRatesJson(c.subagent)}}},
      {"conversations", convs}};
}

class CacheTracePart final : public ReportSection {
 public:
  std::string_view name() const override { return "cctrace"; }
  void AddJson(const Profile& p, Json* root) const override {
    if (p.cctrace.present) (*root)["cctrace"] = CctraceJson(p.cctrace);
  }
  std::string Terminal(const Profile& p) const override {
    std::string out;
    if (p.cctrace.present) {
      const CctraceSummary& c = p.cctrace;
      out += fmt::format(
          "\ncache trace: {} conversations · {} sub-agents{}\n"
          "reference replay (unbounded, cold, a cache per conversation, fresh per sub-agent):\n"
          "  parent {}  ·  sub-agents {}\n",
          WithCommas(static_cast<int64_t>(c.files)), WithCommas(static_cast<int64_t>(c.subagents)),
          c.warm_prefix ? fmt::format(" · warm prefix {} blocks",
                                      WithCommas(static_cast<int64_t>(c.warm_blocks)))
                        : "",
          Percent(c.parent.hit_rate()), c.subagent.requests ? Percent(c.subagent.hit_rate()) : "-");
    }
    return out;
  }
};

}  // namespace

const ReportSection& CacheTraceSection() {
  static const CacheTracePart section;
  return section;
}

}  // namespace ltl
