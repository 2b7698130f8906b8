// SummarizeCctrace (see cctrace_summary.h). Contexts never share ids (the reader namespaces them),
// so one unbounded cold replay of the whole trace gives every conversation's reference figures.
#include "analyze/cctrace_summary.h"

#include <unordered_map>

#include "simulate/prefix_hits.h"

namespace ltl {

CctraceSummary SummarizeCctrace(const std::vector<RequestRecord>& records, const Trace& trace,
                                const CctraceReadStats& stats, bool warm_prefix) {
  CctraceSummary s;
  s.present = true;
  s.warm_prefix = warm_prefix;
  s.files = stats.files;
  s.ignored_files = stats.ignored_files;
  s.subagents = stats.subagents;
  s.warm_blocks = stats.warm_blocks;
  s.parent_in = stats.parent_in;
  s.parent_out = stats.parent_out;
  s.subagent_in = stats.subagent_in;
  s.subagent_out = stats.subagent_out;
  std::unordered_map<std::string, size_t> by_key;
  for (const auto& c : stats.conversations) {
    by_key.emplace(c.key, s.conversations.size());
    CctraceConversationSummary cs;
    cs.id = c.id;
    cs.segment = c.segment;
    cs.subagents = c.subagents;
    s.conversations.push_back(std::move(cs));
  }
  const std::vector<uint32_t> hits = UnboundedColdHits(trace);
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& r = trace.requests[i];
    if (r.replay_only) continue;
    const RequestRecord& rec = records[r.record];
    auto add = [&](CctraceRates* x) {
      ++x->requests;
      x->blocks += r.num_blocks;
      x->hit_blocks += hits[i];
      x->tokens += r.input_tokens;
      x->hit_tokens += HitTokenCount(r, hits[i]);
    };
    add(rec.subagent ? &s.subagent : &s.parent);
    auto it = by_key.find(rec.conversation);
    if (it != by_key.end())
      add(rec.subagent ? &s.conversations[it->second].subagent
                       : &s.conversations[it->second].parent);
  }
  return s;
}

}  // namespace ltl
