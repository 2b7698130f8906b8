// WriteRoutesJsonl (see routes_jsonl.h).
#include "report/routes_jsonl.h"

#include <fmt/format.h>

#include <iterator>

#include "common/atomic_file.h"
#include "simulate/routing_policy.h"

namespace ltl {

Status WriteRoutesJsonl(const std::string& path, const Trace& trace, const FleetResult& fleet) {
  AtomicFile out;
  if (Status st = out.Open(path); !st.ok()) return st;
  std::string buf;
  for (const FleetPolicyResult& pr : fleet.policies) {
    for (const FleetPoint& pt : pr.points) {
      const std::string cap = pt.capacity_blocks == kUnboundedCapacity
                                  ? std::string("null")
                                  : std::to_string(pt.capacity_blocks);
      // A --router-sweep entry also says its value (the policy name alone is not unique).
      const std::string sweep = pr.sweep.router.empty()
                                    ? std::string()
                                    : fmt::format(",\"sweep\":{{\"key\":\"{}\",\"value\":{}}}",
                                                  pr.sweep.key, pr.sweep.value);
      uint64_t request = 0;
      for (size_t i = 0; i < pt.routes.size() && i < trace.requests.size(); ++i) {
        if (trace.requests[i].replay_only) continue;
        fmt::format_to(std::back_inserter(buf),
                       "{{\"policy\":\"{}\"{},\"per_worker_capacity_blocks\":{},\"request\":{},"
                       "\"worker\":{}}}\n",
                       pr.policy->name(), sweep, cap, request++, pt.routes[i]);
        if (Status st = out.WriteWhenFull(&buf); !st.ok()) return st;
      }
    }
  }
  if (Status st = out.Write(buf); !st.ok()) return st;
  return out.Commit();
}

}  // namespace ltl
