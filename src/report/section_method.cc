// How the numbers were computed: the page's method list.
#include <fmt/format.h>

#include "analyze/kv_memory_view.h"
#include "common/units.h"
#include "models/kv_models.h"
#include "report/html_text.h"
#include "report/html_widgets.h"
#include "report/report_section.h"

namespace ltl {
namespace {

std::string MethodHtml(const Profile& p) {
  std::string o =
      "<section id=\"method\">\n<h2>How the numbers were computed</h2>\n<dl class=\"method\">\n";
  auto item = [&](const std::string& k, const std::string& v) {
    o += fmt::format("<dt>{}</dt><dd>{}</dd>\n", k, v);
  };
  item("input",
       fmt::format("<span class=\"file\">{}</span> · {} · {} · {} bytes", HtmlEscape(p.input_name),
                   HtmlEscape(p.format), HtmlEscape(p.encoding), Commas(p.input_bytes)));
  item("token counts", HtmlEscape(p.counting));
  item("block size", fmt::format("{} tokens; prefixes are compared block by block through "
                                 "chained block ids (a block matches only if everything before "
                                 "it matches too)",
                                 p.block_size));
  if (!p.template_layout.empty()) item("template layout", HtmlEscape(p.template_layout));
  item("warm-up",
       p.warmup > 0
           ? fmt::format("the first {} of requests ({}) fill the cache and are not measured; the "
                         "other {} are",
                         Percent(p.warmup, 0), Commas(p.requests - p.measured_requests),
                         Commas(p.measured_requests))
           : std::string("none: all requests are measured from a cold cache"));
  item("replay", fmt::format("requests in timestamp order (ties in file order); a request's hit is "
                             "its longest leading run of cached blocks, hit tokens = min(hit "
                             "blocks × block size, input tokens); then all its blocks are touched "
                             "{}",
                             p.order == EvictOrder::kTailFirst
                                 ? "tail first, as vLLM frees blocks (heads outlive tails)"
                                 : "head first"));
  if (p.lru == LruEngine::kSglang)
    item("LRU curve",
         "--eviction sglang: SGLang's radix-tree LRU (least recent unlocked leaf, the running "
         "request's path locked, head-first insertion), one replay per capacity: exact at each "
         "listed size, the chart on a 1/16-octave grid; fleets keep the flat LRU");
  else if (p.sampling.active)
    item("LRU curve",
         fmt::format("--eviction vllm: flat block LRU as vLLM's free-block queue, from one pass "
                     "(LRU stack distances) over a spatial sample of the blocks at rate {:.4g} "
                     "(SHARDS): capacities scaled by the rate, hit tokens scaled back, each "
                     "figure with its 95% error (see Sampling)",
                     p.sampling.rate));
  else
    item("LRU curve",
         "--eviction vllm: flat block LRU as vLLM's free-block queue, exact at every capacity "
         "from one pass (LRU stack distances), not sampled");
  item("hit rate", "hit tokens / input tokens of the measured requests (token-weighted)");
  item("measured", fmt::format("{} requests, {} input tokens", Commas(p.measured_requests),
                               WithCommas(p.measured_tokens)));
  item("blocks", fmt::format("{} distinct, {} accesses", Commas(p.distinct_blocks),
                             Commas(p.block_accesses)));
  item("cold ceiling", fmt::format("{} (unbounded cache, every request measured)",
                                   Percent(Ratio(p.cold_ceiling.hit, p.cold_measured_tokens))));
  if (p.sampling.active)
    item("AIPerf figure", "not computed under sampling (a per-request block ratio)");
  else
    item("AIPerf figure", fmt::format("cache_hit_rate {:.6f} (unweighted mean over requests of "
                                      "leading seen blocks / blocks, as aiperf analyze-trace)",
                                      p.aiperf_cache_hit_rate));
  if (p.has_conversations)
    item("across / same",
         "a hit block is <em>across</em> when another conversation had used it "
         "before this request, else <em>same-conversation</em>");
  if (p.gateway.present && p.gateway.provider_cache_requests > 0 &&
      p.gateway.provider_input_tokens > 0) {
    const GatewayFindings& g = p.gateway;
    item("provider cache",
         fmt::format("{} of input tokens observed cached by the provider vs {} predicted here, on "
                     "the {} requests whose usage reported cached tokens (predicted: unbounded "
                     "cache replayed from the first request)",
                     Percent(Ratio(g.provider_cached_tokens, g.provider_input_tokens)),
                     Percent(Ratio(g.predicted_hit_tokens, g.provider_input_tokens)),
                     Commas(g.provider_cache_requests)));
  }
  if (p.cctrace.present) {
    const CctraceSummary& c = p.cctrace;
    item("cache trace",
         fmt::format("{} conversation files, {} sub-agents{}; the format's reference replay "
                     "(unbounded, cold, a cache per conversation, a fresh one per sub-agent): "
                     "parent {}, sub-agents {}",
                     Commas(c.files), Commas(c.subagents),
                     c.warm_prefix ? fmt::format(", warm prefix {} blocks", Commas(c.warm_blocks))
                                   : std::string(),
                     Percent(c.parent.hit_rate()),
                     c.subagent.requests ? Percent(c.subagent.hit_rate()) : std::string("–")));
  }
  if (KvBytesPerToken(p) > 0)
    item("memory", fmt::format("{}: {} per token; GiB = tokens × bytes per token / 2<sup>30</sup>",
                               HtmlEscape(KvModel(p)), BinaryBytes(KvBytesPerToken(p))));
  item("knee", fmt::format("smallest size past which doubling the cache adds less than {:.0f} "
                           "point of hit rate (checked on a 1/16-octave grid)",
                           p.knee.min_gain * 100));
  o += "</dl>\n</section>\n";
  return o;
}

class MethodPart final : public ReportSection {
 public:
  std::string_view name() const override { return "method"; }
  std::string_view toc_title() const override { return "Method"; }
  std::string Html(const Profile& p) const override { return MethodHtml(p); }
};

}  // namespace

const ReportSection& MethodSection() {
  static const MethodPart section;
  return section;
}

}  // namespace ltl
