// GatewayRowProcessor (see gateway_row.h): the row locator finds the request and what the log says
// about it; then usage and status, render -> cut -> hash for the body, and the conversation key.
#include "ingest/gateway_row.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/safe_label.h"
#include "ingest/model_match.h"
#include "ingest/prompt_facts.h"
#include "ingest/response_usage.h"
#include "read/json_line.h"
#include "render/render_prompt.h"

namespace ltl {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

std::string HexKey(char tag, uint64_t h) {
  return fmt::format("{}{:016x}", tag, h);
}

}  // namespace

PromptRenderer::PromptRenderer(Layout layout, const std::vector<ModelFiles>* models,
                               ReasonTable* reasons)
    : layout_(layout), models_(models), reasons_(reasons) {
  for (size_t k = 0; k < models->size(); ++k)
    scratch_.push_back(std::make_unique<ModelTemplateScratch>());
}

const char* PromptRenderer::Render(simdjson::dom::element body, std::string_view model,
                                   int64_t now_unix_seconds, RenderedPrompt* out, int* entry) {
  *entry = -1;
  for (size_t k = 0; k < models_->size(); ++k) {
    const ModelFiles& m = (*models_)[k];
    if (!ModelNameMatches(m.model, model)) continue;
    *entry = static_cast<int>(k);
    if (!m.chat_template) break;  // the model's tokenizer, the fixed layout
    if (m.chat_template->Render(body, now_unix_seconds, scratch_[k].get(), out, &reason_))
      return nullptr;
    return reasons_->Intern(reason_);
  }
  return RenderPrompt(body, layout_, model, out, now_unix_seconds);
}

GatewayRowProcessor::GatewayRowProcessor(const GatewayConfig& config)
    : config_(config),
      locator_(config.source),
      renderer_(config.layout, &config_.models, config_.reasons.get()),
      cutter_(config.tokenizer ? MakeTokenCutter(config.tokenizer, config.block_size)
                               : MakeApproxCutter(config.block_size)),
      chain_(config.key),
      facts_(config.key),
      provider_(config.key),
      router_view_(config.key, config.aibrix_block_bytes) {
  // A request no entry serves says so next to its layout when some model has its own files.
  const bool fallback = !config_.models.empty();
  for (Layout l : kAllLayouts)
    layout_labels_.push_back(std::string(LayoutName(l)) +
                             (fallback ? " (fallback: no model files for the model)" : ""));
  for (const ModelFiles& m : config_.models) {
    cutters_.push_back(m.tokenizer ? MakeTokenCutter(m.tokenizer, config.block_size) : nullptr);
    std::string label = m.model.empty() ? "" : m.model + ": ";
    if (m.chat_template)
      label += "chat template " + m.chat_template->description();
    else
      label += "layout " + std::string(LayoutName(config.layout));
    model_labels_.push_back(std::move(label));
  }
}

GatewayRowProcessor::GatewayRowProcessor(const GatewayConfig& config,
                                         const GatewayRowProcessor& share_with)
    : GatewayRowProcessor(config) {
  if (std::unique_ptr<BlockCutter> c = share_with.cutter_->Sibling()) cutter_ = std::move(c);
  for (size_t k = 0; k < cutters_.size() && k < share_with.cutters_.size(); ++k)
    if (share_with.cutters_[k])
      if (std::unique_ptr<BlockCutter> c = share_with.cutters_[k]->Sibling())
        cutters_[k] = std::move(c);
  facts_ = PromptFactsBuilder(config.key, share_with.facts_);
  masked_system_ = share_with.masked_system_;
}

RowResult GatewayRowProcessor::ProcessCsv(const CsvLayout& layout,
                                          const std::vector<std::string_view>& cells, uint64_t line,
                                          RequestRecord* out, const char** reason) {
  out->line = line;
  return Finish(locator_.LocateCsv(layout, cells, line, &row_, reason), out, reason);
}

RowResult GatewayRowProcessor::ProcessJson(std::string_view record, uint64_t line,
                                           RequestRecord* out, const char** reason) {
  out->line = line;
  return Finish(locator_.LocateJson(record, line, &row_, reason), out, reason);
}

