// ReportSection: one part of the report as a plug-in. A section renders, from the Profile alone,
// what it adds to report.json, its <section> of report.html (and its entry in the page's table of
// contents) and its lines in the terminal summary; any of the three may be empty. Sections appear
// in every output in the order of report/section_registry.cc: adding one is one file defining
// `const ReportSection& <Name>Section()` and one X(<Name>Section) line there. What a section shows
// must already be in the Profile (computed in src/analyze/); its report.json keys are declared in
// docs/report.schema.json.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/profile.h"

namespace ltl {

class ReportSection {
 public:
  virtual ~ReportSection() = default;
  // The section's id: its HTML anchor (id="...") and its name in messages.
  virtual std::string_view name() const = 0;
  // Its entry in report.html's table of contents ("" = none); shown only when Html() is not empty.
  virtual std::string_view toc_title() const { return ""; }
  // Sets its keys on report.json's root object (nothing when it does not apply to this profile).
  virtual void AddJson(const Profile& p, nlohmann::ordered_json* root) const {
    (void)p;
    (void)root;
  }
  // Its part of report.html, one <section id="name()"> ("" when it does not apply).
  virtual std::string Html(const Profile& p) const {
    (void)p;
    return "";
  }
  // Its lines in the terminal summary ("" when none).
  virtual std::string Terminal(const Profile& p) const {
    (void)p;
    return "";
  }
};

// Every registered section, in report order.
const std::vector<const ReportSection*>& ReportSections();

}  // namespace ltl
