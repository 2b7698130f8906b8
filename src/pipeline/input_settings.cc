// InputSettings into a IngestContext, input display names (see input_settings.h).
#include "pipeline/input_settings.h"

#include "read/postgres_input.h"
#include "read/timestamp.h"

namespace ltl {

void ApplyInputSettings(const InputSettings& args, IngestContext* ctx) {
  ctx->limits.max_line_bytes = args.limits.max_line_bytes;
  ctx->limits.max_field_bytes = args.limits.max_field_bytes;
  ctx->gateway.ts_column = args.ts_column;
  ctx->gateway.template_name = args.template_name;
  ctx->gateway.salt_file = args.salt_file;
  ctx->gateway.source = args.source;
  ctx->gateway.body_field = args.body_field;
  ctx->gateway.status_field = args.status_field;
  ctx->gateway.session_field = args.session_field;
  ctx->gateway.time_field = args.time_field;
  ctx->gateway.model_field = args.model_field;
  ctx->gateway.reuse_prompts = !args.no_prompt_reuse;
  double t = 0;
  if (!args.since.empty() && ParseTimestamp(args.since, &t)) ctx->since = t;
  if (!args.until.empty() && ParseTimestamp(args.until, &t)) ctx->until = t;
}

std::string InputDisplayName(const std::string& input) {
  if (input == "-") return "<stdin>";
  if (IsPostgresUri(input)) return RedactPostgresUri(input);
  return input;
}

}  // namespace ltl
