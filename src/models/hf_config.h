// KvArchitectureFromHfConfig: reads a Hugging Face config.json and derives the KV-cache
// architecture (what --model-config uses). Multimodal configs are read through their text_config.
#pragma once

#include <string>

#include "common/status.h"
#include "models/kv_models.h"

namespace ltl {

struct HfKvConfig {
  std::string name;  // _name_or_path, else model_type, else the file name
  KvArchitecture arch;
  std::string note;  // e.g. how many linear-attention layers were left out
};

// Reads `path`. Errors are one line: "PATH: problem".
Result<HfKvConfig> KvArchitectureFromHfConfig(const std::string& path);
// The same from the file's text (path only names the source in messages).
Result<HfKvConfig> KvArchitectureFromHfConfigText(const std::string& text, const std::string& path);

}  // namespace ltl
