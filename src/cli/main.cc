// llmtrafficlens entry point: builds the command line, dispatches to a command, maps failures to
// exit codes (0 ok, 1 finished with too many rows skipped, 2 unusable input or arguments).
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>

#include <exception>
#include <new>
#include <system_error>

#include "cli/commands.h"
#include "cli/option_limits.h"
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
  if (ltl::Status st = ltl::cli::CheckNumericOptions(app); !st.ok()) {
    std::fprintf(stderr, "llmtrafficlens: %s\n", st.message().c_str());
    return 2;
  }
  // The last line of defence: a resource the system refuses (memory, threads) ends the run with
  // one line and exit 2, not an abort; pending temporary outputs are removed.
  try {
    return registry.Run();
  } catch (const std::bad_alloc&) {
    ltl::RemovePendingTempFiles();
    std::fputs("llmtrafficlens: out of memory; nothing was written\n", stderr);
  } catch (const std::system_error& e) {
    ltl::RemovePendingTempFiles();
    std::fprintf(stderr,
                 "llmtrafficlens: the system refused a resource (%s); nothing was written\n",
                 e.what());
  }
  return 2;
}
