// Test helper: builds RequestRecords and Traces from compact literals.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "common/request_record.h"
#include "simulate/trace.h"

namespace ltl::testing {

struct Req {
  double t;
  std::vector<uint64_t> ids;
  int64_t len;  // input tokens; -1 = ids.size() * block size
  std::string conv = "";
};

inline std::vector<RequestRecord> Records(const std::vector<Req>& reqs, uint32_t bs) {
  std::vector<RequestRecord> out;
  uint64_t line = 1;
  for (const Req& r : reqs) {
    RequestRecord rec;
    rec.line = line++;
    rec.time_s = r.t;
    rec.has_time = true;
    rec.block_ids = r.ids;
    rec.block_size = bs;
    rec.input_tokens = r.len >= 0 ? r.len : static_cast<int64_t>(r.ids.size()) * bs;
    rec.output_tokens = 1;
    rec.conversation = r.conv;
    out.push_back(rec);
  }
  return out;
}

inline Trace MakeTrace(const std::vector<Req>& reqs, uint32_t bs) {
  return BuildTrace(Records(reqs, bs));
}

}  // namespace ltl::testing
