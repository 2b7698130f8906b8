// Distributions of the replayed requests (see distributions.h).
#include "analyze/distributions.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "analyze/label_counts.h"

namespace ltl {

Quantiles ComputeQuantiles(std::vector<int64_t>& values) {
  Quantiles q;
  q.count = values.size();
  if (values.empty()) return q;
  std::sort(values.begin(), values.end());
  auto rank = [&](double p) {
    size_t idx = static_cast<size_t>(std::ceil(p * static_cast<double>(values.size())));
    return values[std::min(values.size() - 1, idx == 0 ? 0 : idx - 1)];
  };
  q.p50 = rank(0.50);
  q.p90 = rank(0.90);
  q.p99 = rank(0.99);
  q.max = values.back();
  long double sum = 0;
  for (int64_t v : values) sum += v;
  q.mean = static_cast<double>(sum / values.size());
  return q;
}

std::vector<HistogramBin> Log2Histogram(const std::vector<int64_t>& values) {
  std::vector<HistogramBin> bins;
  if (values.empty()) return bins;
  int64_t mx = *std::max_element(values.begin(), values.end());
  int top = 0;
  while (top < 62 && (int64_t{1} << top) <= mx) ++top;
  bins.push_back({0, 1, 0});
  for (int b = 0; b < top; ++b) bins.push_back({std::ldexp(1.0, b), std::ldexp(1.0, b + 1), 0});
  for (int64_t v : values) {
    if (v <= 0) {
      ++bins[0].count;
      continue;
    }
    int b = 63 - __builtin_clzll(static_cast<unsigned long long>(v));
    ++bins[static_cast<size_t>(b) + 1].count;
  }
  return bins;
}

double QpsBinWidth(double duration_s) {
  static const double kWidths[] = {1, 5, 10, 30, 60, 300, 600, 1800, 3600, 21600, 86400};
  constexpr double kTargetBins = 120;
  for (double w : kWidths)
    if (duration_s / w <= kTargetBins) return w;
  // Whole days in 1-2-5 steps: the smallest such width giving at most kTargetBins bins.
  const double days = duration_s / 86400 / kTargetBins;
  double decade = std::pow(10.0, std::floor(std::log10(days)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * decade >= days) return m * decade * 86400;
  return 10 * decade * 86400;
}

Distributions ComputeDistributions(const std::vector<RequestRecord>& records, const Trace& trace) {
  Distributions d;
  std::vector<int64_t> in, out, gaps, turns;
  in.reserve(trace.requests.size());
  double t0 = 0, t1 = 0;
  bool first = true;
  double prev = 0;
  std::unordered_map<int32_t, uint64_t> per_conv;
  for (const TraceRequest& r : trace.requests) {
    if (r.replay_only) continue;  // cache pre-population, not a request
    const RequestRecord& rec = records[r.record];
    in.push_back(r.input_tokens);
    if (r.output_tokens >= 0) out.push_back(r.output_tokens);
    if (rec.stream >= 0) {
      ++d.stream_known;
      if (rec.stream == 1) ++d.stream_true;
    }
    ++d.models[rec.model];
    ++d.status_codes[rec.status_code];
    if (rec.turn > 0) turns.push_back(rec.turn);
    if (r.conversation != kNoConversation) ++per_conv[r.conversation];
    if (!rec.session_field.empty()) {
      ++d.with_session_id;
      ++d.session_fields[rec.session_field];
    }
    if (first) {
      t0 = r.time_s;
      first = false;
    } else {
      // Clamped so that no span, however absurd, overflows the milliseconds.
      double ms = (r.time_s - prev) * 1000.0;
      ms = ms >= 0 ? std::min(ms, 9.0e18) : 0.0;  // NaN-safe
      gaps.push_back(static_cast<int64_t>(std::llround(ms)));
    }
    prev = r.time_s;
    t1 = r.time_s;
  }
  d.input_hist = Log2Histogram(in);
  d.output_hist = Log2Histogram(out);
  d.input_tokens = ComputeQuantiles(in);
  d.output_tokens = ComputeQuantiles(out);
  d.inter_arrival_hist = Log2Histogram(gaps);
  d.turns_hist = Log2Histogram(turns);
  d.inter_arrival_ms = ComputeQuantiles(gaps);
  d.turns = ComputeQuantiles(turns);
  d.duration_s = t1 - t0;
  d.qps = d.duration_s > 0 ? static_cast<double>(RealRequests(trace)) / d.duration_s : 0.0;
  if (d.duration_s > 0 && std::isfinite(d.duration_s)) {
    d.qps_bin_s = QpsBinWidth(d.duration_s);
    const size_t nbins = std::min<size_t>(
        kMaxQpsBins, static_cast<size_t>(std::floor(d.duration_s / d.qps_bin_s)) + 1);
    d.qps_over_time.assign(nbins, 0);
    for (const TraceRequest& r : trace.requests) {
      if (r.replay_only) continue;
      double at = (r.time_s - t0) / d.qps_bin_s;
      at = at >= 0 ? std::min(at, double(nbins - 1)) : 0.0;  // NaN-safe
      const size_t b = static_cast<size_t>(at);
      d.qps_over_time[b] += 1;
    }
    for (double& v : d.qps_over_time) {
      v /= d.qps_bin_s;
      d.qps_peak = std::max(d.qps_peak, v);
    }
  }
  d.conversations = per_conv.size();
  std::vector<int64_t> rpc;
  rpc.reserve(per_conv.size());
  for (auto& [c, n] : per_conv) rpc.push_back(static_cast<int64_t>(n));
  d.requests_per_conversation_hist = Log2Histogram(rpc);
  d.requests_per_conversation = ComputeQuantiles(rpc);
  FoldRareLabels(&d.models, kMaxReportedModels, "models");
  return d;
}

}  // namespace ltl
