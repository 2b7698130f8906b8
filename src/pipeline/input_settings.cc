// InputSettings into a IngestContext, input display names (see input_settings.h).
#include "pipeline/input_settings.h"

#include <simdjson.h>

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
  ctx->gateway.lora_adapters.clear();
  for (const std::string& m : args.lora_modules)
    if (auto name = LoraAdapterName(m); name.ok()) ctx->gateway.lora_adapters.push_back(*name);
  double t = 0;
  if (!args.since.empty() && ParseTimestamp(args.since, &t)) ctx->since = t;
  if (!args.until.empty() && ParseTimestamp(args.until, &t)) ctx->until = t;
}

Result<std::string> LoraAdapterName(std::string_view value) {
  const bool has_eq = value.find('=') != std::string_view::npos;
  const bool has_comma = value.find(',') != std::string_view::npos;
  std::string name;
  if (has_eq && !has_comma) {
    name.assign(value.substr(0, value.find('=')));
  } else if (!value.empty() && value.front() == '{') {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    std::string_view v;
    if (parser.parse(value.data(), value.size()).get(doc))
      return Status::InvalidArgument("a value starting with '{' must be a JSON object");
    if (doc["name"].get_string().get(v))
      return Status::InvalidArgument("the JSON object has no \"name\" string");
    name.assign(v);
  } else if (has_eq || has_comma) {
    return Status::InvalidArgument("neither NAME=PATH (one '=', no ',') nor a JSON object");
  } else {
    name.assign(value);
  }
  if (name.empty()) return Status::InvalidArgument("the adapter name is empty");
  return name;
}

std::string InputDisplayName(const std::string& input) {
  if (input == "-") return "<stdin>";
  if (IsPostgresUri(input)) return RedactPostgresUri(input);
  return input;
}

}  // namespace ltl
