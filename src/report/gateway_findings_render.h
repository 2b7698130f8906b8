// The gateway findings (analyze/gateway_findings.h) as report.json's "gateway" object and as the
// terminal's session-identifier and provider-cache lines.
// Internal to src/report/ (tests/build/internal_headers.cmake).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "analyze/gateway_findings.h"

namespace ltl {

// report.json's "gateway" object (docs/FORMATS.md).
nlohmann::ordered_json GatewayFindingsJson(const GatewayFindings& f);

// The session-identifier and provider-cache lines; "" when not a gateway log.
std::string GatewayFindingsLines(const GatewayFindings& f);

}  // namespace ltl
