// OutstandingLoad: which requests are still running on each worker. A request admitted at its
// arrival stays until its finish time: arrival + its logged duration when the log timed it
// (Trace::LoggedDuration), else the fleet load model's (fleet_options.h); advancing the clock to
// the next arrival retires every request finished by then. With the prefill queue, each worker
// remembers when its prefill stage frees up (modelled requests only: a logged duration already
// holds whatever queueing the request met).
// Internal to src/simulate/ (tests/build/internal_headers.cmake).
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

#include "simulate/fleet_options.h"

namespace ltl {

// Seconds a request occupies its worker: uncached prefill tokens / prefill rate + output tokens /
// decode rate (a rate <= 0 makes that phase take no time).
double ServiceSeconds(int64_t uncached_tokens, int64_t output_tokens, const LoadModel& model);

class OutstandingLoad {
 public:
  OutstandingLoad(uint32_t workers, const LoadModel& model);

  // Retires every request whose finish time is at or before now.
  void AdvanceTo(double now);
  struct Times {
    double first_token_s;  // its prefill done (a logged request: the modelled prefill, capped at
                           // its finish — logs time the whole request, not the first token)
    double finish_s;
  };
  // Admits a request arriving at arrival_s on worker. logged_duration_s >= 0: the log's own timing
  // of the request, which sets its finish.
  Times Admit(uint32_t worker, double arrival_s, int64_t uncached_tokens, int64_t output_tokens,
              int64_t blocks, double logged_duration_s = -1);

  const std::vector<int64_t>& requests() const { return requests_; }
  const std::vector<int64_t>& blocks() const { return blocks_; }

 private:
  struct Running {
    double finish_s;
    uint32_t worker;
    int64_t blocks;
    bool operator>(const Running& o) const { return finish_s > o.finish_s; }
  };
  std::priority_queue<Running, std::vector<Running>, std::greater<Running>> running_;
  LoadModel model_;
  std::vector<int64_t> requests_, blocks_;
  std::vector<double> prefill_free_s_;  // when each worker's prefill stage is next idle
};

}  // namespace ltl
