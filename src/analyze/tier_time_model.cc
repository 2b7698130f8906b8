// BuildTierTimeModel (see tier_time_model.h).
#include "analyze/tier_time_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ltl {
namespace {

// Nearest rank, as the token distributions (q in (0, 1]).
double Rank(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  size_t i = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(i, 1, sorted.size()) - 1];
}

template <typename T>
void FillQuantiles(std::vector<double> v, T* out) {
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  out->ttft_p50 = Rank(v, 0.50);
  out->ttft_p90 = Rank(v, 0.90);
  out->ttft_p95 = Rank(v, 0.95);
  out->ttft_p99 = Rank(v, 0.99);
  out->ttft_mean = v.empty() ? 0 : sum / static_cast<double>(v.size());
}

}  // namespace

void BuildTierTimeModel(const Trace& trace, const TimeModelRequest& req, double bytes_per_token,
                        const TierSplit& split, Profile* p) {
  TiersSection& s = p->tiers;
  TierTimeModel& t = s.time;
  t = TierTimeModel{};
  if (!req.present) return;
  t.present = true;
  t.model = req.compute.name;
  t.model_source = req.compute.source;
  t.active_params = req.compute.active_params;
  t.gpu = req.gpu;
  t.gpu_source = req.gpu_source;
  t.precision = req.precision;
  t.peak_flops = req.peak_flops;
  t.mfu = req.mfu;
  t.tier_bytes_per_s = req.tier_bytes_per_s;
  t.tier_bandwidth_source = req.tier_bandwidth_source;
  t.decode_tokens_per_s = req.decode_tokens_per_s;
  t.gpu_hour_price = req.gpu_hour_price;
  const double rate = req.peak_flops * req.mfu;  // FLOP/s achieved
  const size_t nt = split.tiers, nh = split.hierarchies;

  double t_min = std::numeric_limits<double>::infinity(), t_max = -t_min;
  std::vector<double> none;
  std::vector<std::vector<double>> cached(nh);
  std::vector<double> e2e_cached(nh, 0);
  double e2e_none = 0;
  for (size_t m = 0; m < split.request.size(); ++m) {
    const TraceRequest& r = trace.requests[split.request[m]];
    const auto len = static_cast<uint64_t>(std::max<int64_t>(r.input_tokens, 0));
    t_min = std::min(t_min, r.time_s);
    t_max = std::max(t_max, r.time_s);
    const double full = req.compute.PrefillFlops(0, len) / rate;
    if (r.output_tokens < 0) ++t.unknown_output_requests;
    const double decode =
        static_cast<double>(std::max<int64_t>(r.output_tokens, 0)) / req.decode_tokens_per_s;
    none.push_back(full);
    t.prefill_gpu_s += full;
    t.decode_s += decode;
    e2e_none += full + decode;
    for (size_t h = 0; h < nh; ++h) {
      uint64_t hit = 0;
      double transfer = 0;
      for (size_t k = 0; k < nt; ++k) {
        const uint32_t tok = split.RequestTokens(m, h, k);
        hit += tok;
        if (k > 0 && tok > 0 && req.tier_bytes_per_s[k] > 0)
          transfer += static_cast<double>(tok) * bytes_per_token / req.tier_bytes_per_s[k];
      }
      const double compute = req.compute.PrefillFlops(std::min<uint64_t>(hit, len), len) / rate;
      TierRow& row = s.rows[h];
      row.prefill_gpu_s += compute;
      row.transfer_s += transfer;
      cached[h].push_back(compute + transfer);
      e2e_cached[h] += compute + transfer + decode;
    }
  }
  t.window_s = split.request.empty() ? 0 : t_max - t_min;
  FillQuantiles(none, &t);
  for (size_t h = 0; h < nh; ++h) {
    TierRow& row = s.rows[h];
    FillQuantiles(std::move(cached[h]), &row);
    row.e2e_speedup = e2e_cached[h] > 0 ? e2e_none / e2e_cached[h] : 1;
    row.gpu_s_saved_per_day =
        t.window_s > 0 ? (t.prefill_gpu_s - row.prefill_gpu_s) * 86400.0 / t.window_s : 0;
  }
  t.assumptions = {
      fmt::format("prefill FLOPs = 2 x {:.3g} active matrix parameters per token + attention "
                  "2 x heads x (qk + v dims) per query-key pair per layer, causal ({})",
                  req.compute.active_params, req.compute.source),
      fmt::format("GPU {} at {:.1f} TFLOP/s dense {} x MFU {:g} ({})", req.gpu,
                  req.peak_flops / 1e12, req.precision, req.mfu, req.gpu_source),
      "one request at a time per GPU: no queueing, batching gains or tensor-parallel overheads; "
      "TTFT = prefill compute + lower-tier reads, reads not overlapped with compute",
      "hit tokens in the fastest tier cost nothing; hit tokens in tier k are read at tier k's "
      "bandwidth (KV bytes per token x tokens)",
      fmt::format("decode at {:g} tokens/s per request; unknown output lengths count as 0 tokens "
                  "({} requests)",
                  req.decode_tokens_per_s, t.unknown_output_requests),
      "GPU-seconds saved = prefill compute avoided (not transfer time), scaled to a day by the "
      "measured window's span of request times",
  };
}

}  // namespace ltl
