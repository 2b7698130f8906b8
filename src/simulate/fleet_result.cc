// Load-spread statistics of a fleet point (see fleet_result.h).
#include "simulate/fleet_result.h"

#include <cmath>

namespace ltl {

double CoefficientOfVariation(const std::vector<double>& values) {
  if (values.empty()) return 0.0;
  double mean = 0;
  for (double v : values) mean += v;
  mean /= static_cast<double>(values.size());
  if (mean == 0) return 0.0;
  double var = 0;
  for (double v : values) var += (v - mean) * (v - mean);
  var /= static_cast<double>(values.size());
  return std::sqrt(var) / mean;
}

double FleetPoint::RequestsCv() const {
  return CoefficientOfVariation(std::vector<double>(requests.begin(), requests.end()));
}

double FleetPoint::UncachedCv() const {
  return CoefficientOfVariation(
      std::vector<double>(uncached_tokens.begin(), uncached_tokens.end()));
}

}  // namespace ltl
