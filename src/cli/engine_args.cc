// Engine options of `profile` (see engine_args.h).
#include "cli/engine_args.h"

#include "simulate/engine_pool.h"

namespace ltl::cli {

void AddEngineOptions(CLI::App* cmd, EngineSettings* a) {
  const std::string group = "Engine KV pool";
  cmd->add_option("--engine", a->engine,
                  "The engine's KV pool the curve (and each worker) replays: ideal (cached blocks "
                  "only, default), " +
                      EngineNames() +
                      " (running requests and cached blocks share the pool; requests wait when "
                      "it is full)")
      ->group(group);
  cmd->add_option("--max-num-seqs", a->max_num_seqs,
                  "Engine pool: running requests at most (default 256, vLLM's)")
      ->check(CLI::Range(1u, 1u << 20))
      ->group(group);
}

}  // namespace ltl::cli
