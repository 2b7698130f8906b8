// The provider-cache section of a profile: a hosted provider's prompt cache (simulate/
// provider_cache.h) replayed over the log's requests in time order from an empty cache, per
// request predicted read and written tokens beside what the log observed, the gap from the ideal
// unbounded cache down to the prediction split into causes (busters, then each documented rule
// switched on in turn), the agreement with the observations, and the bill under what-ifs priced
// from a dated table (analyze/provider_prices.h). Aggregates and per-request counts only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyze/cache_buster_causes.h"
#include "analyze/provider_prices.h"
#include "common/request_record.h"
#include "simulate/trace.h"

namespace ltl {

struct ProviderCacheOptions {
  std::string provider = "auto";  // auto | a registered model (openai, anthropic) | gemini | none
  double ttl_s = 0;               // --provider-ttl: overrides the default 5-minute TTL (0 = none)
  PriceTable prices = DefaultPriceTable();
};

struct ProviderGapStep {
  std::string cause;   // busters | partition | minimum | breakpoints | cap | lookback | ttl |
                       // increments | beyond_rules
  std::string label;   // a readable name
  int64_t tokens = 0;  // read tokens lost at this step (< 0: gained)
  double points = 0;   // tokens / the replayed requests' input tokens, in points
};

struct ProviderCostScenario {
  std::string scenario;  // observed | predicted | no_cache | ttl_1h | one_breakpoint |
                         // stable_tools
  std::string label;
  double dollars = 0;
  double per_day = 0;  // dollars over the log's time span in days (0 = span < 1 h)
  double per_million_requests = 0;
  bool estimated = false;  // from the busters' lost tokens rather than a replay (stable_tools)
};

struct ProviderBadObservation {
  std::string reason;
  uint64_t rows = 0;
  uint32_t first_file_index = 0;  // the first such row's file (RequestRecord::file) ...
  std::string first_file;         // ... by name (filled by AnalyzeInput) and its 1-based row
  uint64_t first_row = 0;
};

struct ProviderTimeBucket {
  double start_s = 0;
  int64_t input_tokens = 0, predicted_read = 0;
  int64_t observed_input_tokens = 0, observed_read = 0, predicted_read_on_observed = 0;
};

// Per request, in replay order (for --requests-out and the charts).
struct ProviderRequestRow {
  int64_t read = 0, write = 0;  // predicted
  int64_t ideal = 0;            // the unbounded cache's hit tokens
};

struct ProviderCacheSection {
  bool present = false;
  bool modelled = true;   // false: the provider's documentation does not state enough (gemini)
  std::string provider;   // openai | anthropic | gemini
  std::string chosen_by;  // "--provider-cache" | "auto: ..."
  std::string summary, source;
  std::string note;                      // why not modelled, or how token positions were placed
  uint64_t requests = 0;                 // replayed with the model
  uint64_t other_provider_requests = 0;  // auto: requests of another provider, left out
  int64_t input_tokens = 0;
  int64_t ideal_read_tokens = 0;  // the unbounded cache over the same requests, cold
  int64_t rule_free_read_tokens = 0;
  int64_t predicted_read_tokens = 0, predicted_write_tokens = 0, predicted_write_1h_tokens = 0;
  // Over the requests with an observation.
  uint64_t observed_requests = 0, observed_write_requests = 0, agreeing_requests = 0;
  int64_t observed_input_tokens = 0;
  int64_t observed_read_tokens = 0, observed_write_tokens = 0;
  int64_t predicted_read_on_observed = 0;
  double agreement = 0;              // agreeing / observed requests (0 when none)
  double read_write_agreement = 0;   // share whose read>0 and write>0 match the prediction's
  std::vector<ProviderGapStep> gap;  // ideal -> ... -> predicted, then beyond_rules to observed
  // Idle gaps before the requests that lost reads to TTL expiry (time since the conversation's, or
  // else the partition's, previous request): counts in [5 min, 15 min), [15 min, 1 h), [1 h, 24 h),
  // >= 24 h, and below the TTL (an entry refreshed by nothing in between).
  std::vector<std::pair<std::string, uint64_t>> ttl_idle_gaps;
  std::vector<ProviderBadObservation> bad_observations;
  uint64_t bad_observation_rows = 0;
  std::vector<ProviderCostScenario> cost;
  std::string price_date, price_source;
  uint64_t priced_requests = 0;
  std::vector<std::string> unpriced_models;  // models without a price (said once each)
  std::vector<ProviderTimeBucket> over_time;
  std::vector<std::string> findings;  // sentences (aggregates only)
  std::vector<ProviderRequestRow>
      per_request;                // replay order, every trace request (0 when left out)
  std::vector<uint8_t> included;  // per trace request: replayed with the model
};

// `is_cctrace`: the records come from cache traces (no content blocks: the trace's blocks stand
// in).
ProviderCacheSection AnalyzeProviderCache(const Trace& trace,
                                          const std::vector<RequestRecord>& records,
                                          const CacheBusters& busters,
                                          const ProviderCacheOptions& options, bool is_cctrace);

// The provider family a model string belongs to: "anthropic", "openai", "gemini" or "".
std::string_view ProviderFamilyOfModel(std::string_view model);

}  // namespace ltl
