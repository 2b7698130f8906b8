// The fleet load model (see fleet_load.h).
#include "simulate/fleet_load.h"

#include <algorithm>

namespace ltl {

double ServiceSeconds(int64_t uncached_tokens, int64_t output_tokens, const LoadModel& model) {
  double s = 0;
  if (model.prefill_rate > 0)
    s += static_cast<double>(std::max<int64_t>(uncached_tokens, 0)) / model.prefill_rate;
  if (model.decode_rate > 0)
    s += static_cast<double>(std::max<int64_t>(output_tokens, 0)) / model.decode_rate;
  return s;
}

OutstandingLoad::OutstandingLoad(uint32_t workers, const LoadModel& model)
    : model_(model), requests_(workers, 0), blocks_(workers, 0), prefill_free_s_(workers, 0.0) {}

void OutstandingLoad::AdvanceTo(double now) {
  while (!running_.empty() && running_.top().finish_s <= now) {
    const Running& r = running_.top();
    --requests_[r.worker];
    blocks_[r.worker] -= r.blocks;
    running_.pop();
  }
}

OutstandingLoad::Times OutstandingLoad::Admit(uint32_t worker, double arrival_s,
                                              int64_t uncached_tokens, int64_t output_tokens,
                                              int64_t blocks, double logged_duration_s) {
  if (logged_duration_s >= 0) {  // the log timed it: in flight for exactly that long
    const double finish_s = arrival_s + logged_duration_s;
    ++requests_[worker];
    blocks_[worker] += blocks;
    running_.push({finish_s, worker, blocks});
    return {std::min(finish_s, arrival_s + ServiceSeconds(uncached_tokens, 0, model_)), finish_s};
  }
  double prefill_start = arrival_s;
  if (model_.prefill_queue) prefill_start = std::max(arrival_s, prefill_free_s_[worker]);
  double prefill_end = prefill_start + ServiceSeconds(uncached_tokens, 0, model_);
  prefill_free_s_[worker] = prefill_end;
  double finish_s = prefill_end + ServiceSeconds(0, output_tokens, model_);
  ++requests_[worker];
  blocks_[worker] += blocks;
  running_.push({finish_s, worker, blocks});
  return {prefill_end, finish_s};
}

}  // namespace ltl
