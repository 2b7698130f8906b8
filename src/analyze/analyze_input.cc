// AnalyzeInput (see analyze_input.h).
#include "analyze/analyze_input.h"

#include <fmt/format.h>

#include <functional>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "analyze/below_block_sharing.h"
#include "analyze/cache_busters.h"
#include "analyze/cctrace_summary.h"
#include "analyze/gateway_findings.h"
#include "analyze/provider_cache_section.h"
#include "common/units.h"
#include "simulate/aiperf_rate.h"

namespace ltl {

namespace {

// Frees every record's segment facts and gives the freed pages back to the system: they were
// allocated on the read's worker threads, in heaps the analysis's large arrays (mmapped) do not
// reuse, so without the trim they stayed in the peak RSS (issue 30).
void ReleasePromptFacts(std::vector<RequestRecord>* records) {
  for (RequestRecord& r : *records) r.facts = PromptFacts();
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace

Profile AnalyzeInput(LoadedInput& in, const Trace& trace, const SkipCounter& skips,
                     const AnalyzeOptions& o) {
  Profile p;
  p.input_name = o.input_name;
  p.format = in.formats_differ ? "mixed" : FormatName(in.format);
  p.encoding = in.encoding;
  if (in.format == InputFormat::kJsonl && !in.formats_differ)
    p.framing = JsonFramingName(in.detection.framing);
  p.files = in.files;
  p.source = in.source;
  p.detection_reason = in.detection.reason;
  if (!in.source_reason.empty()) p.detection_reason += "; source: " + in.source_reason;
  p.input_bytes = in.bytes;
  p.rows_read = RealRequests(trace) + skips.total();
  p.skipped = skips;
  p.untimed = in.untimed;
  p.times = in.times;
  if (in.times.implausible > 0) p.findings.push_back(in.times.Message());
  if (in.gateway) {
    p.filtered_status = in.filtered_status;
    p.counting = in.counting;
    p.tokenizer = o.tokenizer;
    p.rows_read += in.filtered_status;
    for (const auto& [layout, n] : in.layouts)
      p.template_layout += fmt::format("{}{} ({} requests)", p.template_layout.empty() ? "" : ", ",
                                       layout, WithCommas(static_cast<int64_t>(n)));
  }
  // The gateway findings, the divergence points, the cache busters and the provider's cache read
  // the same immutable trace and records as BuildProfile's replays: they run on its threads
  // (side jobs from the start, the ones needing the curve's ceiling after it), into locals that
  // are moved into the profile below in the order they always were, so neither the figures nor
  // the order of the findings depends on the thread count.
  const bool sampled = trace.sampled();
  const bool cctrace = in.format == InputFormat::kCctrace;
  const bool busters = in.gateway && !sampled;
  // (A sampled gateway log stops at the busters; a sampled cache trace is replayed only by "none".)
  const bool provider = (in.gateway || cctrace) && !(in.gateway && sampled) &&
                        !(sampled && o.provider_cache.provider != "none");
  GatewayFindings gateway;
  CacheBusters cache_busters;
  ProviderCacheSection provider_cache;
  std::vector<std::function<void()>> lead_jobs, side_jobs, after_curves;
  if (in.gateway) side_jobs.push_back([&] { gateway = ComputeGatewayFindings(in.records, trace); });
  // The segment facts' only readers (divergences, busters, below-a-block sharing) run first, and
  // free the facts when done: at one thread before the curves, at two beside the steady curve.
  // The figures that need the curve's ceiling are set after it (SetCacheBusterCeiling). The other
  // jobs running meanwhile read other fields of the records, never the facts.
  if (in.gateway)
    lead_jobs.push_back([&] {
      if (busters) {
        const std::vector<Divergence> divergences = FindDivergences(trace, in.records);
        const size_t first_measured = FirstMeasuredIndex(trace, o.replay);
        cache_busters = AnalyzeCacheBusters(trace, in.records, divergences, first_measured, 0, 0);
        cache_busters.below_block =
            FindSharedBelowBlock(trace, in.records, divergences, first_measured);
      }
      ReleasePromptFacts(&in.records);
    });
  if (busters || provider)
    after_curves.push_back([&] {
      if (busters) SetCacheBusterCeiling(&cache_busters, p.ceiling.hit, p.measured_tokens);
      if (provider)
        provider_cache =
            AnalyzeProviderCache(trace, in.records, cache_busters, o.provider_cache, cctrace);
    });
  BuildProfile(in.records, trace, o.replay, o.capacities, &p, o.fleet ? &*o.fleet : nullptr,
               o.kv_cache.threads, o.exact_unbounded ? &o.exact_unbounded : nullptr, side_jobs,
               after_curves, lead_jobs);
  if (o.engine && !o.fleet) BuildEngineRows(trace, o.replay, *o.engine, &p);
  // Several files: AIPerf would read the time-merged trace (what `export FILE...` writes), whose
  // file order is the replay order, not the order the files were given in.
  if (in.files.size() > 1 && !sampled) p.aiperf_cache_hit_rate = AiperfCacheHitRate(trace, false);
  if (WantsKvCacheSection(o.kv_cache))
    BuildKvCacheSection(trace, o.replay, o.kv_cache, o.capacities, &p);
  BuildTiersSection(trace, o.replay, o.tiers, &p);
  if (cctrace && sampled) {
    p.counting = in.counting;
    p.sampling.omitted.push_back("cache_trace");
  } else if (cctrace) {
    p.counting = in.counting;
    p.cctrace = SummarizeCctrace(in.records, trace, in.cctrace, o.warm_prefix);
  }
  if (in.gateway) {
    p.gateway = std::move(gateway);
    p.gateway.layouts = in.layouts;
    p.gateway.per_request_session_fields = in.per_request_session_fields;
    p.gateway.filler_values_ignored = in.filler_values_ignored;
    p.gateway.ignored_records = in.ignored;
    p.gateway.ignored_reason = in.ignored_reason;
    for (std::string& s : GatewayFindingSentences(p.gateway)) p.findings.push_back(std::move(s));
    // Cache busters: divergence points, their causes and costs against the steady-state ceiling.
    // They compare whole prefixes block by block: not computed on a sampled trace.
    if (sampled) {
      p.sampling.omitted.push_back("cache_busters");
      return p;
    }
    p.busters = std::move(cache_busters);
    for (std::string& s : CacheBusterSentences(p.busters)) p.findings.push_back(std::move(s));
  }
  // The hosted provider's own cache, when the requests name one (or --provider-cache asks).
  // It replays whole prompts block by block: not computed on a sampled trace.
  if (sampled && (in.gateway || cctrace) && o.provider_cache.provider != "none") {
    p.sampling.omitted.push_back("provider_cache");
  } else if (provider) {
    p.provider_cache = std::move(provider_cache);
    for (ProviderBadObservation& b : p.provider_cache.bad_observations)
      if (b.first_file_index < in.files.size()) {
        const InputFileSummary& f = in.files[b.first_file_index];
        b.first_file = f.name;
        if (f.format == InputFormat::kCsv && b.first_row > 0) --b.first_row;  // data rows
      }
    for (const std::string& s : p.provider_cache.findings) p.findings.push_back(s);
  }
  return p;
}

}  // namespace ltl
