// Gateway log readers end to end through LoadInput: where the body, response, model, status, time
// and session id are found in CSV and JSONL; status filtering; exact counts from usage; bad rows
// skipped with reason and row number; the missing-column message; conversations.
#include <gtest/gtest.h>

// GCC 12 reports a false -Wrestrict on std::string concatenation (GCC bug 105651).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

#include <filesystem>
#include <map>
#include <set>

#include "common/facts_store.h"
#include "ingest/gateway_readers.h"
#include "ingest/load_input.h"
#include "ingest/session_id.h"
#include "test_util.h"

namespace ltl {
namespace {

struct Loaded {
  Status status;
  LoadedInput in;
  SkipCounter skips;
};

std::string SaltPath(const std::string& name = "salt") {
  auto p = testing::TempDir() / ("gw-" + name);
  if (!std::filesystem::exists(p))
    testing::WriteTemp(p.filename().string(), "000102030405060708090a0b0c0d0e0f\n");
  std::filesystem::permissions(
      p, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  return p.string();
}

Loaded Load(const std::string& name, const std::string& content, const std::string& ts = "",
            const std::string& salt = SaltPath()) {
  Loaded l;
  std::string path = testing::WriteTemp(name, content);
  IngestContext ctx;
  ctx.name = name;
  ctx.skips = &l.skips;
  ctx.gateway.salt_file = salt;
  ctx.gateway.ts_column = ts;
  auto r = LoadInput(path, InputFormat::kAuto, &ctx);
  l.status = r.status();
  if (r.ok()) l.in = std::move(r.value());
  return l;
}

// One CSV field holding `json`, quoted per RFC 4180.
std::string Q(const std::string& json) {
  std::string out = "\"";
  for (char c : json) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

const std::string kBody =
    R"({"model": "glm-4.5", "messages": [{"role": "user", "content": "hi"}]})";

std::string BodyWith(const std::string& extra) {
  return R"({"model": "glm-4.5", "messages": [{"role": "user", "content": "hi"}], )" + extra + "}";
}

TEST(GatewayCsv, ColumnsStatusTimeAndModel) {
  std::string csv = "Timestamp,REQUEST_JSON,response_json,model_name,status_code\r\n";
  csv += "2025-07-24 10:00:00.500," + Q(kBody) + ",,qwen3-8b,200\r\n";
  csv += "1753351201000," + Q(kBody) + ",,,500\r\n";
  csv += "1753351202," + Q(kBody) + ",,,429\r\n";
  csv += "1753351203," + Q(kBody) + ",,," + "\r\n";
  Loaded l = Load("cols.csv", csv);
  ASSERT_TRUE(l.status.ok()) << l.status.message();
  EXPECT_EQ(l.in.format, InputFormat::kCsv);
  ASSERT_EQ(l.in.records.size(), 2u);
  EXPECT_EQ(l.in.filtered_status, 2u);
  EXPECT_DOUBLE_EQ(l.in.records[0].time_s, 1753351200.5);
  EXPECT_EQ(l.in.records[0].model, "qwen3-8b");  // the column wins over the body
  EXPECT_EQ(l.in.records[0].status_code, 200);
  EXPECT_EQ(l.in.records[0].line, 2u);
  EXPECT_EQ(l.in.records[1].model, "glm-4.5");
  EXPECT_EQ(l.in.records[1].line, 5u);
  EXPECT_EQ(l.in.layouts.at("tools-in-system"), 1u);
  EXPECT_EQ(l.in.layouts.at("tools-first"), 1u);
}

// CSV rows stay in the reader's buffers until a worker has read them (CsvReader::BufferHandoff),
// and the buffers go round a free list between the reader and the batches, at most a few batches
// in flight (RowPipeline::MaxInFlight). With buffers of a few rows each, so hundreds of hand-overs
// reuse the same handful of buffers, every record read with 2 and 3 threads equals the record read
// on one thread: a buffer handed out again while a batch still pointed into it would change the
// text a worker read, and with it the token count and the block ids.
TEST(GatewayCsv, ReusedReadBuffersNeverChangeARowAnyThreadCount) {
  std::string csv = "ts,request_json,status_code\n";
  for (int i = 0; i < 600; ++i) {
    std::string text(static_cast<size_t>(40 + (i * 37) % 500), static_cast<char>('a' + i % 26));
    const std::string body = R"({"model": "glm-4.5", "messages": [{"role": "user", "content": ")" +
                             text + " \\\"q\\\" " + std::to_string(i) + R"("}]})";
    csv += std::to_string(1753351200 + i) + "," + Q(body) + ",200\n";
  }
  const std::string path = testing::WriteTemp("buffers.csv", csv);
  std::vector<std::vector<RequestRecord>> runs;
  for (unsigned threads : {1u, 2u, 3u}) {
    SkipCounter skips;
    IngestContext ctx;
    ctx.name = "buffers.csv";
    ctx.skips = &skips;
    ctx.gateway.salt_file = SaltPath();
    ctx.threads = threads;
    ctx.limits.buffer_bytes = 2048;  // a few rows per buffer
    auto r = LoadInput(path, InputFormat::kAuto, &ctx);
    ASSERT_TRUE(r.ok()) << r.status().message();
    runs.push_back(std::move(r.value().records));
  }
  ASSERT_EQ(runs[0].size(), 600u);
  for (size_t t = 1; t < runs.size(); ++t) {
    ASSERT_EQ(runs[t].size(), runs[0].size());
    for (size_t i = 0; i < runs[0].size(); ++i) {
      EXPECT_EQ(runs[t][i].line, runs[0][i].line) << t << " " << i;
      EXPECT_EQ(runs[t][i].input_tokens, runs[0][i].input_tokens) << t << " " << i;
      EXPECT_EQ(runs[t][i].block_ids, runs[0][i].block_ids) << t << " " << i;
    }
  }
}

