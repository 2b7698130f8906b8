// ProviderFacts of one gateway request (common/request_record.h): what a hosted provider's prompt
// cache needs to replay it (simulate/provider_cache.h) — OpenAI's prompt_cache_key as a keyed
// digest and its "prompt_cache_retention"; Anthropic's content blocks in prefix order tools ->
// system -> messages, each with a keyed digest of the prefix through it, its end in prompt tokens
// and its cache_control breakpoint. Token positions come from the rendered prompt's segments (the
// tokenizer the run cuts with) and are scaled to the whole prompt the log reports, since Claude's
// tokenizer is not public (docs/SEMANTICS.md, "Provider caches").
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>

#include "common/request_record.h"
#include "common/siphash.h"

namespace ltl {

// One builder per worker thread (it keeps scratch buffers).
class ProviderFactsBuilder {
 public:
  explicit ProviderFactsBuilder(SipKey key);
  // Fills *out's request facts from `body` and the prompt's segments `facts` (positions in
  // `cut_tokens` tokens); block ends are scaled to `prompt_tokens` (the logged whole prompt, or
  // the cut count when the row reports none). Observations are the caller's.
  void Build(simdjson::dom::object body, const PromptFacts& facts, int64_t cut_tokens,
             int64_t prompt_tokens, ProviderFacts* out);

 private:
  SipKey key_;
  std::string scratch_;
};

}  // namespace ltl
