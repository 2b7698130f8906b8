// The terminal summary (see terminal_summary.h): counts, distributions, the capacity table.
#include "report/terminal_summary.h"

#include <fmt/format.h>

#include "analyze/prefix_text.h"
#include "common/units.h"
#include "report/fleet_summary.h"
#include "report/gateway_findings_render.h"
#include "report/kv_cache_summary.h"

namespace ltl {
namespace {

std::string SplitText(const Profile& p, const HitTokens& h, int64_t measured) {
  if (!p.has_conversations || measured <= 0) return "";
  double m = static_cast<double>(measured);
  return fmt::format("   ({} across + {} same-conv)", Percent(h.across / m), Percent(h.same() / m));
}

std::string ModelsText(const Profile& p) {
  const auto& models = p.dist.models;
  if (models.empty() || (models.size() == 1 && models.begin()->first.empty())) return "unknown";
  // The most used model, and how many others.
  std::string best;
  uint64_t n = 0;
  for (const auto& [m, c] : models)
    if (c > n) n = c, best = m.empty() ? "unknown" : m;
  if (models.size() == 1) return best;
  return fmt::format("{} (+{} more models)", best, models.size() - 1);
}

// "session identifiers  12.5% of requests  (...)": whether session affinity could reach the reuse.
std::string SessionLine(const Profile& p) {
  const double share =
      p.requests > 0 ? static_cast<double>(p.dist.with_session_id) / static_cast<double>(p.requests)
                     : 0.0;
  const char* note = share == 0    ? "affinity routing cannot reach this reuse"
                     : share < 0.5 ? "affinity routing reaches only these requests"
                                   : "affinity routing can pin most conversations";
  return fmt::format("session identifiers  {} of requests  ({})\n", Percent(share), note);
}

// "top prefix by volume  2,400 tok x 30 reqs = 55.6% of reusable volume".
std::string PrefixLine(const char* label, const std::vector<PrefixRow>& rows) {
  if (rows.empty())
    return fmt::format("{:<20}  none (no prefix is shared by two requests)\n", label);
  const PrefixRow& r = rows.front();
  std::string line =
      fmt::format("{:<20}  {} tok x {} reqs = {} of reusable volume\n", label, WithCommas(r.tokens),
                  WithCommas(static_cast<int64_t>(r.requests)), Percent(r.share));
  // --show-prefix-text only: the prefix's first characters, control characters escaped.
  if (!r.text.empty()) line += fmt::format("{:<20}  \"{}\"\n", "", TerminalSafe(r.text));
  return line;
}

}  // namespace

std::string RenderTerminalSummary(const Profile& p) {
  std::string out;
  const Distributions& d = p.dist;
  out += fmt::format("{} requests · {}\n", WithCommas(static_cast<int64_t>(p.requests)),
                     ModelsText(p));
  double stream = d.stream_known ? static_cast<double>(d.stream_true) / d.stream_known : 0.0;
  out += fmt::format("input p50 {} tok · output p50 {} tok · stream {} · {:.1f} req/s\n",
                     WithCommas(d.input_tokens.p50), WithCommas(d.output_tokens.p50),
                     Percent(stream, 0), d.qps);
  if (p.skipped.total() > 0 || p.filtered_status > 0) {
    out += fmt::format("skipped {} rows", WithCommas(static_cast<int64_t>(p.skipped.total())));
    if (p.filtered_status > 0)
      out += fmt::format(" · {} non-2xx rows not replayed",
                         WithCommas(static_cast<int64_t>(p.filtered_status)));
    out += " (see report.json counts)\n";
  }
  out += "\n";
  if (p.warmup > 0)
    out += fmt::format("hit rate by cache size  (steady state: last {} of requests)\n",
                       Percent(1.0 - p.warmup, 0));
  else
    out += "hit rate by cache size  (cold start: all requests)\n";
  for (const CurveRow& r : p.curve) {
    if (r.policy != "lru") continue;
    std::string label = r.capacity_tokens > 0
                            ? fmt::format("{} tokens", TokenSize(r.capacity_tokens))
                            : fmt::format("{} blocks", WithCommas(r.capacity_blocks));
    out += fmt::format("{:>16}  {:>6}{}\n", label, Percent(p.Rate(r.hit, r.measured_tokens)),
                       SplitText(p, r.hit, r.measured_tokens));
  }
  out += fmt::format("{:>16}  {:>6}{}  <- ceiling\n", "unbounded",
                     Percent(p.Rate(p.ceiling, p.measured_tokens)),
                     SplitText(p, p.ceiling, p.measured_tokens));
  out += "\n";
  // Gateway logs name the session fields they saw; other inputs get the generic line.
  out += p.gateway.present ? GatewayFindingsLines(p.gateway) : SessionLine(p);
  out += PrefixLine("top prefix by volume", p.leaderboards.by_volume);
  out += PrefixLine("top prefix by count", p.leaderboards.by_count);
  if (p.gateway.present) {
    const std::vector<std::string> findings = GatewayFindingSentences(p.gateway);
    if (!findings.empty()) {
      out += "\nfindings\n";
      for (const auto& s : findings) out += "  - " + s + "\n";
    }
  }
  if (p.fleet) out += RenderFleetSummary(*p.fleet, p.block_size, p.warmup);
  out += RenderKvCacheSummary(p);
  if (p.cctrace.present) {
    const CctraceSummary& c = p.cctrace;
    out += fmt::format(
        "\ncache trace: {} conversations · {} sub-agents{}\n"
        "reference replay (unbounded, cold, a cache per conversation, fresh per sub-agent):\n"
        "  parent {}  ·  sub-agents {}\n",
        WithCommas(static_cast<int64_t>(c.files)), WithCommas(static_cast<int64_t>(c.subagents)),
        c.warm_prefix ? fmt::format(" · warm prefix {} blocks",
                                    WithCommas(static_cast<int64_t>(c.warm_blocks)))
                      : "",
        Percent(c.parent.hit_rate()), c.subagent.requests ? Percent(c.subagent.hit_rate()) : "-");
  }
  return out;
}

}  // namespace ltl