TEST(GatewayCsv, TimestampColumnOverride) {
  std::string csv = "created_at,finished,request_json\n";
  csv += "2025-07-24T10:00:00Z,2025-07-24T10:00:09Z," + Q(kBody) + "\n";
  Loaded detected = Load("ts.csv", csv);
  ASSERT_TRUE(detected.status.ok());
  EXPECT_DOUBLE_EQ(detected.in.records[0].time_s, 1753351200.0);
  Loaded chosen = Load("ts.csv", csv, "FINISHED");
  ASSERT_TRUE(chosen.status.ok());
  EXPECT_DOUBLE_EQ(chosen.in.records[0].time_s, 1753351209.0);
  Loaded missing = Load("ts.csv", csv, "nope");
  ASSERT_FALSE(missing.status.ok());
  EXPECT_EQ(
      missing.status.message(),
      "ts.csv:1: no column 'nope' for --ts-column (found: created_at, finished, request_json)");
}

TEST(GatewayCsv, MissingRequestColumnNamesTheColumnsFound) {
  Loaded l = Load("nocol.csv", "id,prompt,Model\n1,hello,x\n");
  ASSERT_FALSE(l.status.ok());
  // The columns found, and the flags that name a body elsewhere.
  EXPECT_EQ(l.status.message(),
            "nocol.csv:1: no request_json column (found: id, prompt, model); --body-field COLUMN "
            "names the request body (also --status-field, --session-field, --time-field, "
            "--model-field), --source NAME picks a known log shape (llmtrafficlens list-sources)");
}

TEST(GatewayCsv, BadRowsAreSkippedByReasonWithTheirLine) {
  std::string csv = "request_json,status_code\n";
  csv += Q(kBody) + ",200\n";                                                     // line 2 ok
  csv += Q("{not json") + ",200\n";                                               // 3
  csv += Q(R"({"model": "x"})") + ",200\n";                                       // 4 no messages
  csv += Q(kBody) + ",200,extra\n";                                               // 5 field count
  csv += "\"" + std::string("{}") + "\"x,200\n";                                  // 6 malformed CSV
  csv += ",200\n";                                                                // 7 empty body
  csv += Q(R"({"messages": [{"role": "user", "content": "a\nb"}]})") + ",200\n";  // 8 ok
  Loaded l = Load("bad.csv", csv);
  ASSERT_TRUE(l.status.ok());
  ASSERT_EQ(l.in.records.size(), 2u);
  EXPECT_EQ(l.in.records[1].line, 8u);
  const auto& by = l.skips.by_reason();
  EXPECT_EQ(by.at("invalid JSON in request_json").lines, std::vector<uint64_t>{3});
  EXPECT_EQ(by.at("missing messages").lines, std::vector<uint64_t>{4});
  EXPECT_EQ(by.at("CSV record field count differs from the header").lines,
            std::vector<uint64_t>{5});
  EXPECT_EQ(by.at("text after a closing quote in a CSV field").lines, std::vector<uint64_t>{6});
  EXPECT_EQ(by.at("empty request_json").lines, std::vector<uint64_t>{7});
  EXPECT_EQ(l.skips.total(), 5u);
}

