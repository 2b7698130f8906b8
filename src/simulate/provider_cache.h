// Provider prompt caches as plug-ins: the caches of hosted APIs (OpenAI's automatic prompt caching,
// Anthropic's cache_control breakpoints, ...) replayed request by request, each following the
// rules of its provider's own documentation (cited in each plug-in and in docs/SEMANTICS.md,
// "Provider caches"). A model predicts, per request, the tokens the provider would report as read
// from its cache and as written to it. Every rule can be switched off (ProviderRules), so the gap
// between the ideal unbounded cache and the provider's prediction can be split into causes by
// switching the rules on one after the other (AttributeProviderGap, provider_gap.h).
// Registry: provider_registry.cc (one X(...) line per model).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ltl {

// A cache_control marker on a content block (Anthropic), with the TTL it asks for.
enum class Breakpoint : uint8_t { kNone = 0, k5m = 1, k1h = 2 };

// The end of one content block of a prompt in Anthropic's prefix order tools -> system -> messages
// (a tool, a system block, a message content block).
struct ProviderBoundary {
  uint64_t prefix = 0;  // keyed digest of the prompt through this block (never the text)
  int64_t tokens = 0;   // prompt tokens through this block
  Breakpoint breakpoint = Breakpoint::kNone;
};

// What a provider model sees of one request (replay order). Pointers are valid during the call.
struct ProviderRequest {
  double time_s = 0;
  std::string_view model;      // the model string as sent (keys the cache, picks the minimum)
  uint64_t cache_key = 0;      // digest of OpenAI's prompt_cache_key; 0 = none sent
  bool retention_24h = false;  // OpenAI "prompt_cache_retention": "24h"
  int64_t prompt_tokens = 0;   // the whole prompt
  // OpenAI-style exact-prefix caches: the prompt's chained block ids (head first; the last block
  // may be partial) and the tokens per block.
  const uint32_t* blocks = nullptr;
  uint32_t num_blocks = 0;
  uint32_t block_size = 0;
  // Breakpoint caches: the content blocks, in prefix order.
  const ProviderBoundary* boundaries = nullptr;
  uint32_t num_boundaries = 0;
  // Anthropic automatic caching (a top-level cache_control): a breakpoint on the last block.
  Breakpoint automatic = Breakpoint::kNone;
};

// What the provider would report for one request.
struct ProviderPrediction {
  int64_t read = 0;      // tokens read from the cache (OpenAI cached_tokens, Anthropic
                         // cache_read_input_tokens)
  int64_t write_5m = 0;  // tokens written with the short TTL (Anthropic cache_creation; OpenAI:
                         // the prompt tokens newly cached, which OpenAI does not report)
  int64_t write_1h = 0;  // tokens written with a 1-hour TTL (Anthropic) or 24 h retention (OpenAI)
  int64_t write() const { return write_5m + write_1h; }
};

// The rules a replay applies. All on = the provider as documented; a cause of the gap is the
// difference made by switching its rule on (provider_gap.h).
struct ProviderRules {
  bool partition = true;    // entries are keyed per model (and OpenAI's prompt_cache_key)
  bool minimum = true;      // prompts (OpenAI) or breakpoints (Anthropic) below the minimum cache
                            // nothing
  bool breakpoints = true;  // Anthropic: entries only at cache_control breakpoints
  bool cap = true;          // Anthropic: at most 4 breakpoints (the first four count)
  bool lookback = true;     // Anthropic: a breakpoint reads only its own and 20 earlier boundaries
  bool ttl = true;          // entries expire after their TTL (refreshed on use)
  bool increments = true;   // OpenAI: cached tokens reported as 1,024 + 128 k
  double short_ttl_s = 0;   // > 0: overrides the default (5-minute) TTL (--provider-ttl)
};

// One replay of a provider cache over a sequence of requests.
class ProviderCacheReplay {
 public:
  virtual ~ProviderCacheReplay() = default;
  // The prediction for the next request in replay order; updates the cache.
  virtual ProviderPrediction Next(const ProviderRequest& request) = 0;
};

class ProviderCacheModel {
 public:
  virtual ~ProviderCacheModel() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;  // one line for --help and report.json
  virtual std::string_view source() const = 0;   // documentation page and the date it was read
  // True when requests need ProviderRequest::boundaries (breakpoint caches), false when they need
  // the block ids.
  virtual bool uses_boundaries() const = 0;
  // The minimum cacheable length for a model string (0 when the model is not in the table).
  virtual int64_t MinimumTokens(std::string_view model) const = 0;
  // The causes this model's rules can contribute to the gap, in the order they are switched on.
  virtual std::vector<std::string_view> RuleOrder() const = 0;
  virtual std::unique_ptr<ProviderCacheReplay> Start(const ProviderRules& rules) const = 0;
};

// TTLs as the providers document them (seconds).
constexpr double kShortTtlSeconds = 300;        // OpenAI in-memory, Anthropic default "5m"
constexpr double kHourTtlSeconds = 3600;        // Anthropic "1h"
constexpr double kRetention24hSeconds = 86400;  // OpenAI "prompt_cache_retention": "24h"

// The registered models in registry order; lookup by name (case-insensitive).
const std::vector<const ProviderCacheModel*>& ProviderCacheModels();
std::string ProviderCacheModelNames();
Result<const ProviderCacheModel*> FindProviderCacheModel(std::string_view name);

}  // namespace ltl
