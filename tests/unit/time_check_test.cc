// Implausible request times (ingest/time_check.h) and the request-rate bins they used to blow up
// (analyze/distributions.h): the rule's three cases, its anchor, and the bin count bound for any
// span up to the largest double.
#include "ingest/time_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "analyze/distributions.h"
#include "report/svg_chart.h"

namespace ltl {
namespace {

constexpr double kNow = 1.8e9;  // 2027-01-15

RequestRecord At(double t, uint64_t line) {
  RequestRecord r;
  r.has_time = true;
  r.time_s = t;
  r.line = line;
  return r;
}

TEST(TimeCheck, AbsoluteClockDropsTimesBefore2000AndAfterTomorrow) {
  std::vector<RequestRecord> recs = {At(0, 1), At(1.7e9, 2), At(1.7e9 + 5, 3),
                                     At(kNow + 2 * 86400, 4), At(1.7e9 + 9, 5)};
  const TimeCheck c = DropImplausibleTimes(&recs, kNow);
  EXPECT_TRUE(c.absolute_clock);
  EXPECT_EQ(c.implausible, 2u);
  EXPECT_EQ(c.first_line, 1u);
  EXPECT_FALSE(recs[0].has_time);
  EXPECT_FALSE(recs[3].has_time);
  EXPECT_TRUE(recs[1].has_time && recs[2].has_time && recs[4].has_time);
  // Tomorrow itself is still plausible (clock skew between gateway hosts).
  std::vector<RequestRecord> skew = {At(1.7e9, 1), At(kNow + 86000, 2)};
  EXPECT_EQ(DropImplausibleTimes(&skew, kNow).implausible, 0u);
}

TEST(TimeCheck, RelativeClockDropsOnlyTimesFarFromTheMedian) {
  // A Mooncake-style clock starting at 0: days apart is fine, one value in microseconds is not.
  std::vector<RequestRecord> recs = {At(0, 1), At(3600, 2), At(86400 * 30, 3), At(1.7e12, 4)};
  const TimeCheck c = DropImplausibleTimes(&recs, kNow);
  EXPECT_FALSE(c.absolute_clock);
  EXPECT_EQ(c.implausible, 1u);
  EXPECT_EQ(c.first_line, 4u);
  EXPECT_FALSE(recs[3].has_time);
}

TEST(TimeCheck, TheMajorityClockWinsAndTheOddZeroIsDropped) {
  // Epoch microseconds read as milliseconds for three requests plus one 0: the anchor is the
  // three, so the 0 is the outlier (it would otherwise stretch the axis over 50,000 years).
  std::vector<RequestRecord> recs = {At(0, 1), At(1.7e12, 2), At(1.7e12 + 1, 3), At(1.7e12 + 2, 4)};
  const TimeCheck c = DropImplausibleTimes(&recs, kNow);
  EXPECT_EQ(c.implausible, 1u);
  EXPECT_EQ(c.first_line, 1u);
  // Two requests: the earlier is the anchor.
  std::vector<RequestRecord> two = {At(0, 1), At(1e25, 2)};
  EXPECT_EQ(DropImplausibleTimes(&two, kNow).first_line, 2u);
}

TEST(TimeCheck, NonFiniteTimesAreImplausibleAndUntimedOrReplayOnlyRowsAreLeftAlone) {
  std::vector<RequestRecord> recs = {At(10, 1), At(std::numeric_limits<double>::infinity(), 2),
                                     At(20, 3), At(30, 4)};
  recs[2].has_time = false;
  recs[3].replay_only = true;
  recs[3].time_s = 1e30;
  const TimeCheck c = DropImplausibleTimes(&recs, kNow);
  EXPECT_EQ(c.implausible, 1u);
  EXPECT_TRUE(recs[3].has_time);
  EXPECT_NE(c.Message().find("line/record 2"), std::string::npos);
  EXPECT_EQ(TimeCheck{}.Message(), "");
}

TEST(QpsBins, AnySpanGivesAtMostAboutOneHundredBinsOfARoundWidth) {
  EXPECT_EQ(QpsBinWidth(100), 1);
  EXPECT_EQ(QpsBinWidth(3600), 30);
  EXPECT_EQ(QpsBinWidth(86400 * 100), 86400);
  EXPECT_EQ(QpsBinWidth(86400 * 121), 2 * 86400);
  for (double span = 1; span < 1e300; span *= 3.7) {
    const double w = QpsBinWidth(span);
    ASSERT_GT(w, 0) << span;
    EXPECT_LE(std::floor(span / w) + 1, 121) << span;
    EXPECT_LE(std::floor(span / w) + 1, static_cast<double>(kMaxQpsBins)) << span;
  }
}

}  // namespace
}  // namespace ltl

namespace ltl {
namespace {

size_t Count(const std::string& s, std::string_view what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(QpsBins, TheTimeAxisHasAFewTicksForAnySpan) {
  // Found by fuzz/report_fuzz.cc: the largest tick step was one week, so a centuries-long axis
  // (bins of 1e15 s) drew one label per week and the page ran out of memory.
  const svg::BarChart spec{"qps", "requests per second", "time", "req/s", "req/s"};
  for (double bin_s : {1.0, 3600.0, 86400.0 * 30, 1e9, 1e15, 1e300}) {
    const std::string svg = svg::TimeBarsSvg(std::vector<double>(100, 1.0), bin_s, spec, {});
    const size_t labels = Count(svg, "text-anchor=\"middle\">") - 2;  // minus the two captions
    EXPECT_GE(labels, 2u) << bin_s;
    EXPECT_LE(labels, 13u) << bin_s;
  }
}

}  // namespace
}  // namespace ltl
