// ReadResponseUsage: the token counts a logged response reports — OpenAI chat (prompt_tokens,
// prompt_tokens_details.cached_tokens), DeepSeek (prompt_cache_hit_tokens), OpenAI Responses
// (input_tokens with input_tokens_details) and Anthropic Messages, whose prompt is the sum of
// input_tokens, cache_read_input_tokens and cache_creation_input_tokens. The one place that
// arithmetic lives: profile's gateway rows and export --to cctrace both read usage here.
#pragma once

#include <simdjson.h>

#include <cstdint>

#include "common/request_record.h"  // BadObservation

namespace ltl {

struct ResponseUsage {
  int64_t input = -1, output = -1, cached = -1;  // -1 = not reported
  int64_t write = -1, write_1h = -1;  // Anthropic cache_creation_input_tokens (and its 1 h part)
  BadObservation bad = BadObservation::kNone;  // a cache count present but unusable
};

// The response's "usage" object read as above (all -1 when it has none). A count may be a number
// or a decimal string ("12"), as some gateways log it.
ResponseUsage ReadResponseUsage(simdjson::dom::element response);

}  // namespace ltl