// vLLM keeps some requests' blocks apart with extra keys of the block hash
// (vllm/v1/core/kv_cache_utils.py @ 001cabc1, generate_block_hash_extra_keys; ../shared/notes/
// routers.md "Engines' own caches"): a LoRA request's adapter name on every block, a request's
// `cache_salt` on its first block. Because the hash is chained, either way two requests share a
// block only when they share the adapter, the salt and the prompt up to it. Here: the ids of a
// request for a LoRA adapter (its log's or its body's model name is one of --lora-modules) or
// carrying a non-empty cache_salt are re-keyed, id' = SipHash(salt key, ["lora" NUL name NUL]
// ["cache_salt" NUL salt NUL] id) with the top bit cleared, which keeps them chained (two
// requests of one namespace share their first N ids exactly when they share their first N blocks).
// The cutter's memory of resent histories holds the ids before re-keying, so a continuation is
// re-keyed by its own namespace.
void GatewayRowProcessor::KeepNamespaceApart(simdjson::dom::object body, std::string_view model,
                                             std::string_view body_model,
                                             std::vector<uint64_t>* ids) {
  scratch_.clear();
  for (const std::string& adapter : config_.lora_adapters) {
    if (adapter != model && adapter != body_model) continue;
    scratch_.append("lora");
    scratch_.push_back('\0');
    scratch_.append(adapter);
    scratch_.push_back('\0');
    break;
  }
  std::string_view salt;
  if (!body["cache_salt"].get_string().get(salt) && !salt.empty()) {
    scratch_.append("cache_salt");
    scratch_.push_back('\0');
    scratch_.append(salt);
    scratch_.push_back('\0');
  }
  if (scratch_.empty()) return;
  const size_t prefix = scratch_.size();
  for (uint64_t& id : *ids) {
    scratch_.resize(prefix);
    scratch_.append(reinterpret_cast<const char*>(&id), sizeof id);
    id = SipHash24(config_.key, scratch_) & kBlockIdMask;
  }
}

std::string GatewayRowProcessor::SessionKey(const SessionId& s) {
  scratch_.assign(s.field);
  scratch_.push_back('\0');
  scratch_.append(s.value);
  return HexKey('s', SipHash24(config_.key, scratch_));
}

RowResult GatewayRowProcessor::Finish(LocateResult located, RequestRecord* out,
                                      const char** reason) {
  links_ = ConversationLinks{};
  filler_key_.clear();
  filler_field_ = nullptr;
  switch (located) {
    case LocateResult::kOk:
      return Render(out, reason);
    case LocateResult::kSkipped:
      return RowResult::kSkipped;
    case LocateResult::kIgnored:
      return RowResult::kIgnored;
    case LocateResult::kFiltered:
      out->status_code = row_.status;
      return RowResult::kFiltered;
  }
  return RowResult::kSkipped;
}

// In-flight time from the log's own timing (docs/SEMANTICS.md "Load in time"): end - start where
// the source has both (LiteLLM startTime/endTime, OTel span start/end, Langfuse), else its latency
// field (Kong, Portkey, Helicone, LiteLLM's request_duration_ms). Negative or longer than a day:
// a bad timing, counted, and the load model stands in.
void GatewayRowProcessor::SetDuration(RequestRecord* out) {
  constexpr double kDay = 86400;
  locator_.LocateTiming(&row_);
  double d = -1;
  bool found = false;
  if (row_.has_time && row_.end_time != -1) {
    d = row_.end_time - row_.time_s;
    found = true;
  } else if (row_.latency_s >= 0) {
    d = row_.latency_s;
    found = true;
  }
  const bool bad = row_.bad_latency || (found && !(d >= 0 && d <= kDay));
  out->duration_s = found && !bad ? d : -1;
  out->bad_duration = bad;
}

uint64_t GatewayRowProcessor::MaskedSystemDigest(simdjson::dom::element part) {
  system_canonical_.clear();
  AppendCanonical(part, &system_canonical_);
  const uint64_t exact = SipHash24(config_.key, system_canonical_);
  {
    std::lock_guard<std::mutex> lock(masked_system_->mu);
    auto& map = masked_system_->map;
    if (auto it = map.find(exact); it != map.end()) return it->second;
  }
  system_canonical_.clear();
  AppendCanonical(part, &system_canonical_, &masked_);
  const uint64_t masked = SipHash24(config_.key, system_canonical_);
  std::lock_guard<std::mutex> lock(masked_system_->mu);
  auto& map = masked_system_->map;
  if (map.size() >= kMaxMaskedSystems) map.clear();  // bounded memory
  map.emplace(exact, masked);
  return masked;
}

