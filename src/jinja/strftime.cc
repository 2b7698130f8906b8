// strftime_now(): the request's own timestamp formatted like Python's datetime.strftime on Linux
// (glibc's conversions, C locale, UTC), never the wall clock.
#include <ctime>
#include <string>

#include "jinja/library.h"

namespace ltl::ct {

std::string FormatTime(std::string_view fmt, int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  // Python replaces %f (microseconds; the timestamp is whole seconds) before calling strftime.
  std::string f;
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] == '%' && i + 1 < fmt.size() && fmt[i + 1] == 'f') {
      f += "000000";
      ++i;
    } else if (fmt[i] == '%' && i + 1 < fmt.size() && fmt[i + 1] == '%') {
      f += "%%";
      ++i;
    } else {
      f.push_back(fmt[i]);
    }
  }
  if (f.empty()) return std::string();
  std::string out(f.size() * 4 + 64, '\0');
  while (true) {
    size_t n = std::strftime(out.data(), out.size(), f.c_str(), &tm);
    if (n > 0 || out.size() > (1u << 20)) {
      out.resize(n);
      return out;
    }
    out.resize(out.size() * 2);
  }
}

}  // namespace ltl::ct
