// InputSettings: the reading settings every run that reads inputs shares (skip tolerance, line and
// field limits, the gateway-log settings: timestamp column, template layout or model files, salt
// file, source and field overrides, PostgreSQL time window), and copying them into a IngestContext.
// The command line declares them once (cli/input_options.h); the Python API sets the same fields.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "ingest/ingest_context.h"

namespace ltl {

struct InputSettings {
  double max_skip_share = 0.5;
  ReadLimits limits;      // --max-line-bytes, --max-field-bytes (defaults in read/read_context.h)
  std::string ts_column;  // gateway logs: timestamp column ("" = detected)
  std::string template_name = "auto";  // gateway logs: chat-template layout
  std::string chat_template;           // gateway logs: --chat-template FILE ("" = none)
  std::vector<std::string>
      model_dirs;  // gateway logs: --model-dir [NAME=]DIR (pipeline/model_files.h)
  std::string salt_file = ".ltl-salt";  // gateway logs: hash key file
  std::string source;                   // gateway logs: --source NAME ("" = detected)
  // gateway logs: --body-field, --status-field, --session-field, --time-field, --model-field
  std::string body_field, status_field, session_field, time_field, model_field;
  bool no_prompt_reuse = false;  // gateway logs with --tokenizer: --no-prompt-reuse
  // gateway logs: --lora-modules as vLLM takes them (NAME, NAME=PATH or a JSON object with "name")
  std::vector<std::string> lora_modules;
  // PostgreSQL inputs: --since/--until as given (any timestamp the readers accept)
  std::string since, until;
};

// The input as messages and reports name it: "<stdin>" for "-", a PostgreSQL URI without its
// password, else the path as given.
std::string InputDisplayName(const std::string& input);

// The adapter name of one --lora-modules value as vLLM's `--lora-modules` takes it: `NAME`,
// `NAME=PATH` when the value has a '=' and no ',', else a JSON object whose "name" is the
// adapter's name (vllm/entrypoints/openai/cli_args.py @ 00522333, LoRAParserAction); a bare NAME
// too (vLLM would refuse it). An error names what is wrong, never the value (the caller adds the
// option's name).
Result<std::string> LoraAdapterName(std::string_view value);

// Sets ctx->limits and ctx->gateway from the settings (a --lora-modules value that is not one of
// LoraAdapterName's forms is left out: the command line and the Python API check it first).
void ApplyInputSettings(const InputSettings& args, IngestContext* ctx);

}  // namespace ltl
