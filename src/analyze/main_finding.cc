// MainFinding (see main_finding.h).
#include "analyze/main_finding.h"

#include <fmt/format.h>

#include "analyze/kv_memory_view.h"
#include "common/units.h"
#include "models/kv_models.h"

namespace ltl {

std::string MainFinding(const Profile& p) {
  if (p.requests == 0 || p.measured_tokens <= 0) return "The input held no requests to replay.";
  const double ceiling = p.Rate(p.ceiling, p.measured_tokens);
  if (ceiling < 0.05)
    return fmt::format(
        "Little to gain: even an unlimited prefix cache would serve only {} of input tokens on "
        "this traffic.",
        Percent(ceiling));
  std::string s =
      fmt::format("An unlimited prefix cache would serve {} of input tokens", Percent(ceiling));
  if (p.knee.found) {
    const double tokens = static_cast<double>(p.knee.capacity_blocks) * p.block_size;
    std::string size = CompactBinary(tokens) + " tokens";
    if (KvBytesPerToken(p) > 0) size += " (" + BinaryBytes(tokens * KvBytesPerToken(p)) + ")";
    s += fmt::format(
        "; {} of cache reaches {}, and past that each doubling adds less than one point", size,
        Percent(p.knee.hit_rate));
  }
  if (p.has_conversations && p.ceiling.hit > 0) {
    const double across =
        static_cast<double>(p.ceiling.across) / static_cast<double>(p.ceiling.hit);
    s += fmt::format("; {} of the reuse is text shared across conversations", Percent(across, 0));
  }
  const bool gateway_log = p.format == "csv" || p.format == "jsonl";
  if (gateway_log && p.dist.with_session_id == 0)
    s += "; no request carried a session identifier, so only prefix-aware routing reaches it";
  return s + ".";
}

void AppendDerivedFindings(Profile* p) {
  const Leaderboards& lb = p->leaderboards;
  if (!lb.by_count.empty() && !lb.by_volume.empty() &&
      lb.by_count.front().node != lb.by_volume.front().node) {
    const PrefixRow& c = lb.by_count.front();
    const PrefixRow& v = lb.by_volume.front();
    p->findings.push_back(fmt::format(
        "The two leaderboards disagree: the most shared prefix ({} tokens in {} requests) is {} of "
        "the reusable volume, while the largest ({} tokens in {} requests) is {}; keep the latter "
        "resident first.",
        WithCommas(c.tokens), WithCommas(static_cast<int64_t>(c.requests)), Percent(c.share),
        WithCommas(v.tokens), WithCommas(static_cast<int64_t>(v.requests)), Percent(v.share)));
  }
  if (!p->has_conversations && p->requests > 0)
    p->findings.push_back(
        "The input does not say which conversation a request belongs to, so hits are not split "
        "into across-conversation and same-conversation reuse.");
}

}  // namespace ltl
