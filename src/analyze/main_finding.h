// MainFinding: the report's headline in one sentence, built from aggregate numbers only (ceiling,
// knee, split, session-identifier share) — what a reader should take away if they read nothing
// else.
#pragma once

#include <string>

#include "analyze/profile.h"

namespace ltl {

std::string MainFinding(const Profile& p);

// Appends to p->findings what the report itself can tell from the numbers: the two leaderboards
// disagreeing, and the across/same split being unavailable. Call after BuildProfile filled p.
void AppendDerivedFindings(Profile* p);

}  // namespace ltl
