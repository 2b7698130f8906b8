// The one reading of a Hugging Face config.json's text (issue 31: one config.json reader): parsed
// once, and the section holding the language model's sizes found by one rule, for both the KV
// architecture (hf_config.cc) and the prefill compute shape (model_compute.cc). Before, the two
// descended into multimodal configs by different rules.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "common/status.h"

namespace ltl {

struct HfConfigJson {
  nlohmann::json root;
  // "" (the root holds num_hidden_layers, or no section does) or the first of text_config,
  // llm_config, language_config that holds num_hidden_layers (multimodal configs).
  std::string section;
  const nlohmann::json& model() const { return section.empty() ? root : root.at(section); }
};

// Errors are one line: "PATH: not a JSON object (expected a Hugging Face config.json)".
Result<HfConfigJson> ParseHfConfigJson(const std::string& text, const std::string& path);

}  // namespace ltl
