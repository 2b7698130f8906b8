// Profile: everything `profile` found, in one plain struct. The replay and the distributions fill
// it; report.json, report.html and the terminal summary are three renderings of it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyze/cache_buster_causes.h"
#include "analyze/capacity_knee.h"
#include "analyze/cctrace_summary.h"
#include "analyze/engine_profile.h"
#include "analyze/gateway_findings.h"
#include "analyze/leaderboards.h"
#include "analyze/provider_cache_section.h"
#include "analyze/quantiles.h"
#include "common/skip_counter.h"
#include "ingest/load_input.h"
#include "ingest/time_check.h"
#include "models/kv_models.h"
#include "simulate/fleet_result.h"
#include "simulate/lru_curve.h"
#include "simulate/replay_options.h"

namespace ltl {

struct Distributions {
  Quantiles input_tokens, output_tokens;
  std::vector<HistogramBin> input_hist, output_hist;  // log2-binned
  uint64_t stream_known = 0, stream_true = 0;
  std::map<std::string, uint64_t> models;  // model name -> requests ("" = unknown)
  double duration_s = 0;                   // last - first timestamp
  double qps = 0;                          // requests / duration
  double qps_bin_s = 0;                    // width of each QPS-over-time bin
  std::vector<double> qps_over_time;
  Quantiles inter_arrival_ms;
  std::map<int, uint64_t> status_codes;  // 0 = not recorded
  uint64_t conversations = 0;
  Quantiles requests_per_conversation;
  Quantiles turns;
  // Histograms of the above (log2-binned; inter-arrival in ms).
  std::vector<HistogramBin> inter_arrival_hist, requests_per_conversation_hist, turns_hist;
  double qps_peak = 0;                             // busiest QPS-over-time bin
  uint64_t with_session_id = 0;                    // requests carrying a session identifier
  std::map<std::string, uint64_t> session_fields;  // field that carried it -> requests
};

struct CurveRow {
  std::string policy = "lru";
  // The curve's own policy (the LRU the headline figures use, radix under --eviction sglang);
  // reports pick rows by this, never by a policy's name.
  bool headline = true;
  std::string engine;  // --engine: the KV pool the row replayed ("" = the ideal cache)
  uint64_t capacity_tokens = 0;
  uint64_t capacity_blocks = 0;
  HitTokens hit;
  int64_t measured_tokens = 0;
  bool underfilled = false;
  double capacity_gib = 0;  // budget in GiB this row was sized from (0 = given in tokens/blocks)
  double error_points = 0;  // sampled: 95% half-width of the hit rate, in points (0 = exact)
};

// Spatial sampling (`--sample-rate`, `--sample-max-blocks`; docs/SEMANTICS.md "Sampled curves").
struct SamplingInfo {
  bool active = false;
  double rate = 1;             // the rate the curve was computed at (final, for a block cap)
  double requested_rate = 1;   // --sample-rate
  uint64_t max_blocks = 0;     // --sample-max-blocks (0 = none)
  uint64_t kept_blocks = 0;    // distinct blocks kept and replayed
  uint64_t kept_accesses = 0;  // their accesses
  double ceiling_error_points = 0, cold_ceiling_error_points = 0;
  bool unbounded_exact =
      false;                    // ceiling + cold ceiling from the cluster's shuffle, not the sample
  double max_error_points = 0;  // largest over the curve rows and the ceiling
  std::vector<std::string> omitted;  // figures not computed under sampling, one phrase each
};

// Eviction policies side by side, optionally in GiB of a model's KV cache (docs/SEMANTICS.md).
struct KvCacheSection {
  bool present = false;
  bool has_memory = false;  // capacities are GiB budgets of `memory`
  KvMemory memory;
  std::vector<std::string> policies;  // in the order asked
  std::vector<CurveRow> rows;         // policy-major, capacities ascending within a policy
  unsigned threads = 0;               // worker threads the replays ran on
};

// A tiered KV store (`--tiers`): an exclusive LRU hierarchy, hits split by the serving tier
// (analyze/build_tiers.h, docs/SEMANTICS.md "Tiered KV memory").
struct TierInfo {
  std::string name;       // as given (hbm, dram, ssd, ...)
  std::string size_text;  // as given (80GiB, 4M)
  uint64_t capacity_blocks = 0;
  uint64_t capacity_tokens = 0;
  double bytes = 0;  // KV bytes it holds (0 when no bytes per token are known)
};

struct TierRow {
  std::string kind = "leading";  // "leading": the first tiers_used tiers; "scaled": all, x scale
  double scale = 1;
  size_t tiers_used = 0;
  std::vector<uint64_t> capacity_blocks;  // per tier (0 past tiers_used)
  std::vector<int64_t> hit;               // measured hit tokens served by each tier
  uint64_t effective_blocks = 0;  // what one LRU cache holding the same blocks needs: the sum
                                  // (exclusive) or the largest tier (inclusive)
  int64_t flat_hit = 0;           // one LRU cache of effective_blocks (equal by theory)
  // Time model (TiersSection::time.present): estimates, seconds.
  double ttft_p50 = 0, ttft_p90 = 0, ttft_p95 = 0, ttft_p99 = 0, ttft_mean = 0;
  double prefill_gpu_s = 0;  // prefill compute of the uncached tokens, summed
  double transfer_s = 0;     // lower-tier reads, summed
  double e2e_speedup = 1;    // sum of (prefill + decode) without cache / with this cache
  double gpu_s_saved_per_day = 0;
  int64_t total_hit() const {
    int64_t t = 0;
    for (int64_t h : hit) t += h;
    return t;
  }
};

// The prefill/decode time model over the tiers (analyze/tier_time_model.h).
struct TierTimeModel {
  bool present = false;
  std::string model, model_source;  // compute shape
  double active_params = 0;
  std::string gpu, gpu_source, precision;
  double peak_flops = 0;  // dense, FLOP/s
  double mfu = 0;
  std::vector<double> tier_bytes_per_s;  // per tier; tier 0 is HBM itself (0 = no transfer)
  std::vector<std::string> tier_bandwidth_source;
  double decode_tokens_per_s = 0;
  double gpu_hour_price = 0;             // 0 = not given
  double window_s = 0;                   // span of the measured requests' times (0 = unknown)
  uint64_t unknown_output_requests = 0;  // decode counted as 0 tokens
  // Without a cache.
  double ttft_p50 = 0, ttft_p90 = 0, ttft_p95 = 0, ttft_p99 = 0, ttft_mean = 0;
  double prefill_gpu_s = 0, decode_s = 0;
  std::vector<std::string> assumptions;
};

struct TiersSection {
  TierTimeModel time;
  bool present = false;
  bool inclusive = false;      // --tier-mode inclusive
  double bytes_per_token = 0;  // 0 = sizes in tokens only
  std::vector<TierInfo> tiers;
  std::vector<TierRow> rows;  // leading 1..n tiers, then the scaled hierarchies
  size_t asked_row = 0;       // the hierarchy as asked (all tiers, scale 1)
  int64_t measured_tokens = 0;
  uint64_t measured_requests = 0;
};

struct Profile {
  // Input.
  std::string input_name;
  std::string format;  // a FormatName, or "mixed" (gateway logs of more than one format)
  std::vector<InputFileSummary> files;  // every input file (one per file, in the order given)
  std::string encoding;
  // How the input was recognised (read/input_format.h, ingest/source_detect.h).
  std::string framing;  // JSON inputs: json lines | json values | json array | json document
  std::string source;   // gateway logs: the source table (litellm-spendlogs, ...)
  std::string detection_reason;
  uint64_t input_bytes = 0;
  std::string counting = "hashed trace";  // how token counts were obtained
  std::string tokenizer;                  // --tokenizer used for gateway logs ("" = none)
  uint64_t rows_read = 0;                 // rows/lines holding a record (valid or not)
  uint64_t requests = 0;                  // requests replayed
  SkipCounter skipped;                    // rows skipped, by reason
  uint64_t filtered_status = 0;           // non-2xx rows not replayed
  uint64_t untimed = 0;                   // requests without a usable time (took a neighbour's)
  TimeCheck times;                        // implausible times among them (ingest/time_check.h)

