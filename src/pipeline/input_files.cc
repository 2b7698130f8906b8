// FILE... arguments: globs, stdin, names (see input_files.h).
#include "pipeline/input_files.h"

#include <fmt/format.h>
#include <glob.h>

#include <filesystem>
#include <set>

#include "pipeline/input_settings.h"
#include "read/postgres_input.h"

namespace ltl {
namespace {

bool HasGlobChars(const std::string& s) {
  return s.find_first_of("*?[") != std::string::npos;
}

// glob(3) (POSIX; the shell's own rules for *, ? and [...]): the matches, sorted.
Result<std::vector<std::string>> Glob(const std::string& pattern) {
  glob_t g{};
  const int rc = glob(pattern.c_str(), GLOB_ERR, nullptr, &g);
  std::vector<std::string> out;
  if (rc == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  globfree(&g);
  if (rc == GLOB_NOMATCH || (rc == 0 && out.empty()))
    return Status::NotFound(fmt::format("{}: no file matches this pattern", pattern));
  if (rc != 0) return Status::IoError(fmt::format("{}: cannot expand this pattern", pattern));
  return out;
}

}  // namespace

Result<std::vector<InputName>> ExpandInputs(const std::vector<std::string>& args) {
  std::vector<InputName> out;
  std::set<std::string> seen;
  for (const std::string& a : args) {
    std::vector<std::string> paths;
    std::error_code ec;
    if (a != "-" && !IsPostgresUri(a) && HasGlobChars(a) && !std::filesystem::exists(a, ec)) {
      auto matched = Glob(a);
      if (!matched.ok()) return matched.status();
      paths = std::move(matched).value();
    } else {
      paths.push_back(a);
    }
    for (std::string& p : paths) {
      if (!seen.insert(p).second)
        return Status::InvalidArgument(
            fmt::format("{}: given twice (each file is read once per run)", InputDisplayName(p)));
      out.push_back(InputName{p, InputDisplayName(p)});
    }
  }
  if (out.size() > 1)
    for (const InputName& in : out)
      if (in.path == "-")
        return Status::InvalidArgument("-: standard input is read alone, not with other files");
  return out;
}

std::string RunInputName(const std::vector<InputName>& inputs) {
  if (inputs.size() == 1) return inputs.front().name;
  return fmt::format("{} files", inputs.size());
}

}  // namespace ltl
