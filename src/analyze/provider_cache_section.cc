// AnalyzeProviderCache (see provider_cache_section.h).
#include "analyze/provider_cache_section.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "simulate/prefix_hits.h"
#include "simulate/provider_cache.h"
#include "simulate/provider_gap.h"

namespace ltl {
namespace {

bool Contains(const std::string& s, std::string_view part) {
  return s.find(part) != std::string::npos;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

const char* RuleLabel(std::string_view rule) {
  if (rule == "busters") return "cache busters (what breaks prefixes)";
  if (rule == "granularity") return "cached in whole content blocks";
  if (rule == "partition") return "cache keyed per model (and prompt_cache_key)";
  if (rule == "minimum") return "below the minimum cacheable length";
  if (rule == "breakpoints") return "no or misplaced cache_control breakpoints";
  if (rule == "cap") return "more than 4 breakpoints";
  if (rule == "lookback") return "look-back of 20 blocks exceeded";
  if (rule == "ttl") return "TTL expiry";
  if (rule == "increments") return "reported in 128-token increments";
  if (rule == "beyond_rules") return "observed vs predicted (beyond the documented rules)";
  return "other";
}

// What-if variants of the requests (the cost scenarios).
enum class Variant { kAsLogged, kHourTtl, kOneBreakpoint };

struct Priced {
  double dollars = 0;
};

double Bill(const ModelPrice& p, int64_t input, int64_t read, int64_t write_5m, int64_t write_1h,
            int64_t output) {
  const int64_t uncached = std::max<int64_t>(0, input - read - write_5m - write_1h);
  return (static_cast<double>(uncached) * p.input + static_cast<double>(read) * p.cached_read +
          static_cast<double>(write_5m) * p.cache_write_5m +
          static_cast<double>(write_1h) * p.cache_write_1h +
          static_cast<double>(std::max<int64_t>(output, 0)) * p.output) /
         1e6;
}

}  // namespace

std::string_view ProviderFamilyOfModel(std::string_view model) {
  const std::string m = Lower(model);
  if (Contains(m, "claude")) return "anthropic";
  if (Contains(m, "gemini")) return "gemini";
  if (Contains(m, "gpt-") || Contains(m, "gpt4") || Contains(m, "chatgpt") ||
      m.rfind("o1", 0) == 0 || m.rfind("o3", 0) == 0 || m.rfind("o4", 0) == 0 ||
      Contains(m, "openai/"))
    return "openai";
  return "";
}

ProviderCacheSection AnalyzeProviderCache(const Trace& trace,
                                          const std::vector<RequestRecord>& records,
                                          const CacheBusters& busters,
                                          const ProviderCacheOptions& options, bool is_cctrace) {
  ProviderCacheSection s;
  if (options.provider == "none" || trace.requests.empty()) return s;
  const size_t total = trace.requests.size();
  auto record_of = [&](size_t i) -> const RequestRecord& {
    return records[trace.requests[i].record];
  };

  // Which provider: asked, or the family most requests' model names belong to.
  std::string provider = options.provider;
  if (provider == "auto") {
    std::map<std::string, uint64_t> families;
    for (size_t i = 0; i < total; ++i) {
      if (trace.requests[i].replay_only) continue;
      const std::string_view f = ProviderFamilyOfModel(record_of(i).model);
      if (!f.empty()) ++families[std::string(f)];
    }
    if (families.empty()) return s;  // no hosted model named: nothing to model
    auto best = std::max_element(families.begin(), families.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    provider = best->first;
    s.chosen_by = fmt::format("auto: {} of the requests name {} models", best->second, provider);
  } else {
    s.chosen_by = "--provider-cache";
  }
  s.present = true;
  s.provider = provider;
  s.included.assign(total, 0);
  std::vector<size_t> idx;
  idx.reserve(total);
  for (size_t i = 0; i < total; ++i) {
    if (trace.requests[i].replay_only) continue;
    if (options.provider == "auto" && ProviderFamilyOfModel(record_of(i).model) != provider) {
      ++s.other_provider_requests;
      continue;
    }
    s.included[i] = 1;
    idx.push_back(i);
  }
  s.requests = idx.size();

  // Bad observations are counted over every replayed request (the rows stay in the replay).
  for (size_t i = 0; i < total; ++i) {
    const RequestRecord& rec = record_of(i);
    if (rec.provider.bad_observation == BadObservation::kNone) continue;
    ++s.bad_observation_rows;
    const std::string reason = BadObservationReason(rec.provider.bad_observation);
    auto it = std::find_if(s.bad_observations.begin(), s.bad_observations.end(),
                           [&](const ProviderBadObservation& b) { return b.reason == reason; });
    if (it == s.bad_observations.end()) {
      s.bad_observations.push_back({reason, 0, rec.file, "", rec.line});
      it = s.bad_observations.end() - 1;
    }
    ++it->rows;
  }

  const ProviderCacheModel* model = nullptr;
  if (auto found = FindProviderCacheModel(provider); found.ok()) model = *found;
  if (!model) {
    s.modelled = false;
    s.note =
        provider == "gemini"
            ? "Gemini's implicit caching is not modelled: its documentation (ai.google.dev/"
              "gemini-api/docs/caching, read 2026-12-05) states minimum lengths but neither a TTL "
              "nor how hits are counted, so a prediction would be a guess"
            : fmt::format("no provider cache model named '{}'", provider);
    return s;
  }
  s.summary = std::string(model->summary());
  s.source = std::string(model->source());

  // Ideal: one unbounded cache over the log, from empty (the provider replay starts empty too).
  const std::vector<uint32_t> cold = UnboundedColdHits(trace);
  s.per_request.assign(total, {});
  uint64_t scaled = 0, placed = 0;
  for (size_t i : idx) {
    const TraceRequest& tr = trace.requests[i];
    const int64_t ideal = std::min<int64_t>(
        static_cast<int64_t>(cold[i]) * static_cast<int64_t>(tr.block_size), tr.input_tokens);
    s.per_request[i].ideal = ideal;
    s.ideal_read_tokens += ideal;
    s.input_tokens += tr.input_tokens;
    const RequestRecord& rec = record_of(i);
    if (!rec.provider.blocks.empty()) {
      ++placed;
      scaled += rec.exact_counts;
    }
  }
  if (model->uses_boundaries())
    s.note = fmt::format(
        "content-block boundaries placed with the run's tokenizer and scaled to the logged prompt "
        "on {} of {} requests with breakpoints (Claude's tokenizer is not public)",
        scaled, placed);

  // The requests as the model sees them, under a what-if variant.
  const bool cctrace = is_cctrace;
  BlockCursor cursor(trace);
  std::vector<ProviderBoundary> bounds;
  Variant variant = Variant::kAsLogged;
  auto source = [&](size_t k) {
    const TraceRequest& tr = trace.requests[idx[k]];
    const RequestRecord& rec = records[tr.record];
    ProviderRequest r;
    r.time_s = tr.time_s;
    r.model = rec.model;
    r.cache_key = rec.provider.cache_key;
    r.retention_24h = rec.provider.retention_24h || variant == Variant::kHourTtl;
    r.prompt_tokens = tr.input_tokens;
    r.blocks = cursor.Blocks(tr);
    r.num_blocks = tr.num_blocks;
    r.block_size = tr.block_size;
    r.automatic = static_cast<Breakpoint>(rec.provider.automatic);
    bounds.clear();
    if (cctrace && rec.provider.blocks.empty()) {
      // A cache trace has no content blocks: its token blocks stand for them (the look-back
      // counts them), with Claude Code's breakpoints after tools + system and at the prompt's end;
      // a dense id names its whole prefix within its context (a sub-agent's ids are its own).
      const uint32_t bs = tr.block_size;
      const uint32_t shared = bs ? rec.provider.shared_prefix_tokens / bs : 0;
      for (uint32_t k = 0; k < tr.num_blocks; ++k) {
        const bool bp = k + 1 == tr.num_blocks || (shared > 0 && k + 1 == shared);
        Breakpoint b = bp ? Breakpoint::k5m : Breakpoint::kNone;
        if (variant == Variant::kHourTtl && bp) b = Breakpoint::k1h;
        if (variant == Variant::kOneBreakpoint)
          b = k + 1 == tr.num_blocks ? Breakpoint::k5m : Breakpoint::kNone;
        bounds.push_back({static_cast<uint64_t>(r.blocks[k]) + 1,
                          std::min<int64_t>(static_cast<int64_t>(k + 1) * bs, tr.input_tokens), b});
      }
    }
    for (const ProviderBlock& b : rec.provider.blocks) {
      Breakpoint bp = static_cast<Breakpoint>(b.breakpoint);
      if (variant == Variant::kHourTtl && bp != Breakpoint::kNone) bp = Breakpoint::k1h;
      if (variant == Variant::kOneBreakpoint) bp = Breakpoint::kNone;
      bounds.push_back({b.prefix, b.tokens, bp});
    }
    if (variant == Variant::kHourTtl && r.automatic != Breakpoint::kNone)
      r.automatic = Breakpoint::k1h;
    if (variant == Variant::kOneBreakpoint) r.automatic = Breakpoint::k5m;
    r.boundaries = bounds.data();
    r.num_boundaries = static_cast<uint32_t>(bounds.size());
    return r;
  };
  ProviderRules rules;
  rules.short_ttl_s = options.ttl_s;
  ProviderReplayResult replay = ReplayProviderCache(*model, rules, idx.size(), source, "ttl");
  s.rule_free_read_tokens = replay.rule_free_read;
  for (size_t k = 0; k < idx.size(); ++k) {
    const ProviderPrediction& p = replay.predictions[k];
    s.per_request[idx[k]].read = p.read;
    s.per_request[idx[k]].write = p.write();
    s.predicted_read_tokens += p.read;
    s.predicted_write_tokens += p.write();
    s.predicted_write_1h_tokens += p.write_1h;
  }

  // Agreement with the observations.
  uint64_t rw_compared = 0, rw_agree = 0;
  for (size_t k = 0; k < idx.size(); ++k) {
    const RequestRecord& rec = record_of(idx[k]);
    const int64_t obs = rec.provider_cached_tokens;
    if (obs < 0) continue;
    const ProviderPrediction& p = replay.predictions[k];
    ++s.observed_requests;
    s.observed_input_tokens += trace.requests[idx[k]].input_tokens;
    s.observed_read_tokens += obs;
    s.predicted_read_on_observed += p.read;
    const double tolerance = std::max(0.01 * static_cast<double>(obs), 16.0);
    if (std::fabs(static_cast<double>(p.read - obs)) <= tolerance) ++s.agreeing_requests;
    if (rec.provider.observed_write >= 0) {
      ++s.observed_write_requests;
      s.observed_write_tokens += rec.provider.observed_write;
      ++rw_compared;
      rw_agree += (p.read > 0) == (obs > 0) && (p.write() > 0) == (rec.provider.observed_write > 0);
    }
  }
  if (s.observed_requests > 0)
    s.agreement =
        static_cast<double>(s.agreeing_requests) / static_cast<double>(s.observed_requests);
  if (rw_compared > 0)
    s.read_write_agreement = static_cast<double>(rw_agree) / static_cast<double>(rw_compared);

  // The waterfall: busters above the ideal, the ideal down to the rule-free replay (block
  // granularity), each rule, and beyond the rules to the observed.
  const double denom = s.input_tokens > 0 ? static_cast<double>(s.input_tokens) : 1.0;
  auto step = [&](std::string cause, int64_t tokens, double base) {
    ProviderGapStep g;
    g.label = RuleLabel(cause);
    g.cause = std::move(cause);
    g.tokens = tokens;
    g.points = 100.0 * static_cast<double>(tokens) / base;
    s.gap.push_back(std::move(g));
  };
  // The busters are measured over the whole log: shown only when the model replays all of it.
  const bool whole_log = s.other_provider_requests == 0;
  if (whole_log && busters.present && busters.lost_tokens > 0)
    step("busters", busters.lost_tokens, denom);
  step("granularity", s.ideal_read_tokens - s.rule_free_read_tokens, denom);
  for (const ProviderGapCause& c : replay.gap) step(std::string(c.rule), c.tokens, denom);
  if (s.observed_requests > 0)
    step("beyond_rules", s.predicted_read_on_observed - s.observed_read_tokens,
         s.observed_input_tokens > 0 ? static_cast<double>(s.observed_input_tokens) : 1.0);

  // Idle gaps before the requests that lost reads to TTL expiry.
  {
    const double ttl = options.ttl_s > 0 ? options.ttl_s : kShortTtlSeconds;
    std::vector<double> last(trace.num_conversations, -1);
    uint64_t buckets[6] = {0, 0, 0, 0, 0, 0};
    for (size_t k = 0; k < idx.size(); ++k) {
      const TraceRequest& tr = trace.requests[idx[k]];
      const bool conv = tr.conversation >= 0 && static_cast<size_t>(tr.conversation) < last.size();
      const double prev = conv ? last[static_cast<size_t>(tr.conversation)] : -1;
      if (conv) last[static_cast<size_t>(tr.conversation)] = tr.time_s;
      if (replay.loss.empty() || replay.loss[k] <= 0) continue;
      if (prev < 0) {
        ++buckets[5];
        continue;
      }
      const double gap = tr.time_s - prev;
      buckets[gap < ttl ? 0 : gap < 900 ? 1 : gap < 3600 ? 2 : gap < 86400 ? 3 : 4]++;
    }
    const char* names[6] = {"below the TTL (entry not refreshed in between)",
                            "TTL to 15 min",
                            "15 min to 1 h",
                            "1 h to 24 h",
                            "24 h or more",
                            "no earlier request of its conversation"};
    for (int b = 0; b < 6; ++b)
      if (buckets[b] > 0) s.ttl_idle_gaps.emplace_back(names[b], buckets[b]);
  }

  // Money: each priced request under each scenario.
  std::vector<const ModelPrice*> price(idx.size(), nullptr);
  std::map<std::string, int> unpriced;
  std::map<std::string, uint64_t> dates;
  for (size_t k = 0; k < idx.size(); ++k) {
    const RequestRecord& rec = record_of(idx[k]);
    price[k] = options.prices.Find(rec.model);
    if (!price[k]) {
      if (unpriced.size() < 20) unpriced[rec.model.empty() ? "(no model)" : rec.model] = 1;
      continue;
    }
    ++s.priced_requests;
    ++dates[price[k]->date + "\t" + price[k]->source];
  }
  for (const auto& [m, one] : unpriced) s.unpriced_models.push_back(m);
  if (!dates.empty()) {
    auto d = std::max_element(dates.begin(), dates.end(),
                              [](const auto& a, const auto& b) { return a.second < b.second; });
    const size_t tab = d->first.find('\t');
    s.price_date = d->first.substr(0, tab);
    s.price_source = d->first.substr(tab + 1);
  }
  if (s.priced_requests > 0) {
    double first_t = 0, last_t = 0;
    bool any = false;
    double observed = 0, predicted = 0, none = 0, w_in = 0, w_cached = 0;
    for (size_t k = 0; k < idx.size(); ++k) {
      if (!price[k]) continue;
      const TraceRequest& tr = trace.requests[idx[k]];
      const RequestRecord& rec = record_of(idx[k]);
      const ModelPrice& p = *price[k];
      if (!any) first_t = tr.time_s;
      last_t = tr.time_s;
      any = true;
      const ProviderPrediction& pr = replay.predictions[k];
      const double pred =
          Bill(p, tr.input_tokens, pr.read, pr.write_5m, pr.write_1h, tr.output_tokens);
      predicted += pred;
      none += Bill(p, tr.input_tokens, 0, 0, 0, tr.output_tokens);
      if (rec.provider_cached_tokens >= 0) {
        const int64_t w = std::max<int64_t>(rec.provider.observed_write, 0);
        const int64_t w1 = std::clamp<int64_t>(rec.provider.observed_write_1h, 0, w);
        observed +=
            Bill(p, tr.input_tokens, rec.provider_cached_tokens, w - w1, w1, tr.output_tokens);
      } else {
        observed += pred;
      }
      w_in += p.input * static_cast<double>(tr.input_tokens);
      w_cached += p.cached_read * static_cast<double>(tr.input_tokens);
    }
    const double span_days = (last_t - first_t) / 86400.0;
    auto add = [&](std::string scenario, std::string label, double dollars, bool estimated) {
      ProviderCostScenario c;
      c.scenario = std::move(scenario);
      c.label = std::move(label);
      c.dollars = dollars;
      c.per_day = last_t - first_t >= 3600 ? dollars / span_days : 0;
      c.per_million_requests = dollars / static_cast<double>(s.priced_requests) * 1e6;
      c.estimated = estimated;
      s.cost.push_back(std::move(c));
    };
    add("observed",
        s.observed_requests > 0 ? "as the provider charged (observed usage; predicted where a row "
                                  "has none)"
                                : "as the provider charged (no row reports usage: predicted)",
        observed, false);
    add("predicted", "as the model predicts", predicted, false);
    add("no_cache", "without caching", none, false);
    auto what_if = [&](Variant v) {
      variant = v;
      ProviderReplayResult r = ReplayProviderCache(*model, rules, idx.size(), source);
      variant = Variant::kAsLogged;
      double dollars = 0;
      for (size_t k = 0; k < idx.size(); ++k) {
        if (!price[k]) continue;
        const TraceRequest& tr = trace.requests[idx[k]];
        const ProviderPrediction& pr = r.predictions[k];
        dollars +=
            Bill(*price[k], tr.input_tokens, pr.read, pr.write_5m, pr.write_1h, tr.output_tokens);
      }
      return dollars;
    };
    add("ttl_1h",
        provider == "openai" ? "every request with \"prompt_cache_retention\": \"24h\""
                             : "every breakpoint with \"ttl\": \"1h\"",
        what_if(Variant::kHourTtl), false);
    if (model->uses_boundaries())
      add("one_breakpoint",
          "one breakpoint, at the end of each prompt (automatic caching), none elsewhere",
          what_if(Variant::kOneBreakpoint), false);
    if (whole_log && busters.present) {
      int64_t tool_lost = 0;
      for (const CauseCost& c : busters.causes)
        if (c.cause == BusterCause::kToolsAdded || c.cause == BusterCause::kToolsRemoved ||
            c.cause == BusterCause::kToolsReordered || c.cause == BusterCause::kToolEdited)
          tool_lost += c.lost_tokens;
      if (tool_lost > 0 && w_in > 0) {
        const double per_token = (w_in - w_cached) / static_cast<double>(s.input_tokens) / 1e6;
        add("stable_tools",
            "stable tool arrays (estimated: the tool changes' lost tokens read at the cached "
            "price)",
            std::max(0.0, predicted - static_cast<double>(tool_lost) * per_token), true);
      }
    }
  }

  // Over time: 48 buckets across the log.
  if (!idx.empty()) {
    const double t0 = trace.requests[idx.front()].time_s;
    const double t1 = trace.requests[idx.back()].time_s;
    // A span that overflows a double (absurd timestamps) gets one bucket, not NaN widths.
    const size_t n = t1 > t0 && std::isfinite(t1 - t0) ? 48 : 1;
    const double width = n > 1 ? (t1 - t0) / static_cast<double>(n) : 1;
    s.over_time.resize(n);
    for (size_t b = 0; b < n; ++b) s.over_time[b].start_s = t0 + width * static_cast<double>(b);
    for (size_t k = 0; k < idx.size(); ++k) {
      const TraceRequest& tr = trace.requests[idx[k]];
      double at = (tr.time_s - t0) / width;
      at = at >= 0 ? std::min(at, static_cast<double>(n - 1)) : 0.0;  // NaN-safe
      const size_t b = static_cast<size_t>(at);
      ProviderTimeBucket& bucket = s.over_time[b];
      bucket.input_tokens += tr.input_tokens;
      bucket.predicted_read += replay.predictions[k].read;
      const int64_t obs = record_of(idx[k]).provider_cached_tokens;
      if (obs >= 0) {
        bucket.observed_input_tokens += tr.input_tokens;
        bucket.observed_read += obs;
        bucket.predicted_read_on_observed += replay.predictions[k].read;
      }
    }
  }

  // Findings.
  auto pct = [&](int64_t t, double base) { return 100.0 * static_cast<double>(t) / base; };
  const ProviderGapStep* top = nullptr;
  for (const ProviderGapStep& g : s.gap)
    if (g.cause != "beyond_rules" && g.cause != "busters" && (!top || g.tokens > top->tokens))
      top = &g;
  s.findings.push_back(fmt::format(
      "{} prompt cache: the ideal cache reads {:.1f}% of input tokens, the documented rules leave "
      "{:.1f}%{}",
      provider, pct(s.ideal_read_tokens, denom), pct(s.predicted_read_tokens, denom),
      top && top->tokens > 0
          ? fmt::format("; the largest cause: {} ({:.1f} points)", top->label, top->points)
          : ""));
  if (s.observed_requests > 0) {
    const double obs_rate = pct(s.observed_read_tokens,
                                static_cast<double>(std::max<int64_t>(1, s.observed_input_tokens)));
    const double pred_rate =
        pct(s.predicted_read_on_observed,
            static_cast<double>(std::max<int64_t>(1, s.observed_input_tokens)));
    std::string why;
    if (s.agreement < 0.9 && obs_rate + 1 < pred_rate)
      why =
          ": the provider reported fewer cached tokens than its documented rules give — "
          "consistent with requests spread across machines that do not share a cache, or "
          "entries evicted before their TTL";
    else if (s.agreement < 0.9 && obs_rate > pred_rate + 1)
      why =
          ": the provider reported more cached tokens than the rules give on this log alone — "
          "entries written by traffic outside this log (another key, gateway or member of the "
          "organisation) or requests missing from the log";
    s.findings.push_back(fmt::format(
        "observed {:.1f}% vs predicted {:.1f}% cached on the {} requests reporting usage; "
        "{:.0f}% agree within max(1%, 16 tokens){}",
        obs_rate, pred_rate, s.observed_requests, 100.0 * s.agreement, why));
  }
  return s;
}

}  // namespace ltl