TEST(GatewayCsv, SessionColumns) {
  for (const char* col :
       {"session_id", "x-session-id", "x-litellm-session-id", "helicone-session-id",
        "x-claude-code-session-id", "X-Portkey-Trace-Id"}) {
    std::string csv =
        std::string("request_json,") + col + "\n" + Q(kBody) + ",abc\n" + Q(kBody) + ",\n";
    Loaded l = Load("sess.csv", csv);
    ASSERT_TRUE(l.status.ok());
    ASSERT_EQ(l.in.records.size(), 2u);
    std::string lower = col;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(l.in.records[0].session_field, SessionHeaderField(lower)) << col;
    EXPECT_EQ(l.in.records[0].conversation[0], 's');
    EXPECT_EQ(l.in.records[1].session_field, "") << col;
    EXPECT_EQ(l.in.records[1].conversation[0], 'p');  // inferred from the prompt
  }
}

struct BodyCase {
  std::string extra;
  std::string field;
  bool per_conversation;
};

TEST(GatewayJsonl, SessionFieldsInTheBody) {
  const std::vector<BodyCase> cases = {
      {R"("prompt_cache_key": "k1")", "prompt_cache_key", true},
      {R"("metadata": {"session_id": "s1"})", "metadata.session_id", true},
      {R"("litellm_session_id": "s1")", "litellm_session_id", true},
      {R"("session_id": "s1")", "session_id", true},
      {R"("metadata": {"litellm_trace_id": "t1"})", "metadata.litellm_trace_id", true},
      {R"("conversation": "conv_1")", "conversation", true},
      {R"("conversation": {"id": "conv_1"})", "conversation", true},
      {R"("metadata": {"user_id": "user_)" + std::string(64, 'a') +
           R"(_account_0b6c1c1e-0000-4000-8000-000000000001_session_8c7b4f0e-1111-2222-3333-444455556666"})",
       "metadata.user_id (Claude Code)", true},
      {R"("metadata": {"user_id": "user_)" + std::string(64, 'b') +
           R"(_account__session_8c7b4f0e-1111-2222-3333-444455556666"})",
       "metadata.user_id (Claude Code)", true},
      {R"("metadata": {"user_id": "{\"device_id\":\"d\",\"account_uuid\":\"\",\"session_id\":\"8c7b4f0e-1111-2222-3333-444455556666\"}"})",
       "metadata.user_id (Claude Code)", true},
      {R"("metadata": {"user_id": "customer-42"})", "metadata.user_id", false},
      {R"("previous_response_id": "resp_1")", "previous_response_id", false},
      {R"("user": "u1")", "user", false},
      {R"("safety_identifier": "h1")", "safety_identifier", false},
  };
  for (const auto& c : cases) {
    Loaded l = Load("s.jsonl", BodyWith(c.extra) + "\n" + kBody + "\n");
    ASSERT_TRUE(l.status.ok()) << c.extra;
    ASSERT_EQ(l.in.records.size(), 2u) << c.extra;
    EXPECT_EQ(l.in.records[0].session_field, c.field) << c.extra;
    EXPECT_EQ(l.in.records[0].conversation[0], c.per_conversation ? 's' : 'p') << c.extra;
    EXPECT_EQ(l.in.records[1].session_field, "");
  }
  // Both Claude Code forms with the same session uuid are one conversation.
  Loaded both = Load("cc.jsonl", BodyWith(cases[8].extra) + "\n" + BodyWith(cases[9].extra) + "\n");
  ASSERT_EQ(both.in.records.size(), 2u);
  EXPECT_EQ(both.in.records[0].conversation, both.in.records[1].conversation);
}

