// Command registration: each subcommand adds its options to the CLI11 app and, when chosen, runs.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "cli/command_line.h"

namespace ltl::cli {

// Exit codes (docs/USER_GUIDE.md).
constexpr int kExitOk = 0;
constexpr int kExitTooManySkipped = 1;
constexpr int kExitUnusable = 2;

class CommandRegistry {
 public:
  // The command whose subcommand was parsed sets its runner here.
  void Set(std::function<int()> run) { run_ = std::move(run); }
  int Run() const { return run_ ? run_() : kExitUnusable; }
  // A command a front end other than the command line runs sets its specification here.
  void SetSpec(std::function<Result<CommandSpec>()> spec) { spec_ = std::move(spec); }
  Result<CommandSpec> Spec() const;

 private:
  std::function<int()> run_;
  std::function<Result<CommandSpec>()> spec_;
};

void RegisterCommands(CLI::App& app, CommandRegistry& registry);

// One registration function per command (each in its own file).
void RegisterProfile(CLI::App& app, CommandRegistry& registry);
void RegisterListModels(CLI::App& app, CommandRegistry& registry);
void RegisterExport(CLI::App& app, CommandRegistry& registry);
void RegisterTokenize(CLI::App& app, CommandRegistry& registry);
void RegisterListSources(CLI::App& app, CommandRegistry& registry);
void RegisterHashShard(CLI::App& app, CommandRegistry& registry);

// Prints "llmtrafficlens: <message>" on stderr (or hands it to this thread's MessageSink).
void PrintError(const std::string& message);
void PrintWarning(const std::string& message);
// A command's summary for stdout (or this thread's MessageSink).
void PrintOutput(const std::string& text);

// This thread's sink (null: the streams); RunCommandLine installs one for a run.
const MessageSink* CurrentMessageSink();
void SetMessageSink(const MessageSink* sink);

}  // namespace ltl::cli
