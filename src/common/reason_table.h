// ReasonTable: stable storage for skip reasons made at run time (a chat template's own masked
// message), so they travel as `const char*` like the fixed reasons do. Worker threads intern
// concurrently (a mutex: reasons are rare next to rows); a pointer stays valid as long as the
// table. Distinct reasons are bounded: past the bound, new ones share one catch-all phrase.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>

namespace ltl {

class ReasonTable {
 public:
  static constexpr size_t kMaxDistinct = 4096;
  static constexpr const char* kOverflow = "skip reason not kept (too many distinct reasons)";

  const char* Intern(std::string_view reason) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = reasons_.find(std::string(reason));
    if (it != reasons_.end()) return it->c_str();
    if (reasons_.size() >= kMaxDistinct) return kOverflow;
    return reasons_.emplace(reason).first->c_str();  // node-based: the element never moves
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return reasons_.size();
  }

 private:
  mutable std::mutex mu_;
  std::unordered_set<std::string> reasons_;
};

}  // namespace ltl
