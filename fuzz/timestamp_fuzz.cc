// libFuzzer target: the gateway timestamp parser. Properties beyond "no crash":
//  - a parsed time is finite;
//  - surrounding spaces, tabs and quotes do not change the value;
//  - a parsed time within years 1..9999 whose magnitude reads back as seconds, written back as
//    ISO-8601 ("YYYY-MM-DDTHH:MM:SS.fffffffffZ", by a civil-from-days conversion written here
//    independently of the parser's days-from-civil) and as a plain number of seconds, parses to
//    the same value (to within float rounding).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "fuzz/fuzz_util.h"
#include "read/timestamp.h"

namespace {

// Howard Hinnant's civil_from_days, the inverse of the parser's DaysFromCivil.
void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

bool Near(double a, double b) {
  return std::fabs(a - b) <= 1e-3 + 1e-12 * std::fabs(a);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  double t;
  if (!ltl::ParseTimestamp(text, &t)) return 0;
  LTL_FUZZ_CHECK(std::isfinite(t));

  std::string padded = " \t\"" + std::string(text) + "\" ";
  double t2;
  LTL_FUZZ_CHECK(ltl::ParseTimestamp(padded, &t2) && t2 == t);

  // -62135596800 is 0001-01-01T00:00:00Z; 253402300800 is 10000-01-01.
  if (!(t >= -62135596800.0 && t < 253402300800.0)) return 0;
  const double whole = std::floor(t);
  const int64_t secs = static_cast<int64_t>(whole);
  int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
  int64_t rem = secs - days * 86400;
  int64_t y;
  unsigned mo, d;
  CivilFromDays(days, &y, &mo, &d);
  const long long nanos = std::min(std::llround((t - whole) * 1e9), 999999999LL);
  char iso[80];
  std::snprintf(iso, sizeof iso, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%09lldZ",
                static_cast<long long>(y), mo, d, static_cast<long long>(rem / 3600),
                static_cast<long long>(rem / 60 % 60), static_cast<long long>(rem % 60), nanos);
  double t3;
  LTL_FUZZ_CHECK(ltl::ParseTimestamp(iso, &t3));
  LTL_FUZZ_CHECK(Near(t3, t));

  if (std::fabs(t) < 1e11) {  // below 1e11 a bare number is read as seconds
    char num[64];
    std::snprintf(num, sizeof num, "%.17g", t);
    double t4;
    LTL_FUZZ_CHECK(ltl::ParseTimestamp(num, &t4) && t4 == t);
  }
  return 0;
}
