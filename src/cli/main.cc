// llmtrafficlens entry point: installs the interrupt clean-up and runs the command line
// (cli/command_line.h: 0 ok, 1 finished with too many rows skipped, 2 unusable input or arguments).
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "common/atomic_file.h"

int main(int argc, char** argv) {
  ltl::InstallInterruptCleanup();
  return ltl::cli::RunCommandLine(std::vector<std::string>(argv, argv + argc));
}
