// ParseHfConfigJson (see hf_config_json.h).
#include "models/hf_config_json.h"

namespace ltl {

Result<HfConfigJson> ParseHfConfigJson(const std::string& text, const std::string& path) {
  HfConfigJson c;
  c.root = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (c.root.is_discarded() || !c.root.is_object())
    return Status::InvalidArgument(path +
                                   ": not a JSON object (expected a Hugging Face config.json)");
  if (!c.root.contains("num_hidden_layers")) {
    for (const char* nested : {"text_config", "llm_config", "language_config"}) {
      auto it = c.root.find(nested);
      if (it != c.root.end() && it->is_object() && it->contains("num_hidden_layers")) {
        c.section = nested;
        break;
      }
    }
  }
  return c;
}

}  // namespace ltl