  // Replay settings.
  uint32_t block_size = 0;
  double warmup = 0.5;
  EvictOrder order = EvictOrder::kTailFirst;
  LruEngine lru = LruEngine::kVllm;  // --eviction: which LRU the curve, knee and lru rows follow
  uint64_t distinct_blocks = 0;
  uint64_t block_accesses = 0;
  bool has_conversations = false;

  // Results.
  uint64_t measured_requests = 0;
  int64_t measured_tokens = 0;
  HitTokens ceiling;  // unbounded, steady state
  int64_t cold_measured_tokens = 0;
  HitTokens cold_ceiling;  // unbounded, warm-up 0
  double aiperf_cache_hit_rate = 0;
  uint64_t saturation_blocks = 0;  // smallest LRU capacity reaching the ceiling
  std::vector<CurveRow> curve;
  std::vector<CurvePoint> dense_curve;
  std::vector<double> dense_error_points;  // sampled: per dense_curve point (else empty)
  SamplingInfo sampling;
  std::optional<FleetResult> fleet;  // --workers: routing policies over N per-worker caches
  KvCacheSection kv_cache;
  TiersSection tiers;      // --tiers
  LoadTiming load_timing;  // durations, when an analysis asked for them
  EngineProfile engine;    // --engine: the KV pool (analyze/engine_profile.h)

  Distributions dist;
  GatewayFindings gateway;  // gateway logs only (gateway.present)

  CctraceSummary cctrace;  // cache traces only (present == false otherwise)
  CacheBusters
      busters;  // gateway logs: where and why prefixes break (analyze/cache_buster_causes.h)

  ProviderCacheSection
      provider_cache;         // a hosted provider's prompt cache (provider_cache_section.h)
  Leaderboards leaderboards;  // prefix leaderboards (analyze/leaderboards.h)
  CapacityKnee knee;          // past it, a doubling buys < 1 point (analyze/capacity_knee.h)

  // Settings shown in the report's "how the numbers were computed" (empty = not applicable).
  std::string template_layout;        // chat-template layout used to render gateway bodies
  std::vector<std::string> findings;  // one sentence each, aggregates only (never input text)

  double Rate(const HitTokens& h, int64_t measured) const {
    return measured > 0 ? static_cast<double>(h.hit) / static_cast<double>(measured) : 0.0;
  }
};

}  // namespace ltl
