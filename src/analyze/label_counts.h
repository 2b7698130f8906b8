// Counts keyed by values taken from the input (model names): the report's state per label must stay
// bounded however many distinct values a log holds, so past `keep` labels the rarest are folded
// into one "(N other ...)" entry (ties keep the smaller name).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ltl {

constexpr size_t kMaxReportedModels = 1000;

inline void FoldRareLabels(std::map<std::string, uint64_t>* counts, size_t keep, const char* what) {
  if (counts->size() <= keep) return;
  std::vector<std::pair<uint64_t, const std::string*>> order;
  order.reserve(counts->size());
  for (const auto& [label, n] : *counts) order.emplace_back(n, &label);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::map<std::string, uint64_t> kept;
  uint64_t other = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i < keep)
      kept.emplace(*order[i].second, order[i].first);
    else
      other += order[i].first;
  }
  kept[fmt::format("({} other {})", order.size() - keep, what)] += other;
  *counts = std::move(kept);
}

}  // namespace ltl
