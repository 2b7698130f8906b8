// GatewayRowProcessor: one gateway log row -> one RequestRecord. Parses the request body (and the
// response, when logged), renders the prompt with the model's own chat template (--chat-template,
// --model-dir) or in its fixed layout, counts tokens, cuts blocks and
// chain-hashes them with the salt, finds the session identifier and infers the conversation.
// A processor holds only per-call scratch (parsers, buffers), so each worker thread owns one and
// rows can be processed in any order; the result depends on the row alone.
#pragma once

#include <absl/container/flat_hash_map.h>
#include <simdjson.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/reason_table.h"
#include "common/request_record.h"
#include "hash/block_chain.h"
#include "hash/block_cutter.h"
#include "ingest/ingest_context.h"
#include "ingest/prompt_facts.h"
#include "ingest/provider_facts.h"
#include "ingest/router_view.h"
#include "ingest/row_locator.h"
#include "ingest/session_id.h"
#include "render/model_chat_template.h"
#include "render/render_prompt.h"

namespace ltl {

struct GatewayConfig {
  Layout layout = Layout::kAuto;  // --template
  SipKey key;                     // the salt
  uint32_t block_size = kGatewayDefaultBlockSize;
  const Tokenizer* tokenizer = nullptr;          // null = approximate counting
  std::shared_ptr<const CompiledSource> source;  // where each field lives (ingest/row_locator.h)
  // The models' own files, tried in order (see GatewayOptions::models); none = the layouts only.
  std::vector<ModelFiles> models;
  // Where skip reasons made at run time live (template messages); copies of a config share it.
  std::shared_ptr<ReasonTable> reasons = std::make_shared<ReasonTable>();
  // --show-prefix-text's second pass: sees each rendered prompt with its line (null = none).
  std::function<void(uint64_t line, std::string_view prompt)> on_prompt;
  // Reuse the ids of the request a request continues (BlockCutter::CutReusing); false =
  // --no-prompt-reuse (same results, slower: for checking that they are the same).
  bool reuse_prompts = true;
  // Locate each row's timing into RequestRecord::duration_s (IngestContext::durations).
  bool durations = false;
  // Fill RequestRecord::view with these views (RouterViewKind bits; ingest/router_view.h).
  uint32_t router_views = 0;
  // aibrix-prefix's block size in bytes (GatewayOptions::aibrix_block_bytes); 0 = not asked.
  uint32_t aibrix_block_bytes = 0;
  // The model names that are LoRA adapters (GatewayOptions::lora_adapters): each starts its own
  // hash chain.
  std::vector<std::string> lora_adapters;
};

// kIgnored: a record of another kind (a Langfuse span): counted, not a request.
enum class RowResult { kOk, kSkipped, kFiltered, kIgnored };

// Renders a request for its model: the one call into the render stage. The first `models` entry
// whose name matches the request's model renders it with that model's own chat template (at the
// request's own time, for strftime_now); a request no entry matches gets the fixed layout.
class PromptRenderer {
 public:
  PromptRenderer(Layout layout, const std::vector<ModelFiles>* models, ReasonTable* reasons);
  // Returns nullptr or a skip reason: fixed, or a template's masked message interned in
  // `reasons` (valid as long as the table). *entry: the `models` index used, -1 = the layout.
  const char* Render(simdjson::dom::element body, std::string_view model, int64_t now_unix_seconds,
                     RenderedPrompt* out, int* entry);

 private:
  Layout layout_;
  const std::vector<ModelFiles>* models_;
  ReasonTable* reasons_;
  std::vector<std::unique_ptr<ModelTemplateScratch>> scratch_;  // one per entry
  std::string reason_;
};

// How a request may continue an earlier one (docs/SEMANTICS.md "Sessions and conversations"):
// `own` keys its whole message list (system + messages, JSON with cache_control dropped, chained
// with the salt); `parents` key the message lists before each of its assistant messages, longest
// first (at most kMaxParents). A request continues the latest earlier request whose `own` is one
// of its `parents`: its prompt extends that request's prompt by at least one assistant turn, so
// equal prompts never link. `known` is false when the body has no message list.
struct ConversationLinks {
  static constexpr size_t kMaxParents = 4;
  bool known = false;
  uint64_t own = 0;
  std::vector<uint64_t> parents;
};

class GatewayRowProcessor {
 public:
  explicit GatewayRowProcessor(const GatewayConfig& config);
  // A processor for another worker thread of the same read: its own scratch, `share_with`'s
  // memory of conversations (the cutters' remembered texts and the facts' runs) and its budget,
  // so a turn finds the turn it continues whichever worker cut that one. The records are the
  // same either way.
  GatewayRowProcessor(const GatewayConfig& config, const GatewayRowProcessor& share_with);

  // kSkipped: *reason is a fixed phrase. kFiltered: a failed request; out->status_code is set.
  RowResult ProcessCsv(const CsvLayout& layout, const std::vector<std::string_view>& cells,
                       uint64_t line, RequestRecord* out, const char** reason);
  RowResult ProcessJson(std::string_view record, uint64_t line, RequestRecord* out,
                        const char** reason);

  // For the row just processed: its conversation links (ConversationLinks), whatever the session
  // field said; what rendered it (a layout
  // name, or "chat template FILE", valid as long as the processor); and the keyed value of a
  // field the tool fills per request ("" = none), with that field's name.
  const ConversationLinks& links() const { return links_; }
  const std::string* rendered_by() const { return rendered_by_; }
  const std::string& filler_key() const { return filler_key_; }
  const char* filler_field() const { return filler_field_; }

 private:
  RowResult Finish(LocateResult located, RequestRecord* out, const char** reason);
  RowResult Render(RequestRecord* out, const char** reason);
  void SetDuration(RequestRecord* out);
  std::string SessionKey(const SessionId& s);
  // A request's cache_salt and LoRA adapter start its own hash chain (see gateway_row.cc).
  void KeepNamespaceApart(simdjson::dom::object body, std::string_view model,
                          std::string_view body_model, std::vector<uint64_t>* ids);

  GatewayConfig config_;
  RowLocator locator_;
  LocatedRow row_;
  PromptRenderer renderer_;
  RenderedPrompt prompt_, response_text_;
  std::unique_ptr<BlockCutter> cutter_;                // --tokenizer (or approximate)
  std::vector<std::unique_ptr<BlockCutter>> cutters_;  // per models entry (null = cutter_)
  std::vector<std::string> model_labels_;              // per models entry
  std::vector<std::string> layout_labels_;             // per Layout value
  const std::string* rendered_by_ = nullptr;
  BlockChain chain_;
  PromptFactsBuilder facts_;
  ProviderFactsBuilder provider_;
  RouterViewBuilder router_view_;
  ConversationLinks links_;
  std::string filler_key_;
  const char* filler_field_ = nullptr;
  std::string scratch_;
  std::string masked_;  // a system prompt string with its volatile words masked
  // A system prompt part's key for conversation links: the digest of its canonical form with its
  // volatile words masked, memoized by the digest of its exact canonical form, in a memo the
  // processors of one read share (an app that writes a conversation id into its system prompt
  // has one exact form per conversation: a memo per worker masked each twice at --threads 2).
  uint64_t MaskedSystemDigest(simdjson::dom::element part);
  static constexpr size_t kMaxMaskedSystems = 4096;
  struct MaskedSystems {
    std::mutex mu;
    absl::flat_hash_map<uint64_t, uint64_t> map;  // exact digest -> masked digest
  };
  std::string system_canonical_;
  std::shared_ptr<MaskedSystems> masked_system_ = std::make_shared<MaskedSystems>();
};

}  // namespace ltl
