// IngestContext: a ReadContext plus what only the gateway-log path of ingest needs — the model
// files that render and tokenize requests (--chat-template / --model-dir), the source and field
// overrides, and the interner that takes each record's block ids as it is read. Kept out of read/
// so the read stage never names a tokenizer, a template or an interner.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "read/read_context.h"

namespace ltl {

class Tokenizer;          // tokenize/tokenizer.h
class BlockInterner;      // hash/block_interner.h
class GatewayReadState;   // ingest/gateway_readers.h
class ModelChatTemplate;  // render/model_chat_template.h

// A model's own files (--chat-template, --model-dir): what renders and tokenizes its requests.
struct ModelFiles {
  // The model name it serves, matched as ingest/model_match.h says ("" = every request).
  std::string model;
  std::shared_ptr<const ModelChatTemplate> chat_template;  // null = the fixed layouts
  const Tokenizer* tokenizer = nullptr;                    // null = GatewayOptions::tokenizer
};

// Options of the gateway-log readers (CSV, JSONL); ignored by the hashed-trace readers.
struct GatewayOptions {
  std::string ts_column;  // --ts-column NAME ("" = detect); same as time_field
  std::string source;     // --source NAME ("" = detect)
  // --body-field, --status-field, --session-field, --time-field, --model-field: a CSV column or a
  // JSON path (a.b[0].c) replacing the source's own ("" = the source's).
  std::string body_field, status_field, session_field, time_field, model_field;
  std::string template_name = "auto";    // --template
  std::string salt_file = ".ltl-salt";   // --salt-file
  const Tokenizer* tokenizer = nullptr;  // --tokenizer (null = approximate counting)
  // --chat-template / --model-dir, tried in order (the first match renders the request); a
  // request no entry matches falls back to the fixed layout of `template_name`.
  std::vector<ModelFiles> models;
  // Leave the post-pass (conversations, sessions, turns: ingest/gateway_readers.h) to the caller,
  // who runs it once over the records of every file (LoadedInput::post_pass).
  bool defer_post_pass = false;
  // --show-prefix-text's second pass: sees each rendered prompt with its line (null = none).
  std::function<void(uint64_t line, std::string_view prompt)> on_prompt;
  bool reuse_prompts = true;  // false = --no-prompt-reuse (GatewayConfig::reuse_prompts)
  // Compute these named-router views of each request (RouterViewKind bits; RequestRecord::view,
  // ingest/router_view.h): asked only when --routing names a router that reads them.
  uint32_t router_views = 0;
  // aibrix-prefix's block size in bytes when --routing names it, else 0: the view's blocks
  // (RouterView::aibrix_blocks) are cut at this size.
  uint32_t aibrix_block_bytes = 0;
  // --lora-modules: the model names that are LoRA adapters of the served model. A request for
  // one (its log's or its body's model name) has its block ids keyed by the adapter's name, as
  // vLLM keys every block of a LoRA request (docs/SEMANTICS.md "Namespaces").
  std::vector<std::string> lora_adapters;
};

struct IngestContext : ReadContext {
  GatewayOptions gateway;
  // When set, every record's block ids go into this interner (in record order) and are dropped
  // from the record as it is read, so memory grows with distinct blocks, not with the file
  // (hash/block_interner.h). Build the trace with BuildTrace(records, std::move(*interner)).
  BlockInterner* interner = nullptr;
  // When set, a gateway log's read takes the workers an earlier file of the same run left there,
  // and leaves its own for the next file, instead of building them and freeing them per file
  // (ingest/gateway_readers.h). Set by LoadRunInputs for the files of one run only.
  GatewayReadState* read_state = nullptr;
};

}  // namespace ltl
