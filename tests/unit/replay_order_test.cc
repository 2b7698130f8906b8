// The one replay-order rule (common/replay_order.h) as the trace builder, the exports and the
// distributions see it: stable time order, untimed requests at their input position, and no
// untimed request dated 1970 (a 55-year "duration").
#include "common/replay_order.h"

#include <gtest/gtest.h>

#include "analyze/distributions.h"
#include "common/request_record.h"
#include "simulate/trace.h"

namespace ltl {
namespace {

RequestRecord At(bool timed, double t, uint64_t id) {
  RequestRecord r;
  r.has_time = timed;
  r.time_s = timed ? t : 0;
  r.block_size = 16;
  r.input_tokens = 16;
  r.block_ids = {id};
  return r;
}

TEST(ReplayOrder, TraceBuilderFollowsTheSharedRuleAndNeverDatesUntimedRows1970) {
  // Epoch times; the first and fourth rows carry none.
  std::vector<RequestRecord> recs = {At(false, 0, 1), At(true, 1.7e9 + 30, 2),
                                     At(true, 1.7e9 + 10, 3), At(false, 0, 4),
                                     At(true, 1.7e9 + 20, 5)};
  const ReplayOrder o = OrderForReplay(recs);
  // Untimed row 0 takes the earliest time (1.7e9+10) and sorts first (ties keep input order);
  // untimed row 3 takes row 2's time and stays right behind it.
  EXPECT_EQ(o.order, (std::vector<uint32_t>{0, 2, 3, 4, 1}));
  EXPECT_EQ(o.untimed, 2u);
  const Trace t = BuildTrace(recs);
  ASSERT_EQ(t.requests.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(t.requests[i].record, o.order[i]) << i;
    EXPECT_EQ(t.requests[i].time_s, o.time_s[o.order[i]]) << i;
  }
  const Distributions d = ComputeDistributions(recs, t);
  EXPECT_DOUBLE_EQ(d.duration_s, 20.0);  // the timed span, not 55 years
}

TEST(ReplayOrder, NoTimesAtAllReplayInInputOrderAtZero) {
  std::vector<RequestRecord> recs = {At(false, 0, 1), At(false, 0, 2), At(false, 0, 3)};
  const ReplayOrder o = OrderForReplay(recs);
  EXPECT_EQ(o.order, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(o.time_s, (std::vector<double>{0, 0, 0}));
}

}  // namespace
}  // namespace ltl
