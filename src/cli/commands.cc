// The list of commands and the shared message printing (streams, or the thread's MessageSink).
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

namespace {
thread_local const MessageSink* current_sink = nullptr;
}  // namespace

const MessageSink* CurrentMessageSink() {
  return current_sink;
}
void SetMessageSink(const MessageSink* sink) {
  current_sink = sink;
}

void PrintError(const std::string& message) {
  if (current_sink && current_sink->error) return current_sink->error("llmtrafficlens: " + message);
  std::fprintf(stderr, "llmtrafficlens: %s\n", EscapeForTerminal(message).c_str());
}

void PrintWarning(const std::string& message) {
  if (current_sink && current_sink->warning)
    return current_sink->warning("llmtrafficlens: warning: " + message);
  std::fprintf(stderr, "llmtrafficlens: warning: %s\n", EscapeForTerminal(message).c_str());
}

void PrintOutput(const std::string& text) {
  if (current_sink && current_sink->output) return current_sink->output(text);
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

}  // namespace ltl::cli
