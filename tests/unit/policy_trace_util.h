// Helpers for eviction-policy tests: build a Trace from block-id paths (one vector per request,
// head first), every block full so that hit tokens = hit blocks x block size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/request_record.h"
#include "simulate/trace.h"

namespace ltl::testing {

constexpr uint32_t kTestBlockSize = 16;

inline std::vector<RequestRecord> PathRecords(const std::vector<std::vector<uint64_t>>& paths,
                                              const std::vector<std::string>& conversations = {}) {
  std::vector<RequestRecord> recs;
  for (size_t i = 0; i < paths.size(); ++i) {
    RequestRecord r;
    r.line = i + 1;
    r.time_s = static_cast<double>(i);
    r.has_time = true;
    r.block_size = kTestBlockSize;
    r.block_ids = paths[i];
    r.input_tokens = static_cast<int64_t>(paths[i].size()) * kTestBlockSize;
    if (i < conversations.size()) r.conversation = conversations[i];
    recs.push_back(r);
  }
  return recs;
}

inline Trace PathTrace(const std::vector<std::vector<uint64_t>>& paths,
                       const std::vector<std::string>& conversations = {}) {
  return BuildTrace(PathRecords(paths, conversations));
}

}  // namespace ltl::testing
