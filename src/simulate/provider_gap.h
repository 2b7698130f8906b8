// The provider-cache replay of a whole trace, with the gap to the rule-free cache split into
// causes: the model is replayed once with every rule off, then once more each time the next rule
// of its RuleOrder() is switched on; a cause's tokens are the read tokens its rule took away (the
// difference between consecutive replays). The last replay applies every rule: its per-request
// predictions are the model's. Sequential attribution depends on the order, which is fixed per
// model and documented (docs/SEMANTICS.md, "Provider caches").
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "simulate/provider_cache.h"

namespace ltl {

struct ProviderGapCause {
  std::string_view rule;  // a name of ProviderCacheModel::RuleOrder()
  int64_t tokens = 0;     // read tokens lost when the rule is applied (may be < 0: a rule can
                          // also make a later read possible)
};

struct ProviderReplayResult {
  std::vector<ProviderPrediction> predictions;  // per request, every rule applied
  int64_t rule_free_read = 0;                   // read tokens with every rule off
  std::vector<ProviderGapCause> gap;            // in RuleOrder()
  // With `loss_rule`: per request, the read tokens that rule took away (its replay's read minus
  // the previous replay's); empty otherwise.
  std::vector<int64_t> loss;
};

// `request(i)` returns request i (0 <= i < n) in replay order; pointers it holds need only stay
// valid until the next call.
using ProviderRequestSource = std::function<ProviderRequest(size_t)>;

ProviderReplayResult ReplayProviderCache(const ProviderCacheModel& model,
                                         const ProviderRules& rules, size_t n,
                                         const ProviderRequestSource& request,
                                         std::string_view loss_rule = {});

}  // namespace ltl
