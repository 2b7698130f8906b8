// FindCapacityKnee (see capacity_knee.h): scan a log grid for the last capacity whose doubling
// still gains at least min_gain; the knee is the next grid point.
#include "analyze/capacity_knee.h"

#include <cmath>
#include <vector>

namespace ltl {

CapacityKnee FindCapacityKnee(const std::function<double(uint64_t)>& rate,
                              uint64_t saturation_blocks, double min_gain) {
  CapacityKnee k;
  k.min_gain = min_gain;
  if (saturation_blocks == 0 || rate(saturation_blocks) <= 0) return k;
  // Distinct integer capacities on a 1/16-octave grid from 1 to the saturation point.
  std::vector<uint64_t> grid;
  const double top = std::log2(static_cast<double>(saturation_blocks));
  for (int step = 0;; ++step) {
    const double e = step / 16.0;
    uint64_t c = e >= top ? saturation_blocks : static_cast<uint64_t>(std::llround(std::exp2(e)));
    if (grid.empty() || c > grid.back()) grid.push_back(c);
    if (c >= saturation_blocks) break;
  }
  size_t knee = 0;  // index of the knee in grid
  for (size_t i = 0; i < grid.size(); ++i)
    if (rate(2 * grid[i]) - rate(grid[i]) >= min_gain) knee = i + 1;
  if (knee >= grid.size()) knee = grid.size() - 1;
  k.found = true;
  k.capacity_blocks = grid[knee];
  k.hit_rate = rate(k.capacity_blocks);
  return k;
}

}  // namespace ltl
