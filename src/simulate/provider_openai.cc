// The "openai" provider cache: OpenAI's automatic prompt caching as its documentation describes it.
// Source: https://developers.openai.com/api/docs/guides/prompt-caching (read 2026-12-05):
//   - caching applies to prompts of 1,024 tokens or more; a hit is an exact prefix match;
//   - cached_tokens is reported in increments: 1,024 + 128 k (0 below 1,024);
//   - requests are keyed per model and, when sent, by prompt_cache_key;
//   - in-memory retention keeps a prefix for 5 minutes of inactivity (a use refreshes it);
//     "prompt_cache_retention": "24h" keeps it up to 24 hours.
// Where the page leaves room (docs/SEMANTICS.md, "Provider caches"): a prompt under 1,024 tokens
// reads, writes and refreshes nothing; every prompt of >= 1,024 tokens caches its whole prompt
// after the request, even when it read nothing (each block's entry lives until max(old expiry,
// now + TTL)); an entry is alive while now <= its expiry; the 24 h retention comes from the
// request that wrote or refreshed it, and a 5-minute use never shortens a 24 h entry. The match is
// counted in whole blocks of the trace: exact for the reported increments whenever the block size
// divides 128 (1,024 + 128 k is then a block boundary, so rounding the block-aligned match gives
// the same increment as rounding the token-exact one).
#include <absl/container/flat_hash_map.h>

#include <limits>

#include "common/ascii.h"
#include "simulate/provider_cache.h"
#include "simulate/provider_partitions.h"

namespace ltl {
namespace {

constexpr int64_t kOpenAiMinimum = 1024;
constexpr int64_t kOpenAiIncrement = 128;

// The cached tokens OpenAI reports for an exact prefix match of `match` tokens.
int64_t ReportedIncrement(int64_t match) {
  if (match < kOpenAiMinimum) return 0;
  return kOpenAiMinimum + kOpenAiIncrement * ((match - kOpenAiMinimum) / kOpenAiIncrement);
}

class OpenAiReplay final : public ProviderCacheReplay {
 public:
  explicit OpenAiReplay(const ProviderRules& rules) : rules_(rules) {}

  ProviderPrediction Next(const ProviderRequest& r) override {
    ProviderPrediction out;
    if (rules_.minimum && r.prompt_tokens < kOpenAiMinimum) return out;
    const uint32_t partition = rules_.partition ? partitions_.Of(r.model, r.cache_key) : 0;
    const uint32_t bs = r.block_size;
    // Only whole blocks are matched (the tail block of a prompt is partial unless aligned).
    uint32_t full =
        bs == 0 ? 0 : static_cast<uint32_t>(std::min<int64_t>(r.prompt_tokens / bs, r.num_blocks));
    uint32_t k = 0;
    while (k < full) {
      auto it = expiry_.find(PartitionBlockKey(partition, r.blocks[k]));
      if (it == expiry_.end() || (rules_.ttl && r.time_s > it->second)) break;
      ++k;
    }
    const int64_t match = static_cast<int64_t>(k) * bs;
    out.read = rules_.increments ? ReportedIncrement(match) : match;
    // The whole prompt is cached after the request; what was not matched is newly written.
    const double ttl = r.retention_24h
                           ? kRetention24hSeconds
                           : (rules_.short_ttl_s > 0 ? rules_.short_ttl_s : kShortTtlSeconds);
    const double until = rules_.ttl ? r.time_s + ttl : std::numeric_limits<double>::infinity();
    for (uint32_t b = 0; b < full; ++b) {
      auto [it, inserted] = expiry_.try_emplace(PartitionBlockKey(partition, r.blocks[b]), until);
      if (!inserted && it->second < until) it->second = until;
    }
    const int64_t written = std::max<int64_t>(0, r.prompt_tokens - match);
    (r.retention_24h ? out.write_1h : out.write_5m) = written;
    return out;
  }

 private:
  ProviderRules rules_;
  ProviderPartitions partitions_;
  absl::flat_hash_map<uint64_t, double> expiry_;  // (partition, block) -> expiry time
};

class OpenAiPromptCache final : public ProviderCacheModel {
 public:
  std::string_view name() const override { return "openai"; }
  std::string_view summary() const override {
    return "automatic prefix cache: prompts >= 1,024 tokens, hits in 128-token increments, "
           "per model and prompt_cache_key, 5 min TTL refreshed on use (24 h on request)";
  }
  std::string_view source() const override {
    return "https://developers.openai.com/api/docs/guides/prompt-caching (read 2026-12-05)";
  }
  bool uses_boundaries() const override { return false; }
  int64_t MinimumTokens(std::string_view) const override { return kOpenAiMinimum; }
  std::vector<std::string_view> RuleOrder() const override {
    return {"partition", "minimum", "ttl", "increments"};
  }
  std::unique_ptr<ProviderCacheReplay> Start(const ProviderRules& rules) const override {
    return std::make_unique<OpenAiReplay>(rules);
  }
};

}  // namespace

const ProviderCacheModel& OpenAiProviderCache() {
  static const OpenAiPromptCache model;
  return model;
}

}  // namespace ltl
