// TerminalSummary: the human summary printed to stdout after a profile.
#pragma once

#include <string>

#include "report/profile.h"

namespace ltl {

std::string RenderTerminalSummary(const Profile& p);

}  // namespace ltl
