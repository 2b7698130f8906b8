// llmtrafficlens entry point: builds the command line, dispatches to a command, maps failures to
// exit codes (0 ok, 1 finished with too many rows skipped, 2 unusable input or arguments).
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>

#include "cli/commands.h"
#include "common/atomic_file.h"

int main(int argc, char** argv) {
  ltl::InstallInterruptCleanup();
  CLI::App app{
      "llmtrafficlens: measure how much prefill a prefix (KV) cache would save on real "
      "LLM traffic, and export anonymized replayable traces"};
  app.set_version_flag("--version", std::string("llmtrafficlens ") + LTL_VERSION);
  app.require_subcommand(1);
  ltl::cli::CommandRegistry registry;
  ltl::cli::RegisterCommands(app, registry);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return registry.Run();
}
