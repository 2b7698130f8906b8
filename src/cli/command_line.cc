// RunCommandLine (see command_line.h): one CLI11 app per call, so concurrent calls from different
// threads (a Dask worker's threads) share no parser state; the message sink is per thread.
#include "cli/command_line.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <new>
#include <sstream>
#include <system_error>

#include "cli/commands.h"
#include "cli/option_limits.h"
#include "common/atomic_file.h"

namespace ltl::cli {
namespace {

// Installs a sink for the duration of a run on this thread.
class ScopedSink {
 public:
  explicit ScopedSink(const MessageSink* sink) : saved_(CurrentMessageSink()) {
    if (sink) SetMessageSink(sink);
  }
  ~ScopedSink() { SetMessageSink(saved_); }
  ScopedSink(const ScopedSink&) = delete;
  ScopedSink& operator=(const ScopedSink&) = delete;

 private:
  const MessageSink* saved_;
};

void BuildApp(CLI::App& app, CommandRegistry& registry) {
  app.description(
      "llmtrafficlens: measure how much prefill a prefix (KV) cache would save on real "
      "LLM traffic, and export anonymized replayable traces");
  app.set_version_flag("--version", std::string("llmtrafficlens ") + LTL_VERSION);
  app.require_subcommand(1);
  RegisterCommands(app, registry);
}

}  // namespace

int RunCommandLine(const std::vector<std::string>& args, const MessageSink* sink) {
  ScopedSink scoped(sink);
  CLI::App app;
  CommandRegistry registry;
  BuildApp(app, registry);
  app.name(args.empty() ? "llmtrafficlens" : args.front());
  try {
    std::vector<std::string> rest(args.size() > 1 ? args.begin() + 1 : args.end(), args.end());
    std::reverse(rest.begin(), rest.end());  // CLI11 takes the arguments in reverse order
    app.parse(rest);
  } catch (const CLI::ParseError& e) {
    if (sink == nullptr) {
      int rc = app.exit(e);
      return rc == 0 ? 0 : kExitUnusable;
    }
    std::ostringstream out, err;
    int rc = app.exit(e, out, err);
    if (!out.str().empty()) PrintOutput(out.str());
    std::string message = err.str();
    while (!message.empty() && message.back() == '\n') message.pop_back();
    if (!message.empty()) PrintError(message);
    return rc == 0 ? 0 : kExitUnusable;
  }
  if (Status st = CheckNumericOptions(app); !st.ok()) {
    PrintError(st.message());
    return kExitUnusable;
  }
  // The last line of defence: a resource the system refuses (memory, threads) ends the run with
  // one line and exit 2, not an abort; pending temporary outputs are removed.
  try {
    return registry.Run();
  } catch (const std::bad_alloc&) {
    RemovePendingTempFiles();
    PrintError("out of memory; nothing was written");
  } catch (const std::system_error& e) {
    RemovePendingTempFiles();
    PrintError(std::string("the system refused a resource (") + e.what() +
               "); nothing was written");
  }
  return kExitUnusable;
}

Result<CommandSpec> CommandRegistry::Spec() const {
  if (!spec_) return Status::InvalidArgument("this command runs only from the command line");
  return spec_();
}

Result<CommandSpec> ParseCommandSpec(const std::vector<std::string>& args) {
  CLI::App app;
  CommandRegistry registry;
  BuildApp(app, registry);
  app.name("llmtrafficlens");
  // A library caller may give no FILE (its shards are in memory) and no -o (results in memory).
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    for (const char* name : {"FILE", "--output"})
      if (CLI::Option* o = sub->get_option_no_throw(name)) o->required(false);
  try {
    std::vector<std::string> rest(args.rbegin(), args.rend());  // CLI11 takes them reversed
    app.parse(rest);
  } catch (const CLI::ParseError& e) {
    std::ostringstream out, err;
    app.exit(e, out, err);
    std::string message = err.str().empty() ? out.str() : err.str();
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return Status::InvalidArgument(message);
  }
  if (Status st = CheckNumericOptions(app); !st.ok()) return st;
  return registry.Spec();
}

std::vector<std::pair<std::string, bool>> CommandOptions(const std::string& command) {
  CLI::App app;
  CommandRegistry registry;
  BuildApp(app, registry);
  std::vector<std::pair<std::string, bool>> names;
  try {
    for (const CLI::Option* opt : app.get_subcommand(command)->get_options())
      for (const std::string& name : opt->get_lnames())
        names.emplace_back(name, opt->get_type_size_max() != 0);
  } catch (const CLI::OptionNotFound&) {
  }
  return names;
}

}  // namespace ltl::cli