TEST(GatewayJsonl, HeadersAndWrappers) {
  std::string body = R"({"messages": [{"role": "user", "content": "hi"}]})";
  std::string esc;
  for (char c : body) esc += c == '"' ? std::string("\\\"") : std::string(1, c);
  const std::vector<std::string> lines = {
      body,
      R"({"request_json": )" + body + R"(, "ts": 1753351200})",
      R"({"request": ")" + esc + R"(", "created_at": "2025-07-24T10:00:00Z"})",
      R"({"body": )" + body + "}",
      R"({"request_body": )" + body + "}",
      R"({"proxy_server_request": ")" + esc + R"(", "startTime": "2025-07-24 10:00:00"})",
      R"({"request": {"body": )" + body +
          R"(, "headers": {"X-Session-Id": "abc"}}, "response": {"status": 200, "body": {"usage": {"prompt_tokens": 77, "completion_tokens": 5}}}})",
      R"({"headers": {"x-claude-code-session-id": "q"}, "request_json": )" + body + "}",
      R"({"request_properties": {"Helicone-Session-Id": "h"}, "request_body": )" + body + "}",
      R"({"model": "x"})",
  };
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  Loaded l = Load("wrap.jsonl", text);
  ASSERT_TRUE(l.status.ok()) << l.status.message();
  EXPECT_EQ(l.in.format, InputFormat::kJsonl);
  ASSERT_EQ(l.in.records.size(), 9u);
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(l.in.records[i].block_ids, l.in.records[0].block_ids);
  EXPECT_DOUBLE_EQ(l.in.records[1].time_s, 1753351200.0);
  EXPECT_DOUBLE_EQ(l.in.records[2].time_s, 1753351200.0);
  EXPECT_DOUBLE_EQ(l.in.records[5].time_s, 1753351200.0);
  EXPECT_EQ(l.in.records[6].session_field, "header x-session-id");
  EXPECT_EQ(l.in.records[6].input_tokens, 77);  // Portkey response.body usage
  EXPECT_TRUE(l.in.records[6].exact_counts);
  EXPECT_EQ(l.in.records[7].session_field, "header x-claude-code-session-id");
  EXPECT_EQ(l.in.records[8].session_field, "header helicone-session-id");
  EXPECT_EQ(l.skips.by_reason().begin()->second.lines, std::vector<uint64_t>{10});
}

// A response whose "body" is not an object (a string, a number) is no response: the request is
// read with estimated counts, and nothing queries the missing document (a fuzz finding: UBSan
// "member access within null pointer" in simdjson before the fix).
TEST(GatewayJsonl, ResponseBodyThatIsNotAnObjectIsIgnored) {
  const std::string text =
      BodyWith(R"("response": {"status": 200, "body": "upstream timeout"})") + "\n" +
      BodyWith(R"("response": {"body": 7})") + "\n" +
      BodyWith(R"("response": {"body": {"usage": {"prompt_tokens": 9, "completion_tokens": 2}}})") +
      "\n";
  Loaded l = Load("respbody.jsonl", text);
  ASSERT_TRUE(l.status.ok()) << l.status.message();
  ASSERT_EQ(l.in.records.size(), 3u);
  EXPECT_FALSE(l.in.records[0].exact_counts);
  EXPECT_FALSE(l.in.records[1].exact_counts);
  EXPECT_EQ(l.in.records[1].output_tokens, -1);
  EXPECT_TRUE(l.in.records[2].exact_counts);
  EXPECT_EQ(l.in.records[2].input_tokens, 9);
}

