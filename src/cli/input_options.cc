// Shared reading options of `profile` and `export` (see input_options.h).
#include "cli/input_options.h"

#include "common/units.h"
#include "read/timestamp.h"

namespace ltl::cli {

void AddInputOptions(CLI::App* cmd, InputArgs* args, const std::string& salt_note) {
  cmd->add_option("--max-skip-share", args->max_skip_share,
                  "Exit with code 1 when more than this share of rows was skipped (default 0.5)");
  cmd->add_option("--max-line-bytes", args->limits.max_line_bytes,
                  "Longest input line or CSV record accepted; longer ones are skipped and counted "
                  "(default " +
                      TokenSize(ReadLimits{}.max_line_bytes) + "; suffixes K, M, G are binary)")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(size_t{1}, size_t{1} << 40));
  cmd->add_option(
         "--max-field-bytes", args->limits.max_field_bytes,
         "Longest CSV field accepted; a record holding a longer one is skipped and counted "
         "(default " +
             TokenSize(ReadLimits{}.max_field_bytes) + ")")
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(size_t{1}, size_t{1} << 40));
  cmd->add_option(
      "--ts-column", args->ts_column,
      "Gateway logs: the column/key holding the request time (default: the first of "
      "timestamp, ts, created_at, start_time, startTime, request_created_at, time, ...)");
  cmd->add_option("--template", args->template_name,
                  "Gateway logs: the fixed layout (where the chat template puts the tools and "
                  "system prompt): auto (from the model name), tools-first, tools-in-system, "
                  "tools-in-first-user, anthropic, no-tools, tools-before-last-user, "
                  "system-in-last-user, harmony")
      ->check(CLI::IsMember({"auto", "tools-first", "tools-in-system", "tools-in-first-user",
                             "anthropic", "no-tools", "tools-before-last-user",
                             "system-in-last-user", "harmony"}));
  cmd->add_flag("--no-prompt-reuse", args->no_prompt_reuse,
                "Gateway logs with --tokenizer: tokenize and hash every request from scratch "
                "instead of reusing the ids of the request it continues (same results, slower; "
                "for checking that they are the same)");
  cmd->add_option("--chat-template", args->chat_template,
                  "Gateway logs: render every request with this chat template (a .jinja file or a "
                  "tokenizer_config.json; special tokens from the tokenizer_config.json) instead "
                  "of a fixed layout; with --tokenizer tokenizer.json the blocks are exact");
  cmd->add_option("--model-dir", args->model_dirs,
                  "Gateway logs: a Hugging Face model folder (chat_template.jinja or "
                  "tokenizer_config.json, tokenizer.json, config.json): its template and "
                  "tokenizer render and cut every request, its config.json gives the KV bytes "
                  "per token. Repeat as NAME=DIR to serve requests by model name; other models "
                  "keep the fixed layouts");
  cmd->add_option("--lora-modules", args->lora_modules,
                  "Gateway logs: the LoRA adapters the engine serves, as vLLM's --lora-modules "
                  "takes them (NAME=PATH, a JSON object with \"name\", or NAME; repeat for more). "
                  "A request for an adapter (its model name) starts its own hash chain, as vLLM "
                  "keys every block of a LoRA request by the adapter's name")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->check(CLI::Validator(
          [](std::string& v) {
            auto name = LoraAdapterName(v);
            return name.ok() ? std::string() : name.status().message();
          },
          "ADAPTER"));
  cmd->add_option("--source", args->source,
                  "Gateway logs: the tool that wrote the log (default: detected; "
                  "`llmtrafficlens list-sources` lists them)");
  const std::string path_help =
      " (a CSV column name or a JSON path such as a.b[0].c or attributes[\"k.v\"]; replaces the "
      "source's own)";
  cmd->add_option("--body-field", args->body_field,
                  "Gateway logs: where the request body is" + path_help);
  cmd->add_option("--status-field", args->status_field,
                  "Gateway logs: where the HTTP status or success/failure is" + path_help);
  cmd->add_option("--session-field", args->session_field,
                  "Gateway logs: where the session id is" + path_help);
  cmd->add_option("--time-field", args->time_field,
                  "Gateway logs: where the request time is (same as --ts-column)" + path_help);
  cmd->add_option("--model-field", args->model_field,
                  "Gateway logs: where the model name is" + path_help);
  const auto timestamp_check = CLI::Validator(
      [](std::string& v) {
        double t;
        return ParseTimestamp(v, &t) ? std::string()
                                     : "not a timestamp (ISO 8601 date/time or epoch number)";
      },
      "TIME");
  cmd->add_option("--since", args->since,
                  "PostgreSQL inputs: only rows whose time column (startTime; --time-field names "
                  "another) is at or after TIME (ISO 8601, UTC unless it carries an offset; or "
                  "epoch seconds); sent as a query parameter")
      ->check(timestamp_check);
  cmd->add_option("--until", args->until,
                  "PostgreSQL inputs: only rows whose time column is before TIME")
      ->check(timestamp_check);
  cmd->add_option("--salt-file", args->salt_file,
                  "Gateway logs: file holding the secret hash key, created on first use (default "
                  ".ltl-salt in the working directory)" +
                      salt_note);
}

}  // namespace ltl::cli
