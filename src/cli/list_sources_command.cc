// `llmtrafficlens list-sources`: every gateway-log source table (ingest/sources/), with the tool
// that writes it, where its request body lives and one abbreviated example record.
#include <fmt/format.h>

#include "cli/commands.h"
#include "ingest/source_spec.h"

namespace ltl::cli {

void RegisterListSources(CLI::App& app, CommandRegistry& registry) {
  CLI::App* cmd = app.add_subcommand(
      "list-sources", "List the gateway-log sources `profile` and `export` recognise (--source)");
  cmd->callback([&registry] {
    registry.Set([] {
      std::string out;
      for (const SourceSpec* s : AllSources()) {
        std::string shapes = s->json && s->csv ? "JSON, CSV" : s->csv ? "CSV" : "JSON";
        out += fmt::format("{}  ({}; {})\n  {}\n  e.g. {}\n\n", s->name, s->tool, shapes,
                           s->summary, s->example);
      }
      out +=
          "Detected from the first record; --source NAME forces one, and --body-field, "
          "--status-field, --session-field, --time-field, --model-field override any field.\n";
      std::fputs(out.c_str(), stdout);
      return kExitOk;
    });
  });
}

}  // namespace ltl::cli