TEST(GatewayJsonl, UsageExactCountsAndProviderCacheHits) {
  auto line = [](const std::string& response) {
    return R"({"request_json": {"messages": [{"role": "user", "content": "hi"}]}, "response_json": )" +
           response + "}\n";
  };
  std::string text =
      line(
          R"({"usage": {"prompt_tokens": 100, "completion_tokens": 7, "prompt_tokens_details": {"cached_tokens": 64}}})") +
      line(
          R"({"type": "message", "usage": {"input_tokens": 10, "cache_creation_input_tokens": 20, "cache_read_input_tokens": 30, "output_tokens": 4}})") +
      line(
          R"({"usage": {"input_tokens": 50, "input_tokens_details": {"cached_tokens": 8}, "output_tokens": 3}})") +
      line(
          R"({"usage": {"prompt_tokens": 40, "completion_tokens": 2, "prompt_cache_hit_tokens": 16}})") +
      line(R"({"choices": [{"message": {"role": "assistant", "content": "twelve chars"}}]})") +
      line(
          R"({"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": 9, "completion_tokens": 1}})");
  Loaded l = Load("usage.jsonl", text);
  ASSERT_TRUE(l.status.ok());
  const auto& r = l.in.records;
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(r[0].input_tokens, 100);
  EXPECT_EQ(r[0].output_tokens, 7);
  EXPECT_EQ(r[0].provider_cached_tokens, 64);
  EXPECT_EQ(r[1].input_tokens, 60);  // Anthropic: input + cache creation + cache read
  EXPECT_EQ(r[1].provider_cached_tokens, 30);
  EXPECT_EQ(r[1].output_tokens, 4);
  EXPECT_EQ(r[2].input_tokens, 50);  // Responses API: input_tokens already includes cached
  EXPECT_EQ(r[2].provider_cached_tokens, 8);
  EXPECT_EQ(r[3].provider_cached_tokens, 16);  // DeepSeek
  EXPECT_FALSE(r[4].exact_counts);
  EXPECT_EQ(r[4].output_tokens, 3);  // ceil(12 code points / 4)
  EXPECT_EQ(r[4].provider_cached_tokens, -1);
  EXPECT_EQ(r[5].provider_cached_tokens, -1);  // usage without cache fields: unknown
  EXPECT_EQ(l.in.counting,
            "exact (logged usage) for 5 of 6 requests, approximate (4 code points per token) for "
            "the rest");
}

TEST(GatewayJsonl, TruncatedBodiesAndToolDigests) {
  std::string tools_a = R"("tools": [{"type": "function", "function": {"name": "a"}}])";
  std::string tools_b = R"("tools": [{"type": "function", "function": {"name": "b"}}])";
  // The second request is the next turn of the first (its history + the answer + a new
  // question), with other tools.
  std::string turn2 =
      R"({"model": "glm-4.5", "messages": [{"role": "user", "content": "hi"}, )"
      R"({"role": "assistant", "content": "hello"}, {"role": "user", "content": "more"}], )" +
      tools_b + "}";
  std::string text =
      BodyWith(tools_a) + "\n" + turn2 + "\n" + kBody + "\n" +
      R"({"messages": [{"role": "user", "content": "abc... (litellm_truncated skipped 900 chars) ...xyz"}]})" +
      "\n";
  Loaded l = Load("tools.jsonl", text);
  ASSERT_EQ(l.in.records.size(), 4u);
  const auto& r = l.in.records;
  EXPECT_NE(r[0].tools_digest, 0u);
  EXPECT_NE(r[1].tools_digest, 0u);
  EXPECT_NE(r[0].tools_digest, r[1].tools_digest);
  EXPECT_EQ(r[2].tools_digest, 0u);
  // A tool change does not split a conversation: the next turn joins the first request.
  EXPECT_EQ(r[0].conversation, r[1].conversation);
  // The same prompt again is not a next turn: a conversation of its own (docs/SEMANTICS.md).
  EXPECT_NE(r[0].conversation, r[2].conversation);
  EXPECT_FALSE(r[0].truncated_body);
  EXPECT_TRUE(r[3].truncated_body);
  EXPECT_EQ(r[0].turn, 1);
  EXPECT_EQ(r[1].turn, 2);
  EXPECT_EQ(r[2].turn, 1);
}

