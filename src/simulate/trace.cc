// BuildTrace: stable time sort, dense id remap, parent links (see trace.h).
#include "simulate/trace.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "common/huge_pages.h"
#include "common/replay_order.h"

namespace ltl {

Trace BuildTrace(const std::vector<RequestRecord>& records) {
  BlockInterner interned;
  for (const auto& r : records) interned.Add(r.block_ids);
  return BuildTrace(records, std::move(interned));
}

Trace BuildTrace(const std::vector<RequestRecord>& records, BlockInterner&& from) {
  Trace t;
  BlockInterner interned = std::move(from);  // freed on return
  // Sampled: the final keep marks (fixed-size sampling may have lowered the threshold after some
  // blocks were interned) and groups, read from the id table before it goes.
  const bool sampled = interned.sampling();
  std::vector<uint8_t> marks;
  if (sampled) {
    marks = interned.SampleMarks();
    t.sample_rate = interned.sample_rate();
  }
  t.all_accesses = interned.block_accesses();
  interned.ReleaseIdTable();
  const ReplayOrder replay = OrderForReplay(records);
  const std::vector<uint32_t>& order = replay.order;
  const std::vector<double>& key = replay.time_s;

  // The per-request and per-block arrays are reserved whole and advised for huge pages (they are
  // among the largest of the analysis: issue 30, page faults): `parent` grew by doubling, each
  // step a new array faulted in 4 KiB at a time and the old one copied into it.
  ReserveHuge(&t.requests, records.size());
  ReserveHuge(&t.blocks, interned.flat_accesses());
  ReserveHuge(&t.parent, interned.distinct_blocks());  // one entry per distinct block kept
  // Dense ids: provisional ids (first appearance in input order) renumbered by first appearance in
  // replay order, which is what every replay and the fleet routers see.
  std::vector<uint32_t> dense;
  ResizeHuge(&dense, interned.distinct_blocks(), kNoParent);
  std::unordered_map<std::string, int32_t> convs;
  std::map<uint32_t, size_t> block_size_votes;
  std::vector<uint32_t> prov;
  uint32_t next = 0;
  for (uint32_t idx : order) {
    const RequestRecord& rec = records[idx];
    TraceRequest tr;
    tr.first = t.num_accesses;
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
    interned.Materialize(idx, &prov);
    if (sampled)
      prov.erase(std::remove_if(prov.begin(), prov.end(),
                                [&](uint32_t p) { return marks[p] == BlockInterner::kDropped; }),
                 prov.end());
    tr.num_blocks = static_cast<uint32_t>(prov.size());
    uint32_t prev = kNoParent;
    for (uint32_t p : prov) {
      if (dense[p] == kNoParent) {
        dense[p] = next++;
        t.parent.push_back(prev);
        if (sampled) {
          t.depth.push_back(interned.depth(p));
          t.group.push_back(marks[p]);
        }
      }
      prev = dense[p];
    }
    if (interned.chained(idx)) {
      tr.last = prev;
    } else {
      tr.flat = t.blocks.size();
      for (uint32_t p : prov) t.blocks.push_back(dense[p]);
    }
    t.num_accesses += tr.num_blocks;
    if (!rec.replay_only) ++block_size_votes[rec.block_size];
    t.requests.push_back(tr);
    if (rec.replay_only) continue;
    t.bad_durations += rec.bad_duration;
    if (rec.duration_s >= 0) {
      t.duration_s.resize(t.requests.size(), -1.0F);
      t.duration_s.back() = static_cast<float>(rec.duration_s);
      ++t.logged_durations;
    }
  }
  if (!t.duration_s.empty()) t.duration_s.resize(t.requests.size(), -1.0F);
  t.num_blocks = next;
  // The chains in dense numbering. A block reached by a chain walk has its chain predecessor in
  // the same request, so it is numbered; blocks only in flat requests are never walked.
  // Sampled with dropped blocks: a block's chain predecessor is its nearest kept ancestor
  // (predecessors have smaller provisional ids, so one pass in id order finds it).
  t.chain_parent.clear();
  ResizeHuge(&t.chain_parent, t.num_blocks, kNoParent);
  std::vector<uint32_t> kept_parent;
  if (sampled) kept_parent.resize(interned.distinct_blocks(), BlockInterner::kNone);
  for (uint32_t p = 0; p < interned.distinct_blocks(); ++p) {
    uint32_t q = interned.parent(p);
    if (sampled) {
      if (q != BlockInterner::kNone && marks[q] == BlockInterner::kDropped) q = kept_parent[q];
      kept_parent[p] = q;
    }
    if (dense[p] == kNoParent) continue;
    if (q != BlockInterner::kNone && dense[q] != kNoParent) t.chain_parent[dense[p]] = dense[q];
  }
  ResizeHuge(&t.chain_run, t.num_blocks);
  for (uint32_t y = 0; y < t.num_blocks; ++y)
    t.chain_run[y] = y > 0 && t.chain_parent[y] == y - 1 ? t.chain_run[y - 1] : y;
  t.num_conversations = static_cast<uint32_t>(convs.size());
  size_t best = 0;
  for (auto [bs, n] : block_size_votes)
    if (n > best) best = n, t.block_size = bs;
  return t;
}

const uint32_t* Trace::begin(const TraceRequest& r) const {
  if (r.flat != kChained) return blocks.data() + r.flat;
  thread_local std::vector<uint32_t> scratch;
  if (scratch.size() < r.num_blocks) scratch.resize(r.num_blocks);
  if (r.num_blocks > 0)
    WalkChain(chain_parent.data(), chain_run.data(), r.last, r.num_blocks, scratch.data());
  return scratch.data();
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

uint64_t DistinctBlocksBefore(const Trace& t, size_t first) {
  uint64_t distinct = 0;
  BlockCursor cursor(t);
  for (size_t i = 0; i < first && i < t.requests.size(); ++i) {
    const TraceRequest& r = t.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    for (uint32_t j = 0; j < r.num_blocks; ++j)
      distinct = std::max<uint64_t>(distinct, ids[j] + 1ull);
  }
  return distinct;
}

size_t FirstMeasuredIndex(const Trace& t, const ReplayOptions& options) {
  if (options.measured_from != ReplayOptions::kByWarmup)
    return std::min(options.measured_from, t.requests.size());
  return FirstMeasuredIndex(t, options.warmup);
}

}  // namespace ltl
