// ReportJson: the Profile as report.json (every field documented in docs/FORMATS.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "analyze/profile.h"

namespace ltl {

nlohmann::ordered_json ProfileToJson(const Profile& p);
std::string RenderReportJson(const Profile& p);  // pretty-printed, newline-terminated

}  // namespace ltl
