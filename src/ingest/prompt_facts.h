// PromptFacts of one gateway request (common/request_record.h): the rendered prompt's segments in
// order, each with its first token after cutting and keyed digests of its text (plain and with
// volatile substrings masked); the body's tool definitions as name and definition digests; where
// the last cache_control marker sits. Digests are salted SipHash, so the facts hold no text and
// are comparable only within one salt. The cache-busters analysis (analyze/cache_busters.h) reads
// them to say where and why two prompts diverge.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "common/request_record.h"
#include "common/siphash.h"
#include "render/render_prompt.h"

namespace ltl {

// `text` with every volatile word replaced by '#' (docs/SEMANTICS.md, "Cache busters"): a word is
// a maximal run of ASCII letters, digits and - : . / _ +; it is volatile when it holds at least two
// digits and no more letters than digits, or at least eight hex digits and nothing but hex digits
// and separators (dates, times, epochs, UUIDs, hex ids, counters).
void MaskVolatile(std::string_view text, std::string* out);

// A JSON value in a form that is the same whenever a client resends it: keys in order, every
// cache_control marker dropped, strings as length-prefixed raw bytes, numbers and literals as
// minified JSON, keys length-prefixed.
void AppendCanonical(simdjson::dom::element e, std::string* out);

class PromptFactsBuilder {
 public:
  explicit PromptFactsBuilder(SipKey key);
  // Fills *out for `prompt` (rendered from `body`) cut into `tokens` tokens; `approximate` says
  // the cutter counts code points (exact positions) rather than tokenizer ids (estimated).
  void Build(const RenderedPrompt& prompt, simdjson::dom::object body, int64_t tokens,
             bool approximate, PromptFacts* out);

 private:
  uint32_t Digest(std::string_view s) const;
  SipKey key_;
  std::string masked_, scratch_;
};

}  // namespace ltl
