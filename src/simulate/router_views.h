// Building a trace's named-router views (TraceRouterViews, simulate/trace.h) from its records'
// RequestRecord::view, and reading them back per request. A request whose record has no prompt
// text (hashed traces, shards) has no text view: a router whose view is text routes it on its
// block ids, and the fleet result counts it (FleetPolicyResult::requests_without_text).
#pragma once

#include <cstdint>
#include <vector>

#include "common/request_record.h"
#include "simulate/fleet_options.h"
#include "simulate/trace.h"

namespace ltl {

// Fills trace->router_views from `records` (the records the trace was built from) and frees the
// records' views. Session keys: the logged session id's digest where the record has a text view,
// else the trace's conversation (cache traces' sessions), else none.
void AttachRouterViews(std::vector<RequestRecord>* records, Trace* trace);

// The requests without a text view (a text-view router routes them on block ids).
uint64_t RequestsWithoutText(const Trace& trace);
// Whether request i has aibrix-prefix's view (TraceRouterViews::aibrix_start); else it is routed
// on its block ids.
bool HasAibrixView(const Trace& t, size_t i);
// Whether request i has llm-d-prefix's view (TraceRouterViews::llmd_start); else it is routed on
// its block ids.
bool HasLlmdView(const Trace& t, size_t i);

// aibrix-prefix's block size in bytes when `policies` include it (its block_size parameter as
// `options` sets it), else 0: what the ingest stage cuts its view at
// (GatewayOptions::aibrix_block_bytes). Defined with the router (fleet_route_aibrix_prefix.cc).
uint32_t AibrixViewBlockBytes(const std::vector<const RoutingPolicy*>& policies,
                              const FleetOptions& options);

// A request's ids on a text-view router's trie: its chunk ids (offset by the trace's block count,
// so they never meet block ids) when it has a text view, else its block ids. *text says which.
class ViewCursor {
 public:
  explicit ViewCursor(const Trace& t) : t_(t), blocks_(t) {}
  const uint32_t* Ids(size_t i, uint32_t* n, bool* text);

 private:
  const Trace& t_;
  BlockCursor blocks_;
  std::vector<uint32_t> scratch_;
};

// A request's labels on sglang-cache-aware's tree: its code points' ids (offset by the trace's
// block count) when it has a text view and !blocks_only, else its block ids. *text: it has a text
// view.
class TextCursor {
 public:
  explicit TextCursor(const Trace& t) : t_(t), blocks_(t) {}
  const uint32_t* Ids(size_t i, bool blocks_only, uint32_t* n, bool* text);

 private:
  const Trace& t_;
  BlockCursor blocks_;
  std::vector<uint32_t> scratch_;
};

}  // namespace ltl
