// ReplayProviderCache: the replays with rules switched on one at a time (provider_gap.h).
#include "simulate/provider_gap.h"

namespace ltl {
namespace {

bool* RuleFlag(ProviderRules* rules, std::string_view rule) {
  if (rule == "partition") return &rules->partition;
  if (rule == "minimum") return &rules->minimum;
  if (rule == "breakpoints") return &rules->breakpoints;
  if (rule == "cap") return &rules->cap;
  if (rule == "lookback") return &rules->lookback;
  if (rule == "ttl") return &rules->ttl;
  if (rule == "increments") return &rules->increments;
  return nullptr;
}

int64_t TotalRead(const ProviderCacheModel& model, const ProviderRules& rules, size_t n,
                  const ProviderRequestSource& request,
                  std::vector<ProviderPrediction>* predictions) {
  std::unique_ptr<ProviderCacheReplay> replay = model.Start(rules);
  int64_t total = 0;
  if (predictions) predictions->resize(n);
  for (size_t i = 0; i < n; ++i) {
    ProviderPrediction p = replay->Next(request(i));
    total += p.read;
    if (predictions) (*predictions)[i] = p;
  }
  return total;
}

}  // namespace

ProviderReplayResult ReplayProviderCache(const ProviderCacheModel& model,
                                         const ProviderRules& rules, size_t n,
                                         const ProviderRequestSource& request,
                                         std::string_view loss_rule) {
  ProviderReplayResult out;
  const std::vector<std::string_view> order = model.RuleOrder();
  auto traced = [&](size_t k) { return k < order.size() && order[k] == loss_rule; };
  ProviderRules step = rules;
  for (std::string_view rule : order)
    if (bool* flag = RuleFlag(&step, rule)) *flag = false;
  // The replay before the traced rule keeps its predictions (`before`), the traced one too.
  std::vector<ProviderPrediction> before, after;
  int64_t previous = TotalRead(model, step, n, request, traced(0) ? &before : nullptr);
  out.rule_free_read = previous;
  for (size_t k = 0; k < order.size(); ++k) {
    if (bool* flag = RuleFlag(&step, order[k])) *flag = true;
    const bool last = k + 1 == order.size();
    std::vector<ProviderPrediction>* keep = last            ? &out.predictions
                                            : traced(k + 1) ? &before
                                            : traced(k)     ? &after
                                                            : nullptr;
    const int64_t read = TotalRead(model, step, n, request, keep);
    if (traced(k)) {
      const std::vector<ProviderPrediction>& now = last ? out.predictions : after;
      out.loss.resize(n);
      for (size_t i = 0; i < n; ++i) out.loss[i] = before[i].read - now[i].read;
    }
    out.gap.push_back({order[k], previous - read});
    previous = read;
  }
  if (order.empty()) TotalRead(model, step, n, request, &out.predictions);
  return out;
}

}  // namespace ltl
