// Cache-aware routing decisions: given what the router knows about each worker when a request
// arrives (its cached prefix of the request, its outstanding requests and their KV blocks), pick a
// worker. Ties go round-robin: the scan starts after the previous choice (*rotor).
#pragma once

#include <cstdint>
#include <vector>

namespace ltl {

struct WorkerView {
  const std::vector<uint32_t>* match;         // leading cached blocks of the request, per worker
  const std::vector<int64_t>* outstanding;    // outstanding requests, per worker
  const std::vector<int64_t>* decode_blocks;  // prompt blocks of the outstanding requests
};

struct RouteChoice {
  uint32_t worker = 0;
  bool guard = false;  // the load guard overrode the cache choice
};

// SGLang's cache-aware router: when busiest > rel x least busy and busiest - least busy > abs
// (outstanding requests), the least busy worker; otherwise the longest cached prefix, ties to the
// least busy.
RouteChoice ChoosePrefixAware(const WorkerView& view, double rel_threshold, int64_t abs_threshold,
                              uint32_t* rotor);

// Dynamo-style cost: (request blocks - cached prefix blocks) + weight x decode blocks; the lowest
// cost wins, ties to the least busy.
RouteChoice ChooseKvCost(const WorkerView& view, uint32_t request_blocks, double weight,
                         uint32_t* rotor);

}  // namespace ltl
