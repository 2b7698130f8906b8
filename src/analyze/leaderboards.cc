// BuildLeaderboards (see leaderboards.h): rank the listed nodes of the prefix tree, then one more
// pass over the trace collects models and session-id counts for the few rows that are shown.
#include "analyze/leaderboards.h"

#include <algorithm>
#include <unordered_map>

#include "analyze/label_counts.h"
#include "simulate/prefix_tree.h"

namespace ltl {
namespace {

// The top_n listed nodes under `better` (a strict weak order), best first.
template <typename Better>
std::vector<uint32_t> TopNodes(const std::vector<uint32_t>& listed, size_t top_n, Better better) {
  std::vector<uint32_t> v = listed;
  const size_t k = std::min(top_n, v.size());
  std::partial_sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end(), better);
  v.resize(k);
  return v;
}

}  // namespace

Leaderboards BuildLeaderboards(const std::vector<RequestRecord>& records, const Trace& trace,
                               int64_t reusable_tokens, size_t top_n) {
  Leaderboards lb;
  lb.reusable_tokens = reusable_tokens;
  const PrefixTree tree = PrefixTree::Build(trace);
  std::vector<uint32_t> listed;
  for (uint32_t b = 0; b < tree.num_nodes(); ++b)
    if (tree.IsListed(b)) listed.push_back(b);
  lb.listed_prefixes = listed.size();

  // Ties are broken by the other measure, then by first appearance, so rankings are deterministic.
  auto by_count = [&](uint32_t a, uint32_t b) {
    if (tree.requests(a) != tree.requests(b)) return tree.requests(a) > tree.requests(b);
    if (tree.tokens(a) != tree.tokens(b)) return tree.tokens(a) > tree.tokens(b);
    return a < b;
  };
  auto by_volume = [&](uint32_t a, uint32_t b) {
    if (tree.ReusableTokens(a) != tree.ReusableTokens(b))
      return tree.ReusableTokens(a) > tree.ReusableTokens(b);
    if (tree.requests(a) != tree.requests(b)) return tree.requests(a) > tree.requests(b);
    return a < b;
  };
  const std::vector<uint32_t> top_count = TopNodes(listed, top_n, by_count);
  const std::vector<uint32_t> top_volume = TopNodes(listed, top_n, by_volume);

  // Rows for the union of both lists, filled in one more pass over the trace.
  std::unordered_map<uint32_t, PrefixRow> rows;
  const double denom = reusable_tokens > 0 ? static_cast<double>(reusable_tokens) : 0.0;
  auto add_row = [&](uint32_t b) {
    if (rows.count(b)) return;
    PrefixRow r;
    r.node = b;
    r.tokens = tree.tokens(b);
    r.blocks = tree.depth(b);
    r.requests = tree.requests(b);
    r.reusable_tokens = tree.ReusableTokens(b);
    const uint32_t a = tree.ListedAncestor(b);
    r.own_tokens = r.tokens - (a == kNoParent ? 0 : tree.tokens(a));
    if (denom > 0) {
      r.share = static_cast<double>(r.reusable_tokens) / denom;
      r.own_share = static_cast<double>(tree.OwnReusableTokens(b)) / denom;
    }
    r.first_seen_s = trace.requests[tree.first_request(b)].time_s;
    r.last_seen_s = trace.requests[tree.last_request(b)].time_s;
    r.first_line = records[trace.requests[tree.first_request(b)].record].line;
    rows.emplace(b, std::move(r));
  };
  for (uint32_t b : top_count) add_row(b);
  for (uint32_t b : top_volume) add_row(b);

  if (!rows.empty()) {
    // Per shown node: 1 + the last request index counted (0 = not shown), so a request containing
    // a block twice still counts once.
    constexpr uint32_t kNotShown = 0;
    constexpr uint32_t kShownUncounted = 1;
    std::vector<uint32_t> mark(tree.num_nodes(), kNotShown);
    for (const auto& [b, r] : rows) mark[b] = kShownUncounted;
    for (uint32_t i = 0; i < trace.requests.size(); ++i) {
      const TraceRequest& req = trace.requests[i];
      const RequestRecord& rec = records[req.record];
      const uint32_t* ids = trace.begin(req);
      for (uint32_t j = 0; j < req.num_blocks; ++j) {
        uint32_t& m = mark[ids[j]];
        if (m == kNotShown || m == i + 2) continue;
        m = i + 2;
        PrefixRow& r = rows.at(ids[j]);
        ++r.models[rec.model];
        if (!rec.session_field.empty()) ++r.with_session_id;
      }
    }
  }
  for (uint32_t b : top_count) lb.by_count.push_back(rows.at(b));
  for (uint32_t b : top_volume) lb.by_volume.push_back(rows.at(b));
  for (auto* board : {&lb.by_count, &lb.by_volume})
    for (PrefixRow& r : *board) FoldRareLabels(&r.models, kMaxReportedModels, "models");
  return lb;
}

}  // namespace ltl
