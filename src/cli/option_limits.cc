// CheckNumericOptions (see option_limits.h): the ranges of the numeric options, in one table.
#include "cli/option_limits.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string_view>

namespace ltl::cli {
namespace {

struct Limit {
  std::string_view option;
  double min, max;
  const char* why;  // shown with the bound
};

// Bounds an option's own code does not already enforce (those keep their specific messages).
constexpr Limit kLimits[] = {
    {"--threads", 0, kMaxThreads, "0 = all cores"},
    {"--block-size", 0, 1 << 20, "tokens per block; 0 = the input's or the default"},
    {"--trace-block-size", 0, 1 << 20, "tokens per block"},
    {"--kv-bytes-per-token", 0, 1 << 30, "bytes of KV cache per token"},
    {"--max-skip-share", 0, 1, "a share of the rows"},
    {"--workers", 0, 1 << 16, "simulated workers"},
    {"--prefill-rate", 0, 1e12, "tokens per second"},
    {"--decode-rate", 0, 1e12, "tokens per second"},
    {"--show-prefix-text", 0, 1000, "prefixes"},
    {"--default-output-length", 0, 1 << 30, "tokens"},
    {"--sample-rate", 0, 1, "a share of the blocks, above 0"},
    {"--sample-max-blocks", 0, 4294967295.0, "kept distinct blocks; 0 = no cap"},
};

bool ParseNumber(const std::string& text, double* v) {
  errno = 0;
  char* end = nullptr;
  *v = std::strtod(text.c_str(), &end);
  return end != text.c_str() && *end == '\0';
}

Status CheckOption(const CLI::Option& opt) {
  const std::string type = opt.get_type_name();
  const std::string name = opt.get_lnames().empty() ? opt.get_name() : "--" + opt.get_lnames()[0];
  const Limit* limit = nullptr;
  for (const Limit& l : kLimits)
    if (l.option == name) limit = &l;
  for (const std::string& text : opt.results()) {
    double v = 0;
    if (type == "UINT" && !text.empty() && text.front() == '-')
      return Status::InvalidArgument(fmt::format("{}: '{}' is negative", name, text));
    if (type != "FLOAT" && type != "UINT" && type != "INT" && !limit) continue;
    if (!ParseNumber(text, &v)) continue;  // CLI11 already refused what is not a number
    if (!std::isfinite(v))
      return Status::InvalidArgument(fmt::format("{}: '{}' is not a finite number", name, text));
    if (limit && (v < limit->min || v > limit->max))
      return Status::InvalidArgument(fmt::format("{}: {} is out of range [{}, {}] ({})", name, text,
                                                 limit->min, limit->max, limit->why));
  }
  return Status::Ok();
}

}  // namespace

Status CheckNumericOptions(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt->count() == 0) continue;
      LTL_RETURN_IF_ERROR(CheckOption(*opt));
    }
    LTL_RETURN_IF_ERROR(CheckNumericOptions(*sub));
  }
  return Status::Ok();
}

}  // namespace ltl::cli
