// The list of commands and the shared error printing.
#include "cli/commands.h"

#include <cstdio>

#include "common/safe_label.h"

namespace ltl::cli {

void RegisterCommands(CLI::App& app, CommandRegistry& registry) {
  RegisterProfile(app, registry);
  RegisterListModels(app, registry);
  RegisterExport(app, registry);
  RegisterTokenize(app, registry);
  RegisterListSources(app, registry);
  RegisterHashShard(app, registry);
}

void PrintError(const std::string& message) {
  std::fprintf(stderr, "llmtrafficlens: %s\n", EscapeForTerminal(message).c_str());
}

void PrintWarning(const std::string& message) {
  std::fprintf(stderr, "llmtrafficlens: warning: %s\n", EscapeForTerminal(message).c_str());
}

}  // namespace ltl::cli