TEST(GatewayJsonl, PerRequestSessionIdsFallBackToInference) {
  std::string text;
  for (int i = 0; i < 25; ++i)
    text += BodyWith(R"("session_id": "uuid-)" + std::to_string(i) + "\"") + "\n";
  Loaded l = Load("litellm.jsonl", text);
  ASSERT_EQ(l.in.records.size(), 25u);
  EXPECT_EQ(l.in.per_request_session_fields, std::vector<std::string>{"session_id"});
  // The inferred conversations: 25 equal prompts are 25 conversations, never one.
  EXPECT_EQ(l.in.records[0].conversation[0], 'p');
  EXPECT_NE(l.in.records[0].conversation, l.in.records[24].conversation);
  EXPECT_EQ(l.in.records[0].session_field, "session_id");  // still counts as carrying an id
}

TEST(GatewayJsonl, TwoSaltsGiveDisjointIdsWithTheSameStructure) {
  std::string text;
  for (int i = 0; i < 20; ++i)
    text += R"({"messages": [{"role": "system", "content": ")" + std::string(200, 's') +
            R"("}, {"role": "user", "content": ")" + std::string(50 + i * 7, 'a' + i % 3) +
            "\"}]}\n";
  std::string other = (testing::TempDir() / "gw-other-salt").string();
  std::filesystem::remove(other);
  Loaded a = Load("salts.jsonl", text);
  Loaded b = Load("salts.jsonl", text, "", other);
  ASSERT_EQ(a.in.records.size(), b.in.records.size());
  std::set<uint64_t> ids_a, ids_b;
  std::map<uint64_t, uint64_t> a_to_b;
  for (size_t i = 0; i < a.in.records.size(); ++i) {
    const auto& x = a.in.records[i].block_ids;
    const auto& y = b.in.records[i].block_ids;
    ASSERT_EQ(x.size(), y.size());
    for (size_t j = 0; j < x.size(); ++j) {
      ids_a.insert(x[j]);
      ids_b.insert(y[j]);
      auto [it, fresh] = a_to_b.emplace(x[j], y[j]);
      EXPECT_EQ(it->second, y[j]);  // a bijection: the same sharing structure
    }
  }
  for (uint64_t id : ids_a) EXPECT_EQ(ids_b.count(id), 0u);
  EXPECT_EQ(ids_a.size(), ids_b.size());
}

// Multi-turn conversations whose turns are spread over `files` files (turn t of conversation c in
// file (c + t) % files), each turn resending the history with a long system prompt: a turn's
// cutter and facts memos were filled by its previous turn, in another file.
std::vector<std::string> ConversationFiles(size_t files, bool jsonl) {
  std::vector<std::string> out(files, jsonl ? "" : "timestamp,request_json\n");
  for (int t = 0; t < 4; ++t)
    for (int c = 0; c < 12; ++c) {
      std::string messages = R"([{"role": "system", "content": "You help team )" +
                             std::to_string(c % 3) + " " + std::string(300, 'x') + R"("})";
      for (int k = 0; k <= t; ++k) {
        messages += R"(, {"role": "user", "content": "question )" + std::to_string(k) + " of " +
                    std::to_string(c) + " " + std::string(150 + 37 * k, 'q') + R"("})";
        if (k < t)
          messages += R"(, {"role": "assistant", "content": "answer )" + std::to_string(k) + " " +
                      std::string(90, 'a') + R"("})";
      }
      const std::string body = R"({"model": "glm-4.5", "messages": )" + messages + "]}";
      const std::string time = std::to_string(1753351200 + 60 * t + c);
      std::string& f = out[static_cast<size_t>(c + t) % files];
      if (jsonl)
        f.append(R"({"timestamp": )")
            .append(time)
            .append(R"(, "request_json": )")
            .append(body)
            .append("}\n");
      else
        f.append(time).append(",").append(Q(body)).append("\n");
    }
  return out;
}

