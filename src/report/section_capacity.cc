// The capacity curve: the LRU hit rate at every size, with the knee and the across/same split
// (report.html's chart; its numbers are in the headline's report.json keys).
#include "report/capacity_chart.h"
#include "report/report_section.h"

namespace ltl {
namespace {

std::string CapacityHtml(const Profile& p) {
  std::string o = "<section id=\"capacity\">\n<h2>Capacity curve</h2>\n";
  o += "<p>Hit rate (share of input tokens served from cache) at every cache size, replaying the "
       "requests in time order against one LRU block cache. Where the curve flattens, more memory "
       "stops paying.";
  if (p.has_conversations)
    o += " The shaded areas split each hit by what could supply it: text shared with other "
         "conversations (templates, system prompts, tools) or an earlier turn of the same "
         "conversation.";
  o += "</p>\n";
  o += CapacityChartHtml(p);
  o += "<p class=\"note\">One global cache: a single worker, or perfect prefix-aware routing. With "
       "N workers behind hash routing each sees a partition; read the curve as fleet-level "
       "guidance.</p>\n</section>\n";
  return o;
}

class CapacityPart final : public ReportSection {
 public:
  std::string_view name() const override { return "capacity"; }
  std::string_view toc_title() const override { return "Capacity curve"; }
  std::string Html(const Profile& p) const override { return CapacityHtml(p); }
};

}  // namespace

const ReportSection& CapacitySection() {
  static const CapacityPart section;
  return section;
}

}  // namespace ltl
