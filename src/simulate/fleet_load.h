// OutstandingLoad: which requests are still running on each worker, under the fleet load model
// (fleet_options.h). A request admitted at its arrival stays until its finish time; advancing the
// clock to the next arrival retires every request finished by then. With the prefill queue, each
// worker remembers when its prefill stage frees up.
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
  // Admits a request arriving at arrival_s on worker; returns its finish time.
  double Admit(uint32_t worker, double arrival_s, int64_t uncached_tokens, int64_t output_tokens,
               int64_t blocks);

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
