// Load in time (docs/SEMANTICS.md "Load in time"): each request's in-flight time read from the
// log's own timing only when asked (IngestContext::durations): LiteLLM startTime/endTime, Kong's
// latencies.request, cctrace api_time; negative or longer-than-a-day timings counted as bad and
// left to the load model; the Trace's per-request durations and counts. Hand-built rows.
#include <gtest/gtest.h>

#include <filesystem>

#include "ingest/load_input.h"
#include "simulate/trace.h"
#include "test_util.h"

namespace ltl {
namespace {

struct Loaded {
  Status status;
  LoadedInput in;
  SkipCounter skips;
};

Loaded Load(const std::string& name, const std::string& content, bool durations) {
  auto salt = testing::TempDir() / "timing-salt";
  if (!std::filesystem::exists(salt))
    testing::WriteTemp(salt.filename().string(), "000102030405060708090a0b0c0d0e0f\n");
  std::filesystem::permissions(
      salt, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  Loaded l;
  std::string path = testing::WriteTemp(name, content);
  IngestContext ctx;
  ctx.name = name;
  ctx.skips = &l.skips;
  ctx.gateway.salt_file = salt.string();
  ctx.durations = durations;
  auto r = LoadInput(path, InputFormat::kAuto, &ctx);
  l.status = r.status();
  if (r.ok()) l.in = std::move(r.value());
  return l;
}

std::string LitellmRow(double start, const std::string& end) {
  return R"({"id": "c", "trace_id": "t", "status": "success", "startTime": )" +
         std::to_string(start) + (end.empty() ? "" : R"(, "endTime": )" + end) +
         R"(, "model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]})" + "\n";
}

TEST(LoadTiming, LitellmStartAndEndGiveTheDurationBadOnesAreCounted) {
  std::string log = LitellmRow(1767225600, "1767225602.5");  // 2.5 s
  log += LitellmRow(1767225601, "1767225600");               // ends before it starts: bad
  log += LitellmRow(1767225602, "1767400000");               // ~2 days: bad
  log += LitellmRow(1767225603, "");                         // no end: modelled
  Loaded l = Load("timing.jsonl", log, true);
  ASSERT_TRUE(l.status.ok()) << l.status.message();
  ASSERT_EQ(l.in.records.size(), 4u);
  EXPECT_NEAR(l.in.records[0].duration_s, 2.5, 1e-6);
  EXPECT_FALSE(l.in.records[0].bad_duration);
  EXPECT_EQ(l.in.records[1].duration_s, -1);
  EXPECT_TRUE(l.in.records[1].bad_duration);
  EXPECT_EQ(l.in.records[2].duration_s, -1);
  EXPECT_TRUE(l.in.records[2].bad_duration);
  EXPECT_EQ(l.in.records[3].duration_s, -1);
  EXPECT_FALSE(l.in.records[3].bad_duration);

  Trace t = BuildTrace(l.in.records);
  EXPECT_EQ(t.logged_durations, 1u);
  EXPECT_EQ(t.bad_durations, 2u);
  ASSERT_EQ(t.duration_s.size(), 4u);
  EXPECT_NEAR(t.LoggedDuration(0), 2.5, 1e-6);
  EXPECT_EQ(t.LoggedDuration(3), -1);

  // Not asked: nothing is read and the trace holds no durations.
  Loaded plain = Load("timing-plain.jsonl", log, false);
  ASSERT_TRUE(plain.status.ok());
  for (const RequestRecord& r : plain.in.records) {
    EXPECT_EQ(r.duration_s, -1);
    EXPECT_FALSE(r.bad_duration);
  }
  EXPECT_TRUE(BuildTrace(plain.in.records).duration_s.empty());
}

TEST(LoadTiming, KongLatenciesRequestInMilliseconds) {
  const std::string body = R"({\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]})";
  std::string log;
  for (const char* ms : {"1500", "-3"})
    log += std::string(R"({"started_at": 1767225600000, "latencies": {"request": )") + ms +
           R"(}, "response": {"status": 200}, "ai": {"proxy": {"payload": {"request": ")" + body +
           "\"}}}}\n";
  Loaded l = Load("kong.jsonl", log, true);
  ASSERT_TRUE(l.status.ok()) << l.status.message();
  ASSERT_EQ(l.in.records.size(), 2u);
  EXPECT_DOUBLE_EQ(l.in.records[0].duration_s, 1.5);
  EXPECT_EQ(l.in.records[1].duration_s, -1);
  EXPECT_TRUE(l.in.records[1].bad_duration);
}

TEST(LoadTiming, CctraceApiTime) {
  const std::string doc = R"({"id": "abc", "block_size": 4, "requests": [)"
                          R"({"t": 0, "hash_ids": [1, 2], "in": 8, "out": 2, "api_time": 3.25},)"
                          R"({"t": 1, "hash_ids": [1, 2, 3], "in": 12, "out": 2, "api_time": -1},)"
                          R"({"t": 2, "hash_ids": [1], "in": 4, "out": 2}]})";
  Loaded l = Load("trace.json", doc, true);
  ASSERT_TRUE(l.status.ok()) << l.status.message();
  ASSERT_EQ(l.in.records.size(), 3u);
  EXPECT_DOUBLE_EQ(l.in.records[0].duration_s, 3.25);
  EXPECT_TRUE(l.in.records[1].bad_duration);
  EXPECT_EQ(l.in.records[2].duration_s, -1);
  EXPECT_FALSE(l.in.records[2].bad_duration);
}

}  // namespace
}  // namespace ltl
