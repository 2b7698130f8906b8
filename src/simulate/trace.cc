// BuildTrace: stable time sort, dense id remap, parent links (see trace.h).
#include "simulate/trace.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

namespace ltl {

Trace BuildTrace(const std::vector<RequestRecord>& records) {
  Trace t;
  std::vector<uint32_t> order(records.size());
  std::iota(order.begin(), order.end(), 0u);
  // Records without a time sort as if they had the time of the previous timed record, which keeps
  // them in file position; a stable sort keeps ties in file order.
  std::vector<double> key(records.size());
  double last = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].has_time) last = records[i].time_s;
    key[i] = records[i].has_time ? records[i].time_s : last;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return key[a] < key[b]; });

  size_t total = 0;
  for (const auto& r : records) total += r.block_ids.size();
  t.blocks.reserve(total);
  t.requests.reserve(records.size());

  std::unordered_map<uint64_t, uint32_t> dense;
  dense.reserve(total / 2 + 16);
  std::unordered_map<std::string, int32_t> convs;
  std::map<uint32_t, size_t> block_size_votes;
  for (uint32_t idx : order) {
    const RequestRecord& rec = records[idx];
    TraceRequest tr;
    tr.first = t.blocks.size();
    tr.num_blocks = static_cast<uint32_t>(rec.block_ids.size());
    tr.block_size = rec.block_size;
    tr.input_tokens = rec.input_tokens;
    tr.output_tokens = rec.output_tokens;
    tr.time_s = key[idx];
    tr.record = idx;
    tr.replay_only = rec.replay_only;
    t.num_replay_only += rec.replay_only;
    if (!rec.conversation.empty()) {
      auto [it, inserted] = convs.emplace(rec.conversation, static_cast<int32_t>(convs.size()));
      tr.conversation = it->second;
    }
    uint32_t prev = kNoParent;
    for (uint64_t id : rec.block_ids) {
      auto [it, inserted] = dense.emplace(id, static_cast<uint32_t>(dense.size()));
      if (inserted) t.parent.push_back(prev);
      t.blocks.push_back(it->second);
      prev = it->second;
    }
    if (!rec.replay_only) ++block_size_votes[rec.block_size];
    t.requests.push_back(tr);
  }
  t.num_blocks = static_cast<uint32_t>(dense.size());
  t.num_conversations = static_cast<uint32_t>(convs.size());
  size_t best = 0;
  for (auto [bs, n] : block_size_votes)
    if (n > best) best = n, t.block_size = bs;
  return t;
}

size_t FirstMeasuredIndex(const Trace& t, double warmup) {
  const size_t skip = FirstMeasured(RealRequests(t), warmup);
  if (t.num_replay_only == 0) return skip;
  size_t seen = 0;
  for (size_t i = 0; i < t.requests.size(); ++i) {
    if (t.requests[i].replay_only) continue;
    if (seen++ == skip) return i;
  }
  return t.requests.size();
}

}  // namespace ltl
