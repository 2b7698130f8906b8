// ModelChatTemplate: a model's own chat template(s) as a renderer of request bodies
// (`--chat-template FILE`), the exact alternative to the fixed layouts of render_prompt.h.
// Loaded from a `.jinja` file or a Hugging Face `tokenizer_config.json` whose `chat_template` is a
// string or a list of named templates; the special tokens (bos_token, eos_token, ...) come from
// that tokenizer_config.json (for a .jinja file: the tokenizer_config.json next to it, if any).
// A request is rendered as vLLM renders it (jinja/template_messages.h) and the
// result is a RenderedPrompt whose conversation and tool spans come from the segment map.
// Immutable after loading: worker threads share one and render with their own scratch.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "jinja/chat_template.h"
#include "jinja/template_messages.h"
#include "render/render_prompt.h"

namespace ltl {

class ModelChatTemplate;
using ModelChatTemplatePtr = std::shared_ptr<const ModelChatTemplate>;

// Per-thread state for ModelChatTemplate::Render.
struct ModelTemplateScratch {
  ChatTemplateScratch render;
  simdjson::dom::parser special_parser;
  simdjson::dom::element special;  // parsed special tokens (an object)
  bool special_parsed = false;
};

class ModelChatTemplate {
 public:
  // `path`: a tokenizer_config.json (any file whose content is a JSON object) or a Jinja file.
  static Result<ModelChatTemplatePtr> Load(const std::string& path);
  // From the text of a tokenizer_config.json; `origin` names it in messages and the report.
  static Result<ModelChatTemplatePtr> FromTokenizerConfig(std::string_view json,
                                                          const std::string& origin);
  // From a Jinja source with special tokens given as a JSON object ("{}" = none).
  static Result<ModelChatTemplatePtr> FromJinja(std::string source, std::string special_json,
                                                std::string origin);

  // Renders `body` at `now_unix_seconds` (what strftime_now formats) into `out`. False when the
  // engine would refuse the body or the template raises; `*reason` then says why without request
  // text: the template's own raise_exception message with every piece that came from the request
  // replaced by "…", or the kind of error and the template position.
  bool Render(simdjson::dom::element body, int64_t now_unix_seconds, ModelTemplateScratch* scratch,
              RenderedPrompt* out, std::string* reason) const;

  // "FILE" or "FILE (default, tool_use)": what the report names as the template used.
  const std::string& description() const { return description_; }
  const std::string& special_tokens_json() const { return special_json_; }
  // The named templates in file order ("default" for a single template).
  std::vector<std::string> names() const;

 private:
  struct Named {
    std::string name;
    ChatTemplatePtr tmpl;
    ContentFormat format = ContentFormat::kString;
  };
  // transformers' get_chat_template: "tool_use" for requests with tools when the model has one,
  // else "default" (a single template is "default").
  const Named* Choose(bool has_tools) const;

  std::vector<Named> templates_;
  std::string special_json_ = "{}";
  std::string description_;
};

// A template error as a skip reason (no request text): see ModelChatTemplate::Render.
std::string ChatTemplateSkipReason(const ChatTemplateError& e);

}  // namespace ltl
