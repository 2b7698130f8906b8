// Export order (see export_order.h).
#include "export/export_order.h"

#include <algorithm>
#include <cmath>

namespace ltl {

namespace {
// Times past year 128,000 (or before -124,000) are clamped so microseconds, and differences of
// two of them, fit in int64.
double ClampSeconds(double s) {
  return std::clamp(s, -4e12, 4e12);
}
}  // namespace

int64_t RoundToMillis(double seconds) {
  return std::llround(ClampSeconds(seconds) * 1e3);
}
int64_t RoundToMicros(double seconds) {
  return std::llround(ClampSeconds(seconds) * 1e6);
}

}  // namespace ltl
