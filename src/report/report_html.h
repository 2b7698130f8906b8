// ReportHtml: the Profile as one self-contained report.html — inline CSS and SVG, no scripts, no
// network, no external fonts — with the headline, capacity curve, leaderboards, distributions, QPS,
// findings, skipped rows and method. Every input-derived string is HTML-escaped.
#pragma once

#include <string>

#include "analyze/profile.h"

namespace ltl {

std::string RenderReportHtml(const Profile& p);

}  // namespace ltl
