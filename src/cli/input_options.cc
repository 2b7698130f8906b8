// Shared reading options of `profile` and `export` (see input_options.h).
#include "cli/input_options.h"

#include "common/units.h"

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
                  "Gateway logs: where the chat template puts the tools: auto (from the model "
                  "name), tools-first, tools-in-system, tools-in-first-user, anthropic")
      ->check(CLI::IsMember(
          {"auto", "tools-first", "tools-in-system", "tools-in-first-user", "anthropic"}));
  cmd->add_option("--salt-file", args->salt_file,
                  "Gateway logs: file holding the secret hash key, created on first use (default "
                  ".ltl-salt in the working directory)" +
                      salt_note);
}

void ApplyInputArgs(const InputArgs& args, ReadContext* ctx) {
  ctx->limits.max_line_bytes = args.limits.max_line_bytes;
  ctx->limits.max_field_bytes = args.limits.max_field_bytes;
  ctx->gateway.ts_column = args.ts_column;
  ctx->gateway.template_name = args.template_name;
  ctx->gateway.salt_file = args.salt_file;
}

}  // namespace ltl::cli
