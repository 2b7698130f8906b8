// ProfileRun (see profile_run.h).
#include "pipeline/profile_run.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include "analyze/analyze_input.h"
#include "common/output_path.h"
#include "pipeline/prefix_text_pass.h"
#include "pipeline/provider_settings.h"
#include "pipeline/run_inputs.h"
#include "report/report_html.h"
#include "report/report_json.h"
#include "report/requests_jsonl.h"
#include "report/routes_jsonl.h"
#include "simulate/engine_pool.h"
#include "simulate/eviction_policy.h"
#include "simulate/router_views.h"
#include "simulate/trace.h"

namespace ltl {

std::string SamplingRefusal(const ProfileSpec& spec) {
  if (spec.sample_rate >= 1 && spec.sample_max_blocks == 0) return "";
  const char* const tail =
      ": its figures need every block of each request (docs/SEMANTICS.md \"Sampled curves\"); "
      "run it without --sample-rate/--sample-max-blocks";
  auto refuse = [&](std::string_view what) { return fmt::format("sampling: {}{}", what, tail); };
  if (spec.evict_order == EvictOrder::kHeadFirst)
    return refuse(
        "--evict-order head-first is not supported (only tail-first touches make each "
        "block hit by its own stack distance)");
  if (spec.lru == LruEngine::kSglang) return refuse("--eviction sglang is not supported");
  if (spec.fleet.workers > 0) return refuse("--workers (fleets) is not supported");
  if (!spec.engine.ideal()) return refuse("--engine other than ideal is not supported");
  if (spec.show_prefix_text > 0) return refuse("--show-prefix-text is not supported");
  if (spec.warm_prefix) return refuse("--warm-prefix is not supported");
  if (spec.requests_out) return refuse("--requests-out is not supported");
  return "";
}

Result<ProfileResult> ProfileRun(ProfileSpec spec, const RunHooks& hooks) {
  if (!(spec.warmup >= 0 && spec.warmup < 1))
    return Status::InvalidArgument("--warmup must be in [0, 1)");
  if (!(spec.sample_rate > 0 && spec.sample_rate <= 1))
    return Status::InvalidArgument("--sample-rate must be in (0, 1]");
  if (std::string refused = SamplingRefusal(spec); !refused.empty())
    return Status::InvalidArgument(refused);
  CapacitySpec caps = spec.capacities;
  if (caps.tokens.empty() && caps.blocks.empty()) caps.tokens = DefaultCapacityTokens();
  RunSetup run;
  if (Status st = run.LoadModels(spec.read); !st.ok()) return st;
  // --model-dir DIR's config.json gives the KV bytes per token unless the user said otherwise.
  KvCacheSettings kv_args = spec.kv;
  if (!run.models.kv_config.empty() && kv_args.model.empty() && kv_args.model_config.empty() &&
      kv_args.kv_bytes_per_token == 0)
    kv_args.model_config = run.models.kv_config;
  auto kv_request = ResolveKvCacheArgs(kv_args);
  if (!kv_request.ok()) return kv_request.status();
  KvCacheSettings tier_args = spec.kv;
  tier_args.decode_rate = spec.fleet.decode_rate;  // one --decode-rate for the load and time models
  auto tiers_request = ResolveTiersArgs(tier_args, *kv_request);
  if (!tiers_request.ok()) return tiers_request.status();
  if (Status fst = CheckFleetArgs(spec.fleet, kv_request->memory); !fst.ok()) return fst;
  const KvEngine* engine = spec.engine.ideal() ? nullptr : FindEngine(spec.engine.engine);
  if (!spec.engine.ideal() && !engine)
    return Status::InvalidArgument(
        fmt::format("unknown --engine '{}'; valid: ideal, {}", spec.engine.engine, EngineNames()));
  if (spec.engine.max_num_seqs < 1) return Status::InvalidArgument("--max-num-seqs must be >= 1");
  // Each worker's pool evicts as its engine does: a worker eviction policy would be ignored.
  if (engine && spec.fleet.workers > 0 && spec.fleet.worker_policy != "lru")
    return Status::InvalidArgument(fmt::format(
        "--worker-policy {} with --engine {}: each worker is the engine's pool, which evicts as "
        "the engine does; drop --worker-policy, or use --engine ideal",
        spec.fleet.worker_policy, spec.engine.engine));
  const bool sampling = spec.sample_rate < 1 || spec.sample_max_blocks > 0;
  if (sampling && kv_request->policies != std::vector<const EvictionPolicy*>{&LruEviction()})
    return Status::InvalidArgument(
        "sampling: --policies and --kvcache-sim other than lru are not supported: FIFO, SIEVE and "
        "optimal are not stack algorithms, and their replays need every block "
        "(docs/SEMANTICS.md \"Sampled curves\"); run them without "
        "--sample-rate/--sample-max-blocks");
  if (sampling && !tiers_request->tiers.empty())
    return Status::InvalidArgument(
        "sampling: --tiers is not supported yet (docs/SEMANTICS.md \"Sampled curves\"); run it "
        "without --sample-rate/--sample-max-blocks");
  // The outputs are checked before any work: a run never ends by refusing its -o.
  ProfileResult result;
  Result<OutputPath> json_out = OutputPath{}, html_out = OutputPath{};
  if (spec.output_prefix) {
    if (*spec.output_prefix == "-") return ResolveOutputPath("-", /*allow_stream=*/false).status();
    const std::string prefix = ReportPrefix(*spec.output_prefix);
    result.json_path = prefix + ".json";
    result.html_path = prefix + ".html";
    json_out = ResolveOutputPath(result.json_path, /*allow_stream=*/false);
    html_out = ResolveOutputPath(result.html_path, /*allow_stream=*/false);
    for (const auto* out : {&json_out, &html_out})
      if (!out->ok()) return out->status();
  }

  Result<OutputPath> requests_out = OutputPath{};
  if (spec.requests_out) {
    requests_out = ResolveOutputPath(*spec.requests_out, /*allow_stream=*/false);
    if (!requests_out.ok()) return requests_out.status();
    result.requests_path = requests_out->path;
  }
  Result<OutputPath> routes_out = OutputPath{};
  if (!spec.fleet.routes_out.empty()) {
    routes_out = ResolveOutputPath(spec.fleet.routes_out, /*allow_stream=*/false);
    if (!routes_out.ok()) return routes_out.status();
    result.routes_path = routes_out->path;
  }
  auto provider =
      ResolveProviderCacheOptions(spec.provider_cache, spec.provider_ttl_s, spec.prices_file);
  if (!provider.ok()) return provider.status();

  auto inputs = ExpandInputs(spec.read.inputs);
  if (!inputs.ok()) return inputs.status();
  const size_t streamed = spec.read.stream.pull ? spec.read.stream.names.size() : 0;
  if (spec.show_prefix_text > 0 && inputs->size() + spec.read.shards.size() + streamed > 1)
    return Status::InvalidArgument(
        "--show-prefix-text reads one file: give one input (or profile each file)");
  if (inputs->empty() && spec.read.shards.empty() && !spec.read.stream.pull)
    return Status::InvalidArgument("no input");
  // The prompt text is read in a second pass over the file: a FIFO would hang on it, process
  // substitution would give nothing (issue 35, item 15). Refused before the first read.
  if (spec.show_prefix_text > 0 && !inputs->empty() && inputs->front().path != "-") {
    struct stat st {};
    if (::stat(inputs->front().path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
      return Status::InvalidArgument(fmt::format(
          "--show-prefix-text needs a re-readable file: {} is not a regular file (a pipe or "
          "device can be read only once); copy it to a file first",
          inputs->front().name));
  }
  std::vector<InputName> named = *inputs;  // a shard in memory is named by its file
  for (const Shard& s : spec.read.shards)
    named.push_back({"", s.input.files.empty() ? "shard" : s.input.files.front().name});
  for (size_t i = 0; i < streamed; ++i) named.push_back({"", spec.read.stream.names[i]});
  const std::string name = RunInputName(named);
  run.MakeContext(name, spec.read, hooks);
  run.ctx.cctrace_warm_prefix = spec.warm_prefix;
  // Durations are read only for the analyses that put requests in flight in time.
  run.ctx.durations = spec.fleet.workers > 0 || !spec.engine.ideal();
  // The named routers' views of each request, only when --routing names a router that has one.
  run.ctx.gateway.router_views = FleetNeedsRouterViews(spec.fleet);
  run.ctx.gateway.aibrix_block_bytes = FleetAibrixBlockBytes(spec.fleet);
  if (Status st = run.LoadTokenizer(spec.read); !st.ok()) return st;
  run.ctx.gateway.tokenizer = run.tokenizer.get();
  run.ctx.threads = spec.kv.threads;  // 0 = all cores
  run.ctx.interner = &run.interner;   // block ids leave the records as they are read
  if (sampling) run.interner.SetSampling(spec.sample_rate, spec.sample_max_blocks);
  if (hooks.read_start) hooks.read_start(name);
  auto loaded = LoadRunInputs(*inputs, std::move(spec.read.shards), spec.read.format, &run.ctx,
                              &spec.read.stream);
  if (hooks.read_done) hooks.read_done();
  if (!loaded.ok()) return loaded.status();
  LoadedInput& in = loaded->input;
  const SkipCounter& skips = run.skips;
  if (RealRecordCount(in) == 0)  // nothing to measure: say why, write nothing
    return Status::InvalidArgument(NoRequestsMessage(name, in, skips));
  run.WarnTextOptionsUnused(in, in.gateway, hooks);

  AnalyzeOptions analyze;
  analyze.input_name = name;
  analyze.replay.warmup = spec.warmup;
  analyze.replay.order = spec.evict_order;
  analyze.replay.lru = spec.lru;
  analyze.capacities = caps;
  analyze.kv_cache = *kv_request;
  analyze.tiers = *tiers_request;
  analyze.warm_prefix = spec.warm_prefix;
  analyze.tokenizer = loaded->tokenizer;  // --tokenizer, or the one the shards were cut with
  analyze.provider_cache = std::move(provider).value();
  Trace trace = BuildTrace(in.records, std::move(run.interner));
  if (run.ctx.gateway.router_views) AttachRouterViews(&in.records, &trace);
  analyze.fleet = ResolveFleetOptions(spec.fleet, trace.block_size, caps, kv_request->memory);
  if (engine) {
    EngineRun er;
    er.engine = engine;
    er.options.max_num_seqs = spec.engine.max_num_seqs;
    er.options.load = {spec.fleet.prefill_rate, spec.fleet.decode_rate,
                       !spec.fleet.no_prefill_queue};
    er.threads = spec.kv.threads;
    analyze.engine = er;
    if (analyze.fleet) {  // each worker is a pool of the same engine
      analyze.fleet->engine = engine;
      analyze.fleet->max_num_seqs = er.options.max_num_seqs;
    }
  }
  Status exact_status;
  if (spec.exact_unbounded) {
    if (spec.lru != LruEngine::kVllm)
      return Status::InvalidArgument(
          "the exact ceiling on a cluster follows the flat LRU (--eviction vllm) only");
    analyze.exact_unbounded = [&](const std::string& keys) {
      Result<FirstUseFigures> f = spec.exact_unbounded(keys);
      if (!f.ok()) exact_status = f.status();
      return f;
    };
  }
  result.profile = AnalyzeInput(in, trace, skips, analyze);
  if (!exact_status.ok()) return exact_status;
  Profile& p = result.profile;
  if (run.ctx.durations) {
    p.load_timing.asked = true;
    p.load_timing.logged = trace.logged_durations;
    p.load_timing.bad = trace.bad_durations;
    p.load_timing.modelled = RealRequests(trace) - trace.logged_durations;
  }
  p.sampling.requested_rate = spec.sample_rate;
  p.sampling.max_blocks = spec.sample_max_blocks;
  if (spec.show_prefix_text > 0) {
    if (!in.gateway) {
      hooks.Warn(
          fmt::format("--show-prefix-text: {} is a hashed trace and holds no prompt text", name));
    } else if (loaded->shards > 0) {
      hooks.Warn("--show-prefix-text: a hashed shard holds no prompt text");
    } else if (inputs->front().path == "-") {
      hooks.Warn("--show-prefix-text needs a file: standard input cannot be read a second time");
    } else {
      Status text_st = FillPrefixText(inputs->front().path, in.format, run.ctx, p.block_size,
                                      spec.show_prefix_text, &p.leaderboards);
      if (!text_st.ok()) return text_st;
    }
  }
  if (Status enc = run.EncodeStatus(); !enc.ok()) return enc;

  if (spec.output_prefix) {
    // Both are renamed only when both are complete, report.json last (common/output_path.h).
    Status st = WriteFilesTogether(
        {{html_out->path, RenderReportHtml(p)}, {json_out->path, RenderReportJson(p)}});
    if (!st.ok()) return st;
  }
  if (!spec.fleet.routes_out.empty() && p.fleet) {
    Status st = WriteRoutesJsonl(routes_out->path, trace, *p.fleet);
    if (!st.ok()) return st;
    for (FleetPolicyResult& pr : p.fleet->policies)
      for (FleetPoint& pt : pr.points) pt.routes = {};  // written: not kept in the profile
  }
  if (spec.requests_out) {
    Status st =
        WriteRequestsJsonl(requests_out->path, trace, in.records, in.files, p.provider_cache);
    if (!st.ok()) return st;
  }
  result.too_many_skipped =
      SkipShareMessage(name, skips.total(), p.rows_read, spec.read.io.max_skip_share, true);
  return result;
}

}  // namespace ltl
