// Small pieces every report section uses: ratios, thousands separators, and the HTML building
// blocks of the page (cards, share bars, count tables, histogram panels).
// Internal to src/report/ (tests/build/internal_headers.cmake).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analyze/profile.h"

namespace ltl {

inline double Ratio(int64_t a, int64_t b) {
  return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}
inline double Ratio(uint64_t a, uint64_t b) {
  return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}
std::string Commas(uint64_t v);

// A headline card: label, big value, one line of detail.
std::string Card(const std::string& label, const std::string& value, const std::string& detail,
                 const char* value_class = "");
// A table cell with a bar proportional to `share` and its percentage.
std::string ShareCell(double share);
// "p50 · p90 · p99 · max · mean · n" of a distribution.
std::string QuantLine(const Quantiles& q, const char* unit);
// A titled histogram panel (its quantiles and an SVG bar chart).
std::string HistPanel(const std::string& id, const std::string& title, const Quantiles& q,
                      const std::vector<HistogramBin>& bins, const char* unit,
                      const std::string& x_label, const std::string& counted);
// A table of names with request counts and share bars.
std::string CountTable(const std::string& id, const char* what,
                       const std::vector<std::pair<std::string, uint64_t>>& items, uint64_t total);

}  // namespace ltl
