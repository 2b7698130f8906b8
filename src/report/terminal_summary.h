// TerminalSummary: the human summary printed to stdout after a profile.
#pragma once

#include <string>

#include "analyze/profile.h"

namespace ltl {

std::string RenderTerminalSummary(const Profile& p);

}  // namespace ltl
