// --chat-template FILE and --model-dir [NAME=]DIR of `profile` and `export`: loading each model's
// own files (chat template, tokenizer.json, config.json) into the GatewayOptions::models list the
// gateway readers try in order. Named folders come first (matched on the request's model name,
// ingest/model_match.h), then the one serving every request (--chat-template or --model-dir DIR);
// requests no entry serves keep the fixed layouts and --tokenizer.
// Internal to src/pipeline/ (tests/build/internal_headers.cmake).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "ingest/ingest_context.h"
#include "tokenize/tokenizer.h"

namespace ltl {

struct LoadedModelFiles {
  std::vector<ModelFiles> models;                      // for IngestContext::gateway.models
  std::vector<std::unique_ptr<Tokenizer>> tokenizers;  // owned here, pointed to by `models`
  // config.json of the folder serving every request (KV bytes per token), "" = none.
  std::string kv_config;
  bool any_tokenizer() const { return !tokenizers.empty(); }
};

// The files of one Hugging Face model folder, found as transformers finds them: the template
// (chat_template.jinja, else tokenizer_config.json: the special tokens still come from the latter),
// tokenizer.json and config.json ("" = absent). An error names `option` and the folder.
struct ModelFolder {
  std::string chat_template, tokenizer, config;
};
Result<ModelFolder> FindModelFolder(const std::string& option, const std::string& dir);

// `chat_template`: "" = none. `model_dirs`: "DIR" or "NAME=DIR" each. `has_tokenizer`: whether
// --tokenizer was given (a folder serving every request must not contradict it). Errors are one
// printable line naming the option and file.
Result<LoadedModelFiles> LoadModelFiles(const std::string& chat_template,
                                        const std::vector<std::string>& model_dirs,
                                        bool has_tokenizer);

}  // namespace ltl
