// Per-label state is bounded (issue 17: 200,000 distinct model names made the report quadratic
// and unbounded): model counts keep the 1,000 commonest names and fold the rest into one entry,
// report.json writes a count map without duplicate keys, and skip reasons stop at 256 distinct.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "analyze/distributions.h"
#include "analyze/label_counts.h"
#include "common/skip_counter.h"
#include "report/json_counts.h"
#include "simulate/trace.h"

namespace ltl {
namespace {

TEST(LabelCounts, RareModelsFoldIntoOneEntryAndTotalsAreKept) {
  std::vector<RequestRecord> recs;
  const int kNames = 5000;
  for (int i = 0; i < kNames + 300; ++i) {
    RequestRecord r;
    r.block_size = 16;
    r.input_tokens = 16;
    r.block_ids = {static_cast<uint64_t>(i + 1)};
    r.has_time = true;
    r.time_s = i;
    // Names 0..299 appear twice, the others once.
    r.model = fmt::format("model-{}", i < kNames ? i : i - kNames);
    recs.push_back(r);
  }
  const Trace t = BuildTrace(recs);
  const Distributions d = ComputeDistributions(recs, t);
  ASSERT_EQ(d.models.size(), kMaxReportedModels + 1);
  uint64_t total = 0;
  for (const auto& [m, n] : d.models) total += n;
  EXPECT_EQ(total, recs.size());
  EXPECT_EQ(d.models.at("model-7"), 2u);  // the repeated names are all kept
  EXPECT_EQ(d.models.at(fmt::format("({} other models)", kNames - kMaxReportedModels)),
            static_cast<uint64_t>(kNames - kMaxReportedModels));
}

TEST(LabelCounts, CountsJsonMergesTheUnknownLabelsAndKeepsEveryOther) {
  const std::map<std::string, uint64_t> counts = {{"", 2}, {"a", 1}, {"unknown", 3}, {"z", 4}};
  const nlohmann::ordered_json j = CountsJson(counts);
  EXPECT_EQ(j.dump(), R"({"a":1,"z":4,"unknown":5})");
}

TEST(LabelCounts, SkipReasonsAreBounded) {
  SkipCounter s;
  for (int i = 0; i < 1000; ++i) s.Add(fmt::format("reason {}", i), i + 1);
  EXPECT_EQ(s.by_reason().size(), SkipCounter::kMaxReasons + 1);
  EXPECT_EQ(s.total(), 1000u);
  EXPECT_EQ(s.by_reason().at(SkipCounter::kOtherReasons).count, 1000u - SkipCounter::kMaxReasons);
  SkipCounter merged;
  merged.Merge(s);
  EXPECT_LE(merged.by_reason().size(), SkipCounter::kMaxReasons + 1);
  EXPECT_EQ(merged.total(), 1000u);
}

}  // namespace
}  // namespace ltl
