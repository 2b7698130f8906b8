// ProviderPartitions: the exact, small index of the cache partition a provider keeps a request in
// (the model string as sent, and OpenAI's prompt_cache_key digest when one was sent), shared by the
// provider-cache plug-ins. With the partition rule off every request is in partition 0.
// Internal to src/simulate/ (tests/build/internal_headers.cmake).
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace ltl {

class ProviderPartitions {
 public:
  uint32_t Of(std::string_view model, uint64_t cache_key) {
    // The last model looked up answers most requests without touching the map.
    if (model != last_model_ || models_.empty()) {
      last_model_.assign(model);
      last_index_ =
          models_.try_emplace(last_model_, static_cast<uint32_t>(models_.size())).first->second;
    }
    auto p = partitions_.try_emplace({last_index_, cache_key},
                                     static_cast<uint32_t>(partitions_.size()));
    return p.first->second;
  }

 private:
  absl::flat_hash_map<std::string, uint32_t> models_;
  std::string last_model_;
  uint32_t last_index_ = 0;
  absl::flat_hash_map<std::pair<uint32_t, uint64_t>, uint32_t> partitions_;
};

// The key of a cache entry: a partition and a block id (or a 64-bit prefix digest folded with the
// partition, for breakpoint caches).
inline uint64_t PartitionBlockKey(uint32_t partition, uint32_t block) {
  return (static_cast<uint64_t>(partition) << 32) | block;
}

}  // namespace ltl