RowResult GatewayRowProcessor::Render(RequestRecord* out, const char** reason) {
  element body = row_.body;
  object obj;
  if (body.get_object().get(obj)) {
    *reason = "request body is not a JSON object";
    return RowResult::kSkipped;
  }
  std::string_view model = row_.model;
  std::string_view body_model;
  if (!obj.at_key("model").get_string().get(body_model) && model.empty()) model = body_model;

  // strftime_now formats the request's own time (a row without one: the epoch, 1970-01-01). A time
  // beyond int64 seconds (the time check drops it as implausible afterwards) renders as none.
  const bool usable = row_.has_time && std::fabs(row_.time_s) < 9.2e18;
  const int64_t now = usable ? static_cast<int64_t>(std::floor(row_.time_s)) : 0;
  int entry = -1;
  if (const char* r = renderer_.Render(body, model, now, &prompt_, &entry)) {
    *reason = r;
    return RowResult::kSkipped;
  }
  BlockCutter* cutter = cutter_.get();
  if (entry >= 0) {
    rendered_by_ = &model_labels_[static_cast<size_t>(entry)];
    if (cutters_[static_cast<size_t>(entry)]) cutter = cutters_[static_cast<size_t>(entry)].get();
  } else {
    rendered_by_ = &layout_labels_[static_cast<size_t>(prompt_.layout)];
  }
  // Conversation links: the whole message list and the lists before each assistant message,
  // chained with the salt; the post-pass links requests in time order (ingest/gateway_readers.cc).
  // A per-conversation session id wins when present. A filler-prone field's value is kept apart:
  // the post-pass uses it only when it repeats and no real id was found.
  links_.known = false;
  links_.parents.clear();
  {
    element messages;
    simdjson::dom::array list;
    if (!obj.at_key("messages").get(messages) && !messages.get_array().get(list)) {
      links_.known = true;
      uint64_t h = SipHash24(config_.key, "conversation");
      // The system prompt (Anthropic's top-level `system`, the leading system/developer messages)
      // is keyed with its volatile words masked (MaskVolatile): an app that writes the current
      // time or a request id into it still resends one conversation (issue 35, item 21). Other
      // messages are resent byte for byte and are keyed as they are.
      // An app resends the same system prompt with every request: its masked form is keyed once
      // per distinct exact form (masking every request's system prompt cost ~15% of a worker).
      auto add = [&](element part, bool system_part) {
        scratch_.assign(reinterpret_cast<const char*>(&h), sizeof h);
        if (system_part) {
          const uint64_t masked = MaskedSystemDigest(part);
          scratch_.append(reinterpret_cast<const char*>(&masked), sizeof masked);
        } else {
          AppendCanonical(part, &scratch_);
        }
        h = SipHash24(config_.key, scratch_);
      };
      element system;
      if (!obj.at_key("system").get(system)) add(system, true);  // Anthropic's top-level system
      std::vector<uint64_t> before_assistant;
      bool leading = true;  // still in the leading system/developer messages
      for (element m : list) {
        std::string_view role;
        simdjson::dom::object mo;
        const bool has_role = !m.get_object().get(mo) && !mo.at_key("role").get_string().get(role);
        if (has_role && role == "assistant") before_assistant.push_back(h);
        leading = leading && has_role && (role == "system" || role == "developer");
        add(m, leading);
      }
      links_.own = h;
      for (size_t k = before_assistant.size();
           k > 0 && links_.parents.size() < ConversationLinks::kMaxParents; --k)
        links_.parents.push_back(before_assistant[k - 1]);
    }
  }
  out->block_ids.clear();
  out->block_size = config_.block_size;
  // A continuation reuses what the cutter kept of the request it continues (block_cutter.h):
  // the same ids as Cut, without re-tokenizing and re-hashing the resent history.
  out->input_tokens =
      config_.reuse_prompts && links_.known
          ? cutter->CutReusing(prompt_.text, links_.own, links_.parents, &chain_, &out->block_ids)
          : cutter->Cut(prompt_.text, &chain_, &out->block_ids);
  KeepNamespaceApart(obj, model, body_model, &out->block_ids);
  // The facts builder reuses the digests of the text the cutter compared with; stamps are per
  // cutter, so each is tagged with its cutter (0 the default, k + 1 model entry k's own).
  TextReuse reuse = cutter->last_reuse();
  const uint64_t tag = cutter == cutter_.get() ? 0 : static_cast<uint64_t>(entry + 1) << 56;
  if (reuse.earlier) reuse.earlier |= tag;
  if (reuse.stamp) reuse.stamp |= tag;
  facts_.Build(prompt_, obj, out->input_tokens, cutter->approximate(), reuse, &out->facts);
  if (config_.on_prompt) config_.on_prompt(out->line, prompt_.text);
  out->time_s = row_.time_s;
  out->has_time = row_.has_time;
  out->model = SafeLabel(model);  // printed in reports: no escapes, valid UTF-8, bounded
  out->status_code = row_.status;
  bool stream;
  out->stream = obj.at_key("stream").get_bool().get(stream) ? -1 : (stream ? 1 : 0);
  out->type = prompt_.has_image ? "image" : prompt_.has_file ? "file" : "text";
  out->truncated_body = row_.truncated;
  if (config_.durations) SetDuration(out);

  // Exact counts from the logged usage (the response's, else the log's usage fields).
  ResponseUsage usage;
  const element* response = row_.has_response ? &row_.response : nullptr;
  if (response) usage = ReadResponseUsage(*response);
  if (usage.input < 0 && row_.prompt_tokens > 0) {
    usage.input = row_.prompt_tokens;
    if (usage.cached < 0) usage.cached = row_.cached_tokens;
  }
  if (usage.output < 0 && row_.completion_tokens >= 0 && row_.prompt_tokens > 0)
    usage.output = row_.completion_tokens;
  out->exact_counts = usage.input > 0;
  const int64_t cut_tokens = out->input_tokens;
  if (usage.input > 0) out->input_tokens = usage.input;
  out->provider_cached_tokens = usage.input > 0 ? usage.cached : -1;
  ProviderFacts& pf = out->provider;
  pf.observed_write = usage.input > 0 ? usage.write : -1;
  pf.observed_write_1h = usage.input > 0 ? usage.write_1h : -1;
  pf.bad_observation = usage.bad;
  if (pf.bad_observation == BadObservation::kNone && usage.input > 0 &&
      (usage.cached > usage.input || usage.write > usage.input ||
       std::max<int64_t>(usage.cached, 0) + std::max<int64_t>(usage.write, 0) > usage.input ||
       usage.write_1h > usage.write))
    pf.bad_observation = BadObservation::kAbovePrompt;
  if (pf.bad_observation != BadObservation::kNone) {
    out->provider_cached_tokens = -1;
    pf.observed_write = pf.observed_write_1h = -1;
  }
  provider_.Build(obj, out->facts, cut_tokens, out->input_tokens, &pf);
  if (usage.output >= 0) {
    out->output_tokens = usage.output;
  } else if (response) {
    response_text_.Clear();
    out->output_tokens =
        AppendResponseText(*response, &response_text_) ? cutter->Count(response_text_.text) : -1;
  } else {
    out->output_tokens = -1;
  }

  // Tool set digest (for tool-churn findings).
  out->tools_digest = 0;
  if (prompt_.tools_end > prompt_.tools_begin)
    out->tools_digest =
        SipHash24(config_.key,
                  std::string_view(prompt_.text)
                      .substr(prompt_.tools_begin, prompt_.tools_end - prompt_.tools_begin)) |
        1;

  const SessionId& s = row_.session;
  out->session_field = s.field ? s.field : "";
  out->conversation = s.field && s.per_conversation ? SessionKey(s) : std::string();
  if (config_.router_views) {
    router_view_.Build(obj, config_.router_views, &out->view);
    out->view.session = s.field ? SipHash24(config_.key, SessionKey(s)) | 1 : 0;
  }
  if (row_.filler.field) {
    filler_field_ = row_.filler.field;
    filler_key_ = SessionKey(row_.filler);
  }
  return RowResult::kOk;
}

}  // namespace ltl
