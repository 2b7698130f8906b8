// Timestamp parsing (see timestamp.h).
#include "read/timestamp.h"

#include <charconv>
#include <cmath>

namespace ltl {
namespace {

bool Digits(std::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

bool ParseNumber(std::string_view s, double* out) {
  if (s.empty()) return false;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (*b == '+') ++b;
  auto r = std::from_chars(b, e, *out);
  return r.ec == std::errc() && r.ptr == e && std::isfinite(*out);
}

bool ParseDateTime(std::string_view s, double* out) {
  int y, mo, d, h = 0, mi = 0, sec = 0;
  if (!Digits(s, 0, 4, &y) || s.size() < 10 || s[4] != '-' || !Digits(s, 5, 2, &mo) ||
      s[7] != '-' || !Digits(s, 8, 2, &d))
    return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return false;
  size_t i = 10;
  double frac = 0;
  if (i < s.size() && (s[i] == 'T' || s[i] == 't' || s[i] == ' ')) {
    ++i;
    if (!Digits(s, i, 2, &h) || i + 2 >= s.size() || s[i + 2] != ':' || !Digits(s, i + 3, 2, &mi))
      return false;
    i += 5;
    if (i < s.size() && s[i] == ':') {
      if (!Digits(s, i + 1, 2, &sec)) return false;
      i += 3;
      if (i < s.size() && (s[i] == '.' || s[i] == ',')) {
        size_t j = i + 1;
        double scale = 0.1;
        while (j < s.size() && s[j] >= '0' && s[j] <= '9') {
          frac += (s[j] - '0') * scale;
          scale /= 10;
          ++j;
        }
        if (j == i + 1) return false;
        i = j;
      }
    }
    if (h > 24 || mi > 59 || sec > 60) return false;
  }
  // Zone: none (UTC), Z, " UTC", +HH, +HHMM, +HH:MM (also after a space, as Postgres prints).
  int offset_min = 0;
  if (i < s.size() && s[i] == ' ') ++i;
  if (i < s.size()) {
    std::string_view z = s.substr(i);
    if (z == "Z" || z == "z" || z == "UTC" || z == "GMT") {
      i = s.size();
    } else if (z[0] == '+' || z[0] == '-') {
      int oh, om = 0;
      if (!Digits(z, 1, 2, &oh)) return false;
      size_t k = 3;
      if (k < z.size() && z[k] == ':') ++k;
      if (k < z.size()) {
        if (!Digits(z, k, 2, &om)) return false;
        k += 2;
      }
      if (k != z.size() || oh > 23 || om > 59) return false;
      offset_min = (oh * 60 + om) * (z[0] == '-' ? -1 : 1);
      i = s.size();
    } else {
      return false;
    }
  }
  int64_t days = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  *out = static_cast<double>(days * 86400 + h * 3600 + mi * 60 + sec - offset_min * 60) + frac;
  return true;
}

}  // namespace

const std::vector<std::string_view>& TimestampColumnNames() {
  static const std::vector<std::string_view> names = {
      "timestamp",          "ts",       "created_at", "start_time", "starttime",
      "request_created_at", "time",     "started_at", "created",    "request_time",
      "request_timestamp",  "datetime", "@timestamp", "date"};
  return names;
}

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  // Howard Hinnant's days_from_civil.
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

double EpochSecondsFromNumber(double v) {
  double a = std::fabs(v);
  if (a < 1e11) return v;
  if (a < 1e14) return v / 1e3;
  if (a < 1e17) return v / 1e6;
  return v / 1e9;
}

bool ParseTimestamp(std::string_view text, double* epoch_seconds) {
  size_t b = text.find_first_not_of(" \t\"");
  size_t e = text.find_last_not_of(" \t\"\r");
  if (b == std::string_view::npos) return false;
  std::string_view s = text.substr(b, e - b + 1);
  double v;
  if (ParseNumber(s, &v)) {
    *epoch_seconds = EpochSecondsFromNumber(v);
    return true;
  }
  return ParseDateTime(s, epoch_seconds);
}

}  // namespace ltl