// What a record carries for the analyses (RequestRecord has no operator==).
void ExpectSameRecords(const LoadedInput& a, const LoadedInput& b) {
  ASSERT_EQ(a.records.size(), b.records.size());
  for (size_t i = 0; i < a.records.size(); ++i) {
    const RequestRecord& x = a.records[i];
    const RequestRecord& y = b.records[i];
    EXPECT_EQ(x.line, y.line);
    EXPECT_EQ(x.time_s, y.time_s);
    EXPECT_EQ(x.input_tokens, y.input_tokens);
    EXPECT_EQ(x.block_ids, y.block_ids);
    EXPECT_EQ(x.conversation, y.conversation);
    EXPECT_EQ(x.turn, y.turn);
    EXPECT_EQ(x.tools_digest, y.tools_digest);
    PromptFacts sx, sy;
    const PromptFacts& fx = ReadFacts(x.facts, &sx);
    const PromptFacts& fy = ReadFacts(y.facts, &sy);
    ASSERT_EQ(fx.segments.size(), fy.segments.size());
    for (size_t k = 0; k < fx.segments.size(); ++k) {
      EXPECT_EQ(fx.segments[k].digest, fy.segments[k].digest);
      EXPECT_EQ(fx.segments[k].masked_digest, fy.segments[k].masked_digest);
      EXPECT_EQ(fx.segments[k].token_start, fy.segments[k].token_start);
    }
  }
  EXPECT_EQ(a.layouts, b.layouts);
}

// The files of a run read with one GatewayReadState (LoadRunInputs' way: the workers and their
// memos kept from file to file) give the records each file gives read on its own; the state is
// taken only by a read of the same source and salt, and never otherwise.
TEST(GatewayReadState, KeptWorkersGiveEachFilesOwnRecords) {
  const std::vector<std::string> csv = ConversationFiles(3, false);
  const std::vector<std::string> jsonl = ConversationFiles(2, true);
  std::vector<std::string> paths;
  for (size_t k = 0; k < csv.size(); ++k)
    paths.push_back(testing::WriteTemp("kept-" + std::to_string(k) + ".csv", csv[k]));
  paths.insert(paths.begin() + 2, testing::WriteTemp("kept-j.jsonl", jsonl[0]));
  // csv, csv, jsonl, csv, all of one source (the same fields): every read after the first takes
  // the workers, the JSON one too (its batches get the CSV reader's kept buffers, emptied).
  for (unsigned threads : {1u, 2u}) {
    SCOPED_TRACE(threads);
    GatewayReadState state;
    for (const std::string& path : paths) {
      SCOPED_TRACE(path);
      auto read = [&](GatewayReadState* s, const std::string& salt) {
        IngestContext ctx;
        SkipCounter skips;
        ctx.name = path;
        ctx.skips = &skips;
        ctx.threads = threads;
        ctx.gateway.salt_file = salt;
        ctx.read_state = s;
        auto r = LoadInput(path, InputFormat::kAuto, &ctx);
        EXPECT_TRUE(r.ok()) << r.status().message();
        EXPECT_EQ(skips.total(), 0u);
        return r.ok() ? std::move(r).value() : LoadedInput();
      };
      const LoadedInput kept = read(&state, SaltPath());
      const LoadedInput fresh = read(nullptr, SaltPath());
      ASSERT_GT(kept.records.size(), 10u);
      ExpectSameRecords(kept, fresh);
    }
    EXPECT_EQ(state.reuses(), 3u);
    // Another salt: the kept workers (their memos hold ids of the first salt) are not taken.
    std::string other = (testing::TempDir() / "gw-kept-other-salt").string();
    std::filesystem::remove(other);
    IngestContext ctx;
    SkipCounter skips;
    ctx.skips = &skips;
    ctx.threads = threads;
    ctx.gateway.salt_file = other;
    ctx.read_state = &state;
    auto salted = LoadInput(paths[3], InputFormat::kAuto, &ctx);
    ASSERT_TRUE(salted.ok());
    EXPECT_EQ(state.reuses(), 3u);
    ctx.read_state = nullptr;
    auto salted_fresh = LoadInput(paths[3], InputFormat::kAuto, &ctx);
    ASSERT_TRUE(salted_fresh.ok());
    ExpectSameRecords(*salted, *salted_fresh);
    // The next read of the same salt takes them.
    ctx.read_state = &state;
    auto again = LoadInput(paths[0], InputFormat::kAuto, &ctx);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(state.reuses(), 4u);
    state.Release();
  }
}
}  // namespace
}  // namespace ltl
