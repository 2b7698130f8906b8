// EngineSettings: the engine options of a profile run (--engine, --max-num-seqs): which KV pool
// the curve (and, with --workers, each worker) replays (docs/SEMANTICS.md "Engine KV pool").
#pragma once

#include <cstdint>
#include <string>

namespace ltl {

struct EngineSettings {
  std::string engine = "ideal";  // ideal (a cache of cached blocks only) | vllm | sglang
  uint32_t max_num_seqs = 256;   // running requests at most (vLLM's --max-num-seqs default)
  bool ideal() const { return engine == "ideal"; }
};

}  // namespace ltl
