// llmtrafficlens entry point: forbids core dumps, installs the interrupt clean-up and runs the
// command line (cli/command_line.h: 0 ok, 1 finished with too many rows skipped, 2 unusable input
// or arguments).
#include <sys/prctl.h>
#include <sys/resource.h>

#include <string>
#include <vector>

#include "cli/command_line.h"
#include "common/atomic_file.h"

namespace {

// The process holds prompt text and the salt in memory: a core dump of an abort would write both
// to disk where the report's privacy rules do not reach (issue 35, item 5). RLIMIT_CORE 0 stops the
// kernel writing a core file; a core_pattern that pipes to a program (systemd-coredump, apport) is
// not bound by that limit, so PR_SET_DUMPABLE 0 as well, which stops every core dump and keeps
// other processes of this user from attaching to this one or reading its memory (ptrace,
// /proc/PID/mem). Both only lower privileges, so a failure is ignored. docs/ROBUSTNESS.md.
void ForbidCoreDumps() {
  struct rlimit none = {0, 0};
  (void)::setrlimit(RLIMIT_CORE, &none);
  (void)::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

}  // namespace

int main(int argc, char** argv) {
  ForbidCoreDumps();
  ltl::InstallInterruptCleanup();
  return ltl::cli::RunCommandLine(std::vector<std::string>(argv, argv + argc));
}
