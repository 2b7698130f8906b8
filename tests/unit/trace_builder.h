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

// One timed record: line, arrival, block ids, block size and input tokens (the fields every
// builder of this folder sets; the callers add the rest).
inline RequestRecord TimedRecord(uint64_t line, double t, const std::vector<uint64_t>& ids,
                                 uint32_t bs, int64_t input) {
  RequestRecord rec;
  rec.line = line;
  rec.time_s = t;
  rec.has_time = true;
  rec.block_ids = ids;
  rec.block_size = bs;
  rec.input_tokens = input;
  return rec;
}

inline std::vector<RequestRecord> Records(const std::vector<Req>& reqs, uint32_t bs) {
  std::vector<RequestRecord> out;
  uint64_t line = 1;
  for (const Req& r : reqs) {
    RequestRecord rec = TimedRecord(line++, r.t, r.ids, bs,
                                    r.len >= 0 ? r.len : static_cast<int64_t>(r.ids.size()) * bs);
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
