// The named routers' views of a trace (see router_views.h).
#include "simulate/router_views.h"

#include <absl/container/flat_hash_map.h>

#include "simulate/fleet_hash.h"

namespace ltl {

namespace {
// A block view (aibrix-prefix's, llm-d-prefix's) interned to dense ids in first-seen order: per
// request + 1, offsets into *ids.
void AttachBlockView(const std::vector<RequestRecord>& records, const Trace& trace,
                     std::vector<uint64_t> RouterView::*blocks, std::vector<uint64_t>* start,
                     std::vector<uint32_t>* ids, uint32_t* num_ids) {
  const size_t n = trace.requests.size();
  start->assign(n + 1, 0);
  absl::flat_hash_map<uint64_t, uint32_t> dense;
  for (size_t i = 0; i < n; ++i) {
    (*start)[i] = ids->size();
    const uint32_t rec = trace.requests[i].record;
    if (rec >= records.size() || !records[rec].view.text) continue;
    for (uint64_t h : records[rec].view.*blocks) {
      auto [it, fresh] = dense.try_emplace(h, *num_ids);
      if (fresh) ++*num_ids;
      ids->push_back(it->second);
    }
  }
  (*start)[n] = ids->size();
}
}  // namespace

bool HasAibrixView(const Trace& t, size_t i) {
  const TraceRouterViews& v = t.router_views;
  return v.built && i < v.text.size() && v.text[i] && i + 1 < v.aibrix_start.size();
}

bool HasLlmdView(const Trace& t, size_t i) {
  const TraceRouterViews& v = t.router_views;
  return v.built && i < v.text.size() && v.text[i] && i + 1 < v.llmd_start.size();
}

void AttachRouterViews(std::vector<RequestRecord>* records, Trace* trace) {
  TraceRouterViews& v = trace->router_views;
  v = TraceRouterViews{};
  v.built = true;
  const size_t n = trace->requests.size();
  v.text.assign(n, 0);
  v.session.assign(n, 0);
  v.chunk_start.assign(n + 1, 0);
  v.text_last.assign(n, kNoParent);
  v.text_chars.assign(n, 0);
  absl::flat_hash_map<uint64_t, uint32_t> dense, chars;
  for (size_t i = 0; i < n; ++i) {
    const TraceRequest& r = trace->requests[i];
    v.chunk_start[i] = v.chunk_ids.size();
    if (r.record >= records->size()) continue;
    RouterView& rv = (*records)[r.record].view;
    if (rv.text) {
      v.text[i] = 1;
      ++v.text_requests;
      v.session[i] = rv.session;
      for (uint64_t h : rv.chunks128) {
        auto [it, fresh] = dense.try_emplace(h, v.num_chunk_ids);
        if (fresh) ++v.num_chunk_ids;
        v.chunk_ids.push_back(it->second);
      }
      uint32_t last = kNoParent;
      for (uint64_t h : rv.code_points) {
        auto [it, fresh] = chars.try_emplace(h, static_cast<uint32_t>(v.char_parent.size()));
        if (fresh) v.char_parent.push_back(last);
        last = it->second;
      }
      v.text_last[i] = last;
      v.text_chars[i] = static_cast<uint32_t>(rv.code_points.size());
    } else if (r.conversation >= 0) {
      v.session[i] = Mix64(static_cast<uint64_t>(r.conversation) + 1) | 1;
    }
  }
  v.chunk_start[n] = v.chunk_ids.size();
  AttachBlockView(*records, *trace, &RouterView::aibrix_blocks, &v.aibrix_start, &v.aibrix_ids,
                  &v.num_aibrix_ids);
  AttachBlockView(*records, *trace, &RouterView::llmd_blocks, &v.llmd_start, &v.llmd_ids,
                  &v.num_llmd_ids);
  // Replay-only entries share their record with nothing; every record's view is freed once read.
  for (RequestRecord& rec : *records) rec.view = RouterView{};
}

uint64_t RequestsWithoutText(const Trace& trace) {
  const TraceRouterViews& v = trace.router_views;
  return trace.requests.size() - (v.built ? v.text_requests : 0);
}

const uint32_t* TextCursor::Ids(size_t i, bool blocks_only, uint32_t* n, bool* text) {
  const TraceRouterViews& v = t_.router_views;
  const TraceRequest& r = t_.requests[i];
  *text = v.built && i < v.text.size() && v.text[i];
  if (!*text || blocks_only) {
    *n = r.num_blocks;
    return blocks_.Blocks(r);
  }
  *n = v.text_chars[i];
  scratch_.resize(*n);
  uint32_t id = v.text_last[i];
  for (uint32_t k = *n; k > 0; --k, id = v.char_parent[id]) scratch_[k - 1] = t_.num_blocks + id;
  return scratch_.data();
}

const uint32_t* ViewCursor::Ids(size_t i, uint32_t* n, bool* text) {
  const TraceRouterViews& v = t_.router_views;
  const TraceRequest& r = t_.requests[i];
  *text = v.built && i < v.text.size() && v.text[i];
  if (!*text) {
    *n = r.num_blocks;
    return blocks_.Blocks(r);
  }
  const uint64_t a = v.chunk_start[i], b = v.chunk_start[i + 1];
  *n = static_cast<uint32_t>(b - a);
  scratch_.resize(*n);
  for (uint32_t k = 0; k < *n; ++k) scratch_[k] = t_.num_blocks + v.chunk_ids[a + k];
  return scratch_.data();
}

}  // namespace ltl
