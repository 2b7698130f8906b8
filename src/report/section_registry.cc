// The registered report sections, in the order they appear in report.json, report.html and the
// terminal summary (see report_section.h). Adding a section: one file report/section_<name>.cc
// defining `const ReportSection& <Name>Section()`, and one X(<Name>Section) line below.
#include "report/report_section.h"

#define LTL_REPORT_SECTIONS(X)  \
  X(HeadlineSection)            \
  X(SamplingSection)            \
  X(EvictionPoliciesSection)    \
  X(TieredMemorySection)        \
  X(CapacitySection)            \
  X(EngineSection)              \
  X(FleetSection)               \
  X(FleetRankingSection)        \
  X(SessionsSection)            \
  X(ProviderPromptCacheSection) \
  X(PrefixesSection)            \
  X(DistributionsSection)       \
  X(TrafficSection)             \
  X(CacheTraceSection)          \
  X(FindingsSection)            \
  X(CacheBustersSection)        \
  X(SkippedSection)             \
  X(MethodSection)

namespace ltl {

#define LTL_DECLARE(section) const ReportSection& section();
LTL_REPORT_SECTIONS(LTL_DECLARE)
#undef LTL_DECLARE

const std::vector<const ReportSection*>& ReportSections() {
#define LTL_LIST(section) &section(),
  static const std::vector<const ReportSection*> all = {LTL_REPORT_SECTIONS(LTL_LIST)};
#undef LTL_LIST
  return all;
}

}  // namespace ltl
