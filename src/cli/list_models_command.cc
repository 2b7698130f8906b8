// `llmtrafficlens list-models`: the KV-cache model catalog with bytes per token at a precision,
// how each figure is derived, and the config values it comes from.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "common/units.h"
#include "models/kv_models.h"

namespace ltl::cli {
namespace {

struct ListModelsArgs {
  std::string precision = "bf16";
  bool json = false;
  bool verbose = false;
};

int RunListModels(const ListModelsArgs& a) {
  auto precision = ParseKvPrecision(a.precision);
  if (!precision.ok()) {
    PrintError("--kv-precision: " + precision.status().message());
    return kExitUnusable;
  }
  std::string out;
  if (a.json) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const KvModel& m : KvModelCatalog()) {
      const uint64_t bits = KvBitsPerToken(m.arch, *precision);
      arr.push_back({{"id", m.id},
                     {"name", m.name},
                     {"attention", m.arch.kind == KvArchitecture::Kind::kMla ? "mla" : "gqa"},
                     {"precision", KvPrecisionName(*precision)},
                     {"bytes_per_token", static_cast<double>(bits) / 8.0},
                     {"derivation", m.arch.Derivation(*precision)},
                     {"source", m.source},
                     {"note", m.note}});
    }
    out = arr.dump(2) + "\n";
  } else {
    out += fmt::format("{:<17} {:>13} {:>11}  {}\n", "model", "bytes/token", "per token",
                       fmt::format("derivation ({})", KvPrecisionName(*precision)));
    for (const KvModel& m : KvModelCatalog()) {
      const double bytes = static_cast<double>(KvBitsPerToken(m.arch, *precision)) / 8.0;
      std::string exact = bytes == static_cast<double>(static_cast<int64_t>(bytes))
                              ? WithCommas(static_cast<int64_t>(bytes))
                              : fmt::format("{:.1f}", bytes);
      out += fmt::format("{:<17} {:>13} {:>11}  {}\n", m.id, exact, BinaryBytes(bytes),
                         m.arch.Derivation(*precision));
      if (a.verbose) {
        out += fmt::format("{:<17} source: {}\n", "", m.source);
        if (!m.note.empty()) out += fmt::format("{:<17} note: {}\n", "", m.note);
      }
    }
  }
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

}  // namespace

void RegisterListModels(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<ListModelsArgs>();
  CLI::App* cmd = app.add_subcommand(
      "list-models", "List the KV-cache model catalog: bytes per token and their derivation");
  cmd->add_option("--kv-precision", args->precision,
                  "KV cache element precision: bf16 (default), fp8, fp4");
  cmd->add_flag("--json", args->json, "Print the catalog as JSON");
  cmd->add_flag("-v,--verbose", args->verbose, "Also print each entry's config source and notes");
  cmd->callback([args, &registry] { registry.Set([args] { return RunListModels(*args); }); });
}

}  // namespace ltl::cli
