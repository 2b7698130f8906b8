// Tests for the mooncake and bailian readers: valid records, every kind of malformed line
// (counted by reason with its line number), conversation chains, block-size precedence, and
// compressed input.
#include "read/trace_readers.h"

#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include "hash/block_interner.h"
#include "ingest/load_input.h"
#include "test_util.h"

namespace ltl {
namespace {

struct Loaded {
  Status status;
  std::vector<RequestRecord> records;
  SkipCounter skips;
  InputFormat format = InputFormat::kAuto;
  std::string encoding;
};

Loaded Load(const std::string& path, InputFormat f = InputFormat::kAuto, uint32_t bs = 0) {
  Loaded out;
  IngestContext ctx;
  ctx.name = path;
  ctx.block_size = bs;
  ctx.skips = &out.skips;
  auto r = LoadInput(path, f, &ctx);
  out.status = r.status();
  if (r.ok()) {
    out.records = std::move(r.value().records);
    out.format = r.value().format;
    out.encoding = r.value().encoding;
  }
  return out;
}

TEST(MooncakeReader, ReadsRecordsAndConvertsMilliseconds) {
  auto path = testing::WriteTemp(
      "ok.jsonl",
      "{\"timestamp\": 1500, \"input_length\": 1000, \"output_length\": 7, \"hash_ids\": [5, 6]}\n"
      "\n"
      "{\"timestamp\": 2000, \"input_length\": 512, \"output_length\": 3, \"hash_ids\": [5]}\r\n");
  Loaded l = Load(path);
  ASSERT_TRUE(l.status.ok()) << l.status.message();
  EXPECT_EQ(l.format, InputFormat::kMooncake);
  ASSERT_EQ(l.records.size(), 2u);
  EXPECT_DOUBLE_EQ(l.records[0].time_s, 1.5);
  EXPECT_EQ(l.records[0].input_tokens, 1000);
  EXPECT_EQ(l.records[0].output_tokens, 7);
  EXPECT_EQ(l.records[0].block_size, 512u);
  EXPECT_EQ(l.records[0].block_ids, (std::vector<uint64_t>{5, 6}));
  EXPECT_EQ(l.records[1].line, 3u);  // the blank line counts
  EXPECT_EQ(l.skips.total(), 0u);
}

TEST(MooncakeReader, HandsEachValidRecordsIdsToTheSinkInOrder) {
  // A skipped line's ids never reach the sink; the sink may take the ids out of the record.
  auto path = testing::WriteTemp(
      "sink.jsonl",
      "{\"timestamp\": 1, \"input_length\": 1000, \"output_length\": 7, \"hash_ids\": [5, 6]}\n"
      "{\"timestamp\": 2, \"input_length\": 9999, \"output_length\": 3, \"hash_ids\": [8]}\n"
      "{\"timestamp\": 3, \"input_length\": 512, \"output_length\": 3, \"hash_ids\": [5]}\n");
  std::vector<std::vector<uint64_t>> seen;
  IngestContext ctx;
  ctx.name = path;
  SkipCounter skips;
  ctx.skips = &skips;
  auto in = OpenInput(path);
  ASSERT_TRUE(in.ok()) << in.status().message();
  std::vector<RequestRecord> records;
  Status st = ReadMooncake(in.value().get(), &ctx, &records, [&](std::vector<uint64_t>* ids) {
    seen.push_back(*ids);
    ids->clear();
  });
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(seen, (std::vector<std::vector<uint64_t>>{{5, 6}, {5}}));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_TRUE(records[0].block_ids.empty());
  EXPECT_EQ(records[1].input_tokens, 512);
  EXPECT_EQ(skips.total(), 1u);  // the length/ids mismatch on line 2
}

TEST(BailianReader, StreamsIdsIntoTheInterner) {
  // With an interner, a trace's ids go in while reading (records keep none) and come back intact.
  auto path = testing::WriteTemp(
      "stream.jsonl",
      "{\"chat_id\": 1, \"parent_chat_id\": -1, \"timestamp\": 1.0, \"input_length\": 40, "
      "\"output_length\": 2, \"type\": \"text\", \"turn\": 1, \"hash_ids\": [1, 2, 3]}\n"
      "{\"chat_id\": 2, \"parent_chat_id\": 1, \"timestamp\": 2.0, \"input_length\": 60, "
      "\"output_length\": 2, \"type\": \"text\", \"turn\": 2, \"hash_ids\": [1, 2, 3, 4]}\n");
  BlockInterner interner;
  IngestContext ctx;
  ctx.name = path;
  ctx.interner = &interner;
  auto r = LoadInput(path, InputFormat::kAuto, &ctx);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r.value().records.size(), 2u);
  EXPECT_TRUE(r.value().records[1].block_ids.empty());
  EXPECT_EQ(r.value().records[1].conversation, "1");
  ASSERT_EQ(interner.records(), 2u);
  EXPECT_EQ(interner.distinct_blocks(), 4u);
  std::vector<uint32_t> ids;
  interner.Materialize(1, &ids);
  EXPECT_EQ(ids, (std::vector<uint32_t>{0, 1, 2, 3}));
}

TEST(MooncakeReader, SkipsAndCountsEveryMalformedLine) {
  auto path = testing::WriteTemp(
      "bad.jsonl",
      "{\"timestamp\": 0, \"input_length\": 10, \"hash_ids\": [1]}\n"      // 1 ok
      "{\"timestamp\": 0, \"input_length\": 10, \"hash_ids\": [1]\n"       // 2 bad JSON
      "{\"input_length\": 10, \"hash_ids\": [1]}\n"                        // 3 no timestamp
      "{\"timestamp\": 0, \"hash_ids\": [1]}\n"                            // 4 no input_length
      "{\"timestamp\": 0, \"input_length\": 10}\n"                         // 5 no hash_ids
      "{\"timestamp\": 0, \"input_length\": 10, \"hash_ids\": [-1]}\n"     // 6 negative
      "{\"timestamp\": 0, \"input_length\": 10, \"hash_ids\": [1.5]}\n"    // 7 fraction
      "{\"timestamp\": 0, \"input_length\": 10, \"hash_ids\": [\"1\"]}\n"  // 8 string
      "{\"timestamp\": 0, \"input_length\": 10, \"hash_ids\": [99999999999999999999999]}\n"  // 9
      "{\"timestamp\": 0, \"input_length\": 1000, \"hash_ids\": [1]}\n"    // 10 length
      "{\"timestamp\": 0, \"input_length\": \"10\", \"hash_ids\": [1]}\n"  // 11 string num
      "[1, 2]\n");                                                         // 12 not object
  Loaded l = Load(path, InputFormat::kMooncake);
  ASSERT_TRUE(l.status.ok());
  EXPECT_EQ(l.records.size(), 1u);
  EXPECT_EQ(l.skips.total(), 11u);
  const auto& by = l.skips.by_reason();
  auto lines = [&](const std::string& reason) {
    auto it = by.find(reason);
    return it == by.end() ? std::vector<uint64_t>{} : it->second.lines;
  };
  EXPECT_EQ(lines("invalid JSON"), (std::vector<uint64_t>{2}));
  EXPECT_EQ(lines("missing timestamp"), (std::vector<uint64_t>{3}));
  EXPECT_EQ(lines("missing input_length"), (std::vector<uint64_t>{4}));
  EXPECT_EQ(lines("missing hash_ids"), (std::vector<uint64_t>{5}));
  EXPECT_EQ(lines("hash_ids holds a negative id"), (std::vector<uint64_t>{6}));
  EXPECT_EQ(lines("hash_ids holds a non-integer"), (std::vector<uint64_t>{7}));
  EXPECT_EQ(lines("hash_ids holds a non-number"), (std::vector<uint64_t>{8}));
  EXPECT_EQ(lines("hash_ids holds a number out of range"), (std::vector<uint64_t>{9}));
  EXPECT_EQ(lines("len(hash_ids) != ceil(input_length / block_size)"), (std::vector<uint64_t>{10}));
  EXPECT_EQ(lines("input_length is not a non-negative integer"), (std::vector<uint64_t>{11}));
  EXPECT_EQ(lines("line is not a JSON object"), (std::vector<uint64_t>{12}));
}

TEST(MooncakeReader, RecordBlockSizeWinsOverCommandLine) {
  auto path = testing::WriteTemp(
      "bs.jsonl",
      "{\"timestamp\": 0, \"input_length\": 100, \"hash_ids\": [1,2], \"block_size\": 64}\n"
      "{\"timestamp\": 0, \"input_length\": 100, \"hash_ids\": [1,2,3,4]}\n");
  Loaded l = Load(path, InputFormat::kMooncake, 32);
  ASSERT_EQ(l.records.size(), 2u);
  EXPECT_EQ(l.records[0].block_size, 64u);
  EXPECT_EQ(l.records[1].block_size, 32u);
}

TEST(BailianReader, ResolvesConversationsThroughParentChains) {
  // Chat 3's parent (2) appears after it; 2's parent is the root 1. Chat 9 is its own root.
  auto path = testing::WriteTemp(
      "b.jsonl",
      "{\"chat_id\": 1, \"parent_chat_id\": -1, \"timestamp\": 0.5, \"input_length\": 20, "
      "\"output_length\": 2, \"type\": \"text\", \"turn\": 1, \"hash_ids\": [1, 2]}\n"
      "{\"chat_id\": 3, \"parent_chat_id\": 2, \"timestamp\": 3.0, \"input_length\": 40, "
      "\"output_length\": 2, \"type\": \"image\", \"turn\": 3, \"hash_ids\": [1, 2, 3]}\n"
      "{\"chat_id\": 2, \"parent_chat_id\": 1, \"timestamp\": 2.0, \"input_length\": 30, "
      "\"output_length\": 2, \"type\": \"text\", \"turn\": 2, \"hash_ids\": [1, 2]}\n"
      "{\"chat_id\": 9, \"parent_chat_id\": -1, \"timestamp\": 2.5, \"input_length\": 16, "
      "\"output_length\": 2, \"type\": \"text\", \"turn\": 1, \"hash_ids\": [7]}\n");
  Loaded l = Load(path);
  ASSERT_TRUE(l.status.ok());
  EXPECT_EQ(l.format, InputFormat::kBailian);
  ASSERT_EQ(l.records.size(), 4u);
  EXPECT_EQ(l.records[0].conversation, "1");
  EXPECT_EQ(l.records[1].conversation, "1");
  EXPECT_EQ(l.records[2].conversation, "1");
  EXPECT_EQ(l.records[3].conversation, "9");
  EXPECT_DOUBLE_EQ(l.records[0].time_s, 0.5);  // seconds, not ms
  EXPECT_EQ(l.records[1].type, "image");
  EXPECT_EQ(l.records[1].turn, 3);
  EXPECT_EQ(l.records[0].block_size, 16u);
}

std::string Gzip(const std::string& s) {
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(compressBound(s.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
  zs.avail_in = static_cast<uInt>(s.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string Zstd(const std::string& s) {
  std::string out(ZSTD_compressBound(s.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), s.data(), s.size(), 3));
  return out;
}

std::string ManyLines(int n) {
  std::string s;
  for (int i = 0; i < n; ++i)
    s += "{\"timestamp\": " + std::to_string(i) +
         ", \"input_length\": 600, \"output_length\": 1, \"hash_ids\": [1, " +
         std::to_string(i + 2) + "]}\n";
  return s;
}

TEST(InputStream, ReadsGzipAndZstdByContent) {
  std::string plain = ManyLines(5000);
  for (auto [name, bytes, enc] : {std::tuple{"t.gz.bin", Gzip(plain), "gzip"},
                                  std::tuple{"t.zst.bin", Zstd(plain), "zstd"}}) {
    Loaded l = Load(testing::WriteTemp(name, bytes));
    ASSERT_TRUE(l.status.ok()) << l.status.message();
    EXPECT_EQ(l.encoding, enc);
    ASSERT_EQ(l.records.size(), 5000u);
    EXPECT_EQ(l.records[4999].block_ids[1], 5001u);
  }
  // Concatenated gzip members are one stream.
  Loaded two = Load(testing::WriteTemp("two.gz", Gzip(ManyLines(3)) + Gzip(ManyLines(2))));
  ASSERT_TRUE(two.status.ok());
  EXPECT_EQ(two.records.size(), 5u);
}

TEST(InputStream, TruncatedCompressedInputIsAnError) {
  std::string plain = ManyLines(5000);
  std::string gz = Gzip(plain), zs = Zstd(plain);
  Loaded a = Load(testing::WriteTemp("cut.gz", gz.substr(0, gz.size() / 2)));
  EXPECT_FALSE(a.status.ok());
  EXPECT_NE(a.status.message().find("truncated gzip"), std::string::npos) << a.status.message();
  Loaded b = Load(testing::WriteTemp("cut.zst", zs.substr(0, zs.size() / 2)));
  EXPECT_FALSE(b.status.ok());
  EXPECT_NE(b.status.message().find("truncated zstd"), std::string::npos) << b.status.message();
}

TEST(InputStream, MissingFileAndDirectoryAreOneLineErrors) {
  // A directory of its own: a directory input is read as cache traces, and TempDir() holds the
  // *.json files earlier tests of the process wrote (HfTokenizer's), which it would read.
  const std::filesystem::path dir = testing::EmptyTempDir("missing-file-and-directory");
  Loaded a = Load((dir / "does-not-exist.jsonl").string());
  EXPECT_FALSE(a.status.ok());
  EXPECT_NE(a.status.message().find("does-not-exist.jsonl: cannot open"), std::string::npos);
  Loaded b = Load(dir.string());
  EXPECT_FALSE(b.status.ok());
  EXPECT_NE(b.status.message().find("is a directory"), std::string::npos);
}

TEST(LineReader, OverlongLinesAreSkippedWithTheirNumber) {
  std::string big(5000, 'x');
  auto path =
      testing::WriteTemp("long.jsonl", ManyLines(1) + "{\"a\":\"" + big + "\"}\n" + ManyLines(1));
  SkipCounter skips;
  IngestContext ctx;
  ctx.name = path;
  ctx.skips = &skips;
  ctx.limits.max_line_bytes = 1000;
  auto r = LoadInput(path, InputFormat::kMooncake, &ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().records.size(), 2u);
  ASSERT_EQ(skips.total(), 1u);
  EXPECT_EQ(skips.by_reason().begin()->second.lines, (std::vector<uint64_t>{2}));
  EXPECT_EQ(r.value().records[1].line, 3u);
}

}  // namespace
}  // namespace ltl
