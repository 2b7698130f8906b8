// The provider-cache section's over-time buckets (analyze/provider_cache_section.cc) on absurd
// times: a span that overflows a double (report fuzz finding, UBSan "-nan is outside the range of
// representable values") puts every request in one bucket with finite numbers, and an ordinary
// span spreads requests over 48 buckets by time.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "analyze/cache_buster_causes.h"
#include "analyze/provider_cache_section.h"
#include "simulate/trace.h"

namespace ltl {
namespace {

std::vector<RequestRecord> Requests(const std::vector<double>& times) {
  std::vector<RequestRecord> records;
  for (size_t i = 0; i < times.size(); ++i) {
    RequestRecord r;
    r.line = i + 1;
    r.has_time = true;
    r.time_s = times[i];
    r.block_size = 16;
    r.model = "claude-3-haiku";
    for (uint64_t b = 1; b <= 200; ++b) r.block_ids.push_back(b);  // 3,200 tokens, all shared
    r.input_tokens = 3200;
    r.output_tokens = 10;
    records.push_back(r);
  }
  return records;
}

TEST(ProviderCacheSection, SpanBeyondADoubleGivesOneFiniteBucket) {
  const std::vector<RequestRecord> records = Requests({-1.5e308, 0, 1.5e308});
  const Trace trace = BuildTrace(records);
  ProviderCacheOptions options;
  options.provider = "anthropic";
  const ProviderCacheSection s = AnalyzeProviderCache(trace, records, CacheBusters{}, options,
                                                      /*is_cctrace=*/false);
  ASSERT_TRUE(s.present);
  ASSERT_EQ(s.over_time.size(), 1u);
  EXPECT_EQ(s.over_time[0].input_tokens, 3 * 3200);
  EXPECT_TRUE(std::isfinite(s.over_time[0].start_s));
}

TEST(ProviderCacheSection, OrdinarySpanSpreadsOverFortyEightBuckets) {
  const std::vector<RequestRecord> records = Requests({1000, 1010, 1480});
  const Trace trace = BuildTrace(records);
  ProviderCacheOptions options;
  options.provider = "anthropic";
  const ProviderCacheSection s = AnalyzeProviderCache(trace, records, CacheBusters{}, options,
                                                      /*is_cctrace=*/false);
  ASSERT_EQ(s.over_time.size(), 48u);             // 480 s in 10 s buckets
  EXPECT_EQ(s.over_time[0].input_tokens, 3200);   // t = 1000
  EXPECT_EQ(s.over_time[1].input_tokens, 3200);   // t = 1010
  EXPECT_EQ(s.over_time[47].input_tokens, 3200);  // the last request, clamped into 47
  EXPECT_DOUBLE_EQ(s.over_time[1].start_s, 1010);
}

}  // namespace
}  // namespace ltl
