// Unit tests for ExportTrace and OrderForExport: exact line text for both targets (hand-written
// expected lines), replay order with untimed rows, conversation links, skips and the id check.
#include "export/export_trace.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "export/export_order.h"
#include "hash/conform_ids.h"
#include "trace_builder.h"

namespace ltl {
namespace {

RequestRecord Rec(uint64_t line, double t, int64_t in, int64_t out,
                  const std::vector<uint64_t>& ids, std::string conv = "", uint32_t bs = 16) {
  RequestRecord r = testing::TimedRecord(line, t, ids, bs, in);
  r.output_tokens = out;
  r.conversation = std::move(conv);
  return r;
}

std::string Export(const std::vector<RequestRecord>& records, ExportOptions opts,
                   SkipCounter* skips = nullptr, Status* status = nullptr) {
  IngestContext ctx;
  ctx.name = "log";
  ctx.skips = skips;
  std::string out;
  ExportStats stats;
  Status st = ExportTrace(
      records, opts, &ctx,
      [&out](std::string_view s) {
        out.append(s);
        return Status::Ok();
      },
      &stats);
  if (status) *status = st;
  return out;
}

TEST(ExportTrace, MooncakeLinesInTimeOrderWithMillisecondsFromTheFirst) {
  ExportOptions o;
  o.block_size = 16;
  std::string got = Export({Rec(1, 100.5, 32, 7, {5, 6}), Rec(2, 100.25, 16, -1, {5})}, o);
  EXPECT_EQ(
      got,
      "{\"timestamp\": 0, \"input_length\": 16, \"output_length\": 256, \"hash_ids\": [5], "
      "\"block_size\": 16}\n"
      "{\"timestamp\": 250, \"input_length\": 32, \"output_length\": 7, \"hash_ids\": [5, 6], "
      "\"block_size\": 16}\n");
  o.absolute_time = true;
  EXPECT_NE(Export({Rec(1, 100.5, 32, 7, {5, 6})}, o).find("\"timestamp\": 100500,"),
            std::string::npos);
}

TEST(ExportTrace, BailianLinksConversationsAndWritesExactDecimalSeconds) {
  ExportOptions o;
  o.target = ExportTarget::kBailian;
  o.block_size = 16;
  auto a1 = Rec(1, 10.0, 16, 1, {1}, "a");
  auto b1 = Rec(2, 10.1, 16, 2, {2}, "b");
  auto a2 = Rec(3, 12.000001, 20, 3, {1, 3}, "a");
  a2.type = "image";
  auto solo = Rec(4, 13, 16, 4, {4}, "");
  solo.type = "anything else";
  std::string got = Export({a1, b1, a2, solo}, o);
  std::string tail = std::to_string(TailBlockId(3, 4));
  EXPECT_EQ(
      got,
      "{\"chat_id\": 0, \"parent_chat_id\": -1, \"timestamp\": 0.0, \"input_length\": 16, "
      "\"output_length\": 1, \"type\": \"text\", \"turn\": 1, \"hash_ids\": [1]}\n"
      "{\"chat_id\": 1, \"parent_chat_id\": -1, \"timestamp\": 0.1, \"input_length\": 16, "
      "\"output_length\": 2, \"type\": \"text\", \"turn\": 1, \"hash_ids\": [2]}\n"
      "{\"chat_id\": 2, \"parent_chat_id\": 0, \"timestamp\": 2.000001, \"input_length\": 20, "
      "\"output_length\": 3, \"type\": \"image\", \"turn\": 2, \"hash_ids\": [1, " +
          tail +
          "]}\n"
          "{\"chat_id\": 3, \"parent_chat_id\": -1, \"timestamp\": 3.0, \"input_length\": "
          "16, \"output_length\": 4, \"type\": \"text\", \"turn\": 1, \"hash_ids\": [4]}\n");
}

TEST(ExportTrace, DenseIdsNumberFirstAppearances) {
  ExportOptions o;
  o.block_size = 16;
  o.dense_ids = true;
  std::string got = Export({Rec(1, 0, 32, 1, {900, 901}), Rec(2, 1, 40, 1, {900, 902, 903})}, o);
  EXPECT_NE(got.find("\"hash_ids\": [0, 1]"), std::string::npos);
  EXPECT_NE(got.find("\"hash_ids\": [0, 2, 3]"), std::string::npos);
}

TEST(ExportTrace, EmptyPromptsAreSkippedAndCounted) {
  ExportOptions o;
  o.block_size = 16;
  SkipCounter skips;
  std::string got =
      Export({Rec(1, 0, 0, 1, {}), Rec(2, 1, 16, 1, {3}), Rec(3, 2, 16, 1, {})}, o, &skips);
  EXPECT_EQ(std::count(got.begin(), got.end(), '\n'), 1);
  EXPECT_EQ(skips.total(), 2u);
  EXPECT_EQ(skips.by_reason().at("input_length is 0 (replay tools reject it)").lines,
            std::vector<uint64_t>{1});
  EXPECT_EQ(skips.by_reason().at("no block ids for a non-empty prompt").lines,
            std::vector<uint64_t>{3});
}

TEST(ExportTrace, ATailIdThatEqualsAFullIdFailsTheExport) {
  ExportOptions o;
  o.block_size = 16;
  uint64_t t = TailBlockId(7, 4);  // forge a full block with the tail's id
  Status st;
  std::string got = Export({Rec(1, 0, 20, 1, {1, 7}), Rec(2, 1, 32, 1, {1, t})}, o, nullptr, &st);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("log:2:"), std::string::npos);
}

TEST(ExportTrace, BlockSizesThatCannotBeCoarsenedAreRejected) {
  ExportOptions o;
  o.block_size = 24;
  Status st;
  Export({Rec(5, 0, 32, 1, {1, 2})}, o, nullptr, &st);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("log:5:"), std::string::npos);
}

TEST(ExportOrder, UntimedRowsTakeThePreviousTimeAndTiesKeepFileOrder) {
  std::vector<RequestRecord> recs(5);
  recs[0].has_time = false;  // before any timed row: the earliest time
  recs[1].has_time = true, recs[1].time_s = 9;
  recs[2].has_time = false;  // inherits 9
  recs[3].has_time = true, recs[3].time_s = 4;
  recs[4].has_time = true, recs[4].time_s = 9;
  ReplayOrder o = OrderForExport(recs);
  EXPECT_EQ(o.order, (std::vector<uint32_t>{0, 3, 1, 2, 4}));
  EXPECT_EQ(o.time_s, (std::vector<double>{4, 9, 9, 4, 9}));
  EXPECT_EQ(o.untimed, 2u);
  EXPECT_EQ(RoundToMillis(0.0005), 1);
  EXPECT_EQ(RoundToMicros(1e300), 4000000000000000000);
}

}  // namespace
}  // namespace ltl
