// PrefixTree: the blocks of a Trace seen as a tree (each chained block id has one parent) with, for
// every node, how many requests contain it. The prefix leaderboards are built from it: a node is a
// "listed" prefix when more requests contain it than any of its children (a branch point or an
// end), so every prefix is shown at its longest length for its request count.
#pragma once

#include <cstdint>
#include <vector>

#include "simulate/trace.h"

namespace ltl {

class PrefixTree {
 public:
  static PrefixTree Build(const Trace& trace);

  uint32_t num_nodes() const { return static_cast<uint32_t>(requests_.size()); }
  // Requests containing node b (each request counted once).
  uint32_t requests(uint32_t b) const { return requests_[b]; }
  // Tokens of the prefix ending with block b: blocks from the root through b. When a request's
  // last block is partial this is the smallest length any containing request had.
  int64_t tokens(uint32_t b) const { return tokens_[b]; }
  // Blocks from the root through b (1 = a first block).
  uint32_t depth(uint32_t b) const { return depth_[b]; }
  uint32_t parent(uint32_t b) const { return parent_[b]; }
  // Replay indices of the first and last request containing b.
  uint32_t first_request(uint32_t b) const { return first_[b]; }
  uint32_t last_request(uint32_t b) const { return last_[b]; }
  // Largest request count among b's children (0 for an end).
  uint32_t max_child_requests(uint32_t b) const { return max_child_[b]; }

  // A branch point or an end, contained in at least two requests (a prefix seen once has nothing
  // to reuse and is not listed).
  bool IsListed(uint32_t b) const { return requests_[b] >= 2 && requests_[b] > max_child_[b]; }
  // The nearest listed proper ancestor of b, or kNoParent at the root.
  uint32_t ListedAncestor(uint32_t b) const;
  // Reusable volume of the prefix ending at b: tokens(b) x (requests(b) - 1).
  int64_t ReusableTokens(uint32_t b) const {
    return tokens_[b] * (static_cast<int64_t>(requests_[b]) - 1);
  }
  // The part of ReusableTokens(b) not already counted by its listed ancestor:
  // (tokens(b) - tokens(ancestor)) x (requests(b) - 1). Over all listed nodes these add up to
  // the hit tokens of an unbounded cold replay (see docs/SEMANTICS.md).
  int64_t OwnReusableTokens(uint32_t b) const;

 private:
  std::vector<uint32_t> requests_, depth_, parent_, first_, last_, max_child_;
  std::vector<int64_t> tokens_;
};

}  // namespace ltl
