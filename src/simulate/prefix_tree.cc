// PrefixTree::Build: one pass over the trace counting requests per block (see prefix_tree.h).
#include "simulate/prefix_tree.h"

#include <algorithm>
#include <limits>

#include "common/huge_pages.h"

namespace ltl {

PrefixTree PrefixTree::Build(const Trace& trace) {
  PrefixTree t;
  const uint32_t n = trace.num_blocks;
  constexpr uint32_t kUnseen = std::numeric_limits<uint32_t>::max();
  // Arrays per block, written from start to end: huge pages fault them in 2 MiB at a time
  // (common/huge_pages.h, issue 30).
  ResizeHuge(&t.requests_, n, 0u);
  ResizeHuge(&t.depth_, n, 0u);
  ResizeHuge(&t.first_, n, kUnseen);
  ResizeHuge(&t.last_, n, kUnseen);
  ResizeHuge(&t.max_child_, n, 0u);
  ResizeHuge(&t.tokens_, n, std::numeric_limits<int64_t>::max());
  t.parent_ = trace.parent;
  t.parent_.resize(n, kNoParent);
  for (uint32_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& r = trace.requests[i];
    const uint32_t* ids = trace.begin(r);
    for (uint32_t j = 0; j < r.num_blocks; ++j) {
      const uint32_t b = ids[j];
      if (t.last_[b] == i) continue;  // a block repeated within one request counts once
      if (t.first_[b] == kUnseen) {
        t.first_[b] = i;
        t.depth_[b] = j + 1;
      }
      t.last_[b] = i;
      ++t.requests_[b];
      t.tokens_[b] = std::min(t.tokens_[b], HitTokenCount(r, j + 1));
    }
  }
  for (uint32_t b = 0; b < n; ++b) {
    if (t.tokens_[b] == std::numeric_limits<int64_t>::max()) t.tokens_[b] = 0;
    const uint32_t p = t.parent_[b];
    if (p != kNoParent && p < n) t.max_child_[p] = std::max(t.max_child_[p], t.requests_[b]);
  }
  return t;
}

uint32_t PrefixTree::ListedAncestor(uint32_t b) const {
  // Bounded by the depth so a malformed (cyclic) parent chain cannot loop forever.
  uint32_t p = parent_[b];
  for (uint32_t steps = 0; p != kNoParent && steps < depth_[b]; ++steps) {
    if (IsListed(p)) return p;
    p = parent_[p];
  }
  return kNoParent;
}

int64_t PrefixTree::OwnReusableTokens(uint32_t b) const {
  const uint32_t a = ListedAncestor(b);
  const int64_t base = a == kNoParent ? 0 : tokens_[a];
  return std::max<int64_t>(0, tokens_[b] - base) * (static_cast<int64_t>(requests_[b]) - 1);
}

}  // namespace ltl
