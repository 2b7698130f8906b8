// Fenwick (binary indexed) tree of 32-bit counts: prefix sums and point updates in O(log n).
// Hand-written because it is a dozen lines and no Debian library offers one.
// Internal to src/simulate/ (tests/build/internal_headers.cmake).
#pragma once

#include <cstdint>
#include <vector>

namespace ltl {

class Fenwick {
 public:
  explicit Fenwick(size_t n = 0) : tree_(n + 1, 0) {}
  void Reset(size_t n) { tree_.assign(n + 1, 0); }
  size_t size() const { return tree_.size() - 1; }
  // Adds delta at 0-based position i.
  void Add(size_t i, int32_t delta) {
    for (size_t k = i + 1; k < tree_.size(); k += k & (~k + 1)) tree_[k] += delta;
  }
  // Sum over positions [0, i] (0-based, inclusive).
  int64_t Prefix(size_t i) const {
    int64_t s = 0;
    for (size_t k = i + 1; k > 0; k -= k & (~k + 1)) s += tree_[k];
    return s;
  }

 private:
  std::vector<int32_t> tree_;
};

}  // namespace ltl
