// Cache busters, stage by stage: the fixed layouts and a chat template label every rendered byte
// (the labelled texts are the body's own strings, written here from the body); the volatile mask
// on dates, times, epochs, UUIDs and hex ids against hand-written results, and on random texts
// against a word-by-word reference written here from the rule (the mask jumps from digit to
// digit, 16 bytes at a time); prompt facts (token
// starts from hand-counted code points, equal digests for equal texts); the shard of facts; and
// FindDivergences on hand-built traces whose breaks are known by construction; every cause rule
// on hand-built facts.
#include "analyze/cache_busters.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "analyze/cache_buster_causes.h"
#include "ingest/prompt_facts.h"
#include "render/model_chat_template.h"
#include "render/render_prompt.h"
#include "trace_builder.h"

namespace ltl {
namespace {

const char* kBody = R"END({"model": "m", "messages": [
 {"role": "system", "content": "You are terse. Now 2026-12-02T14:05:32Z."},
 {"role": "user", "content": "Weather in Paris?"},
 {"role": "assistant", "content": "Checking.", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}], "cache_control": {"type": "ephemeral"}},
 {"role": "tool", "tool_call_id": "c1", "content": "18C"},
 {"role": "user", "content": "Thanks"}],
 "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {}}},
           {"type": "function", "function": {"name": "get_time", "parameters": {}}}]})END";

const char* kAnthropic = R"END({"model": "claude-x", "system": "Be helpful.",
 "messages": [{"role": "user", "content": "Open a.txt"},
  {"role": "assistant", "content": [{"type": "thinking", "thinking": "Read it.", "signature": "S"}, {"type": "tool_use", "id": "t1", "name": "read", "input": {"p": "a"}}]},
  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "hello", "cache_control": {"type": "ephemeral"}}]}]})END";

// Text of each labelled segment, "KIND/ROLE/MESSAGE" -> concatenated text.
std::map<std::string, std::string> Labels(const RenderedPrompt& p) {
  std::map<std::string, std::string> out;
  for (const SegmentSpan& s : p.segments.spans) {
    const Segment& seg = p.segments.segments[s.segment];
    const std::string key =
        std::string(SegmentKindName(seg.kind)) + "/" + SegmentRoleName(seg.role) + "/" +
        std::to_string(seg.kind == SegmentKind::kTools ? seg.index : seg.message);
    out[key] += p.text.substr(s.offset, s.length);
  }
  return out;
}

RenderedPrompt RenderFixed(const char* json, Layout layout, simdjson::dom::parser* parser,
                           simdjson::dom::element* body) {
  EXPECT_EQ(parser->parse(std::string(json)).get(*body), simdjson::SUCCESS);
  RenderedPrompt p;
  EXPECT_EQ(RenderPrompt(*body, layout, "m", &p), nullptr);
  return p;
}

TEST(CacheBustersSegments, FixedChatmlLayoutLabelsEveryPart) {
  simdjson::dom::parser parser;
  simdjson::dom::element body;
  const RenderedPrompt p = RenderFixed(kBody, Layout::kToolsFirst, &parser, &body);
  auto l = Labels(p);
  EXPECT_EQ(l["system/system/0"], "You are terse. Now 2026-12-02T14:05:32Z.");
  EXPECT_EQ(l["message/user/1"], "Weather in Paris?");
  EXPECT_EQ(l["message/assistant/2"], "Checking.");
  EXPECT_EQ(l["tool_call/assistant/2"],
            "\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\":\"Paris\"}}\n"
            "</tool_call>");
  EXPECT_EQ(l["tool_result/tool/3"], "18C");
  EXPECT_EQ(l["message/user/4"], "Thanks");
  EXPECT_NE(l["tools//0"].find("\"get_weather\""), std::string::npos);
  EXPECT_NE(l["tools//1"].find("\"get_time\""), std::string::npos);
  // Spans are ordered and never overlap.
  size_t end = 0;
  for (const SegmentSpan& s : p.segments.spans) {
    EXPECT_GE(s.offset, end);
    end = s.offset + s.length;
  }
}

TEST(CacheBustersSegments, QwenSystemAndReasoningLabels) {
  const char* body_json = R"END({"messages": [{"role": "system", "content": "SYS"},
    {"role": "user", "content": "U"},
    {"role": "assistant", "content": "A", "reasoning": "THINK"}],
    "tools": [{"type": "function", "function": {"name": "f"}}]})END";
  simdjson::dom::parser parser;
  simdjson::dom::element body;
  EXPECT_EQ(parser.parse(std::string(body_json)).get(body), simdjson::SUCCESS);
  RenderedPrompt p;
  ASSERT_EQ(RenderPrompt(body, Layout::kToolsInSystem, "qwen3-32b", &p), nullptr);
  auto l = Labels(p);
  EXPECT_EQ(l["system/system/0"], "SYS");
  EXPECT_EQ(l["reasoning/assistant/2"], "THINK");
  EXPECT_EQ(l["message/assistant/2"], "A");
}

TEST(CacheBustersSegments, AnthropicBlocks) {
  simdjson::dom::parser parser;
  simdjson::dom::element body;
  const RenderedPrompt p = RenderFixed(kAnthropic, Layout::kAnthropic, &parser, &body);
  auto l = Labels(p);
  EXPECT_EQ(l["system/system/-1"], "Be helpful.");
  EXPECT_EQ(l["message/user/0"], "Open a.txt");
  EXPECT_EQ(l["reasoning/assistant/1"], "<thinking>Read it.</thinking>");
  EXPECT_EQ(l["tool_call/assistant/1"],
            "<tool_use id=\"t1\" name=\"read\">{\"p\": \"a\"}</tool_use>");
  EXPECT_EQ(l["tool_result/user/2"], "<tool_result tool_use_id=\"t1\">hello</tool_result>");
}

TEST(CacheBustersSegments, ChatTemplateSegmentsReachThePrompt) {
  auto m = ModelChatTemplate::FromJinja(
      "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}", "{}", "t.jinja");
  ASSERT_TRUE(m.ok()) << m.status().message();
  simdjson::dom::parser parser;
  simdjson::dom::element body;
  ASSERT_EQ(parser
                .parse(std::string(R"({"messages": [{"role": "system", "content": "SYS"},
                  {"role": "user", "content": "U1"}]})"))
                .get(body),
            simdjson::SUCCESS);
  ModelTemplateScratch scratch;
  RenderedPrompt p;
  std::string reason;
  ASSERT_TRUE(m.value()->Render(body, 0, &scratch, &p, &reason)) << reason;
  bool system = false, user = false;
  for (const SegmentSpan& s : p.segments.spans) {
    const Segment& seg = p.segments.segments[s.segment];
    const std::string text = p.text.substr(s.offset, s.length);
    if (seg.kind == SegmentKind::kSystem && text.find("SYS") != std::string::npos) system = true;
    if (seg.kind == SegmentKind::kMessage && seg.role == SegmentRole::kUser &&
        text.find("U1") != std::string::npos)
      user = true;
  }
  EXPECT_TRUE(system);
  EXPECT_TRUE(user);
}

TEST(CacheBustersMask, VolatileWordsBecomeHash) {
  std::string out;
  MaskVolatile("Now 2026-12-02T14:05:32Z, at 14:05 (epoch 1764684332).", &out);
  EXPECT_EQ(out, "Now #, at # (epoch #).");
  MaskVolatile("id 550e8400-e29b-41d4-a716-446655440000 and deadbeef12 ok", &out);
  EXPECT_EQ(out, "id # and # ok");
  // Words and single digits stay; a version number is a number.
  MaskVolatile("Rule 5: use gpt-4o v1.2 on the cafe", &out);
  EXPECT_EQ(out, "Rule 5: use gpt-4o # on the cafe");
  MaskVolatile("turn 12 of 40", &out);
  EXPECT_EQ(out, "turn # of #");
}

// The rule, word by word: a word is a run of ASCII letters, digits and - : . / _ +; it is volatile
// with at least 2 digits and no more letters than digits, or when it is all hex (letters a-f
// only) with at least 8 hex characters, one a digit. Volatile words become '#'.
std::string ReferenceMask(std::string_view t) {
  auto word = [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
           c == ':' || c == '.' || c == '/' || c == '_' || c == '+';
  };
  std::string out;
  size_t i = 0;
  while (i < t.size()) {
    if (!word(t[i])) {
      out.push_back(t[i++]);
      continue;
    }
    size_t j = i;
    size_t digits = 0, letters = 0, hex = 0;
    for (; j < t.size() && word(t[j]); ++j) {
      const char c = t[j];
      if (c >= '0' && c <= '9') ++digits;
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) ++letters;
      if ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) ++hex;
    }
    const bool v =
        (digits >= 2 && letters <= digits) || (letters == hex && digits + hex >= 8 && digits >= 1);
    if (v)
      out.push_back('#');
    else
      out.append(t.substr(i, j - i));
    i = j;
  }
  return out;
}

TEST(CacheBustersMask, RandomTextsEqualTheWordByWordReference) {
  static const char* kPieces[] = {
      "a", "Z", "7",  "42",           " ",        "\n", ":", "-",  "/", ".",    "f0", "_", "+", ",",
      "(", ")", "\"", "\xE4\xB8\xAD", "deadbeef", "9",  "e", "x1", "0", "2026", "T",  "Ab"};
  std::mt19937 rng(30);
  std::string out;
  for (int round = 0; round < 3000; ++round) {
    std::string t;
    const int n = static_cast<int>(rng() % 60);
    for (int k = 0; k < n; ++k) t += kPieces[rng() % (sizeof kPieces / sizeof *kPieces)];
    out = "stale";
    MaskVolatile(t, &out);
    ASSERT_EQ(out, ReferenceMask(t)) << t;
  }
}

TEST(CacheBustersFacts, TokenStartsDigestsToolsAndCacheControl) {
  simdjson::dom::parser parser;
  simdjson::dom::element body;
  const RenderedPrompt p = RenderFixed(kBody, Layout::kToolsFirst, &parser, &body);
  PromptFactsBuilder b(SipKey{1, 2});
  PromptFacts f;
  const int64_t tokens = static_cast<int64_t>((p.text.size() + 3) / 4);  // all ASCII
  b.Build(p, body.get_object().value_unsafe(), tokens, /*approximate=*/true, &f);
  ASSERT_GE(f.segments.size(), 10u);
  // Contiguous, in order, covering the prompt; starts are the preceding code points / 4.
  const size_t sys_at = p.text.find("You are terse.");
  bool found = false;
  for (const SegmentFact& s : f.segments) {
    if (s.kind == static_cast<uint8_t>(SegmentKind::kSystem)) {
      EXPECT_EQ(s.token_start, sys_at / 4);
      EXPECT_EQ(s.item, 0);
      found = true;
    }
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(f.segments[0].token_start, 0u);
  EXPECT_EQ(f.segments[0].kind, static_cast<uint8_t>(SegmentKind::kFraming));
  ASSERT_EQ(f.tools.size(), 2u);
  EXPECT_NE(f.tools[0].name_digest, f.tools[1].name_digest);
  EXPECT_EQ(f.cache_control, 2);
  // The same request at another time: the system digest differs, its masked digest does not.
  std::string other(kBody);
  other.replace(other.find("14:05:32"), 8, "09:59:01");
  simdjson::dom::parser parser2;
  simdjson::dom::element body2;
  const RenderedPrompt p2 = RenderFixed(other.c_str(), Layout::kToolsFirst, &parser2, &body2);
  PromptFacts f2;
  b.Build(p2, body2.get_object().value_unsafe(), tokens, true, &f2);
  ASSERT_EQ(f2.segments.size(), f.segments.size());
  const int32_t d = FirstDifferingSegment(f, f2);
  ASSERT_GE(d, 0);
  EXPECT_EQ(f.segments[static_cast<size_t>(d)].kind, static_cast<uint8_t>(SegmentKind::kSystem));
  EXPECT_EQ(FirstDifferingSegment(f, f2, /*masked=*/true), -1);
  EXPECT_EQ(f.segments.capacity() * 16 + f.tools.capacity() * 8, f.bytes());
}

void ExpectSameFacts(const PromptFacts& a, const PromptFacts& b) {
  ASSERT_EQ(a.segments.size(), b.segments.size());
  for (size_t i = 0; i < a.segments.size(); ++i) {
    const SegmentFact &x = a.segments[i], &y = b.segments[i];
    EXPECT_EQ(x.digest, y.digest) << i;
    EXPECT_EQ(x.masked_digest, y.masked_digest) << i;
    EXPECT_EQ(x.token_start, y.token_start) << i;
    EXPECT_EQ(x.item, y.item) << i;
    EXPECT_EQ(x.kind, y.kind) << i;
    EXPECT_EQ(x.role, y.role) << i;
  }
  EXPECT_EQ(a.cache_control, b.cache_control);
  ASSERT_EQ(a.tools.size(), b.tools.size());
}

size_t CommonBytes(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

// A builder told that a text shares its leading bytes with a remembered one takes those segments'
// digests from it, and the facts are those of a fresh builder: for a continuation (most segments
// reused), an edit in the middle of the history, an unknown stamp and a stamp whose runs it took
// over already.
TEST(CacheBustersFacts, ReusedDigestsEqualFreshOnes) {
  const char* first = R"END({"model": "m", "messages": [
   {"role": "system", "content": "You are terse. Now 2026-12-02T14:05:32Z."},
   {"role": "user", "content": "Weather in Paris?"}],
   "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {}}},
             {"type": "function", "function": {"name": "get_time", "parameters": {}}}]})END";
  std::string edited(kBody);
  edited.replace(edited.find("Checking."), 9, "Looking..");
  simdjson::dom::parser p0, p1, p2;
  simdjson::dom::element b0, b1, b2;
  const RenderedPrompt r0 = RenderFixed(first, Layout::kToolsFirst, &p0, &b0);
  const RenderedPrompt r1 = RenderFixed(kBody, Layout::kToolsFirst, &p1, &b1);
  const RenderedPrompt r2 = RenderFixed(edited.c_str(), Layout::kToolsFirst, &p2, &b2);
  auto fresh = [](const RenderedPrompt& r, simdjson::dom::element body) {
    PromptFactsBuilder b(SipKey{1, 2});
    PromptFacts f;
    b.Build(r, body.get_object().value_unsafe(), 100, false, &f);
    return f;
  };
  PromptFactsBuilder b(SipKey{1, 2});
  PromptFacts f0, f1, f2, f3;
  b.Build(r0, b0.get_object().value_unsafe(), 100, false, TextReuse{0, 0, 5}, &f0);
  EXPECT_EQ(b.reused_segments(), 0u);
  ExpectSameFacts(f0, fresh(r0, b0));
  b.Build(r1, b1.get_object().value_unsafe(), 100, false,
          TextReuse{5, CommonBytes(r0.text, r1.text), 6}, &f1);
  const uint64_t continued = b.reused_segments();
  EXPECT_GE(continued, 4u);  // tools, system, first user message and framing before them
  ExpectSameFacts(f1, fresh(r1, b1));
  // The edit is in message 2: segments up to it are reused, the edited one is digested anew.
  b.Build(r2, b2.get_object().value_unsafe(), 100, false,
          TextReuse{6, CommonBytes(r1.text, r2.text), 7}, &f2);
  EXPECT_GT(b.reused_segments(), continued);
  ExpectSameFacts(f2, fresh(r2, b2));
  EXPECT_NE(FirstDifferingSegment(f1, f2), -1);
  // Stamp 6 was taken over by stamp 7 and 99 never existed: nothing to reuse, the same facts.
  const uint64_t before = b.reused_segments();
  b.Build(r1, b1.get_object().value_unsafe(), 100, false,
          TextReuse{6, CommonBytes(r1.text, r1.text), 8}, &f3);
  b.Build(r1, b1.get_object().value_unsafe(), 100, false,
          TextReuse{99, CommonBytes(r1.text, r1.text), 9}, &f3);
  EXPECT_EQ(b.reused_segments(), before);
  ExpectSameFacts(f3, f1);
}

// Facts of n segments of `len` tokens each, digests from `digests`.
PromptFacts Facts(const std::vector<uint32_t>& digests, uint32_t len) {
  PromptFacts f;
  for (size_t i = 0; i < digests.size(); ++i) {
    SegmentFact s;
    s.digest = s.masked_digest = digests[i];
    s.token_start = static_cast<uint32_t>(i) * len;
    s.kind = static_cast<uint8_t>(i == 0 ? SegmentKind::kSystem : SegmentKind::kMessage);
    s.item = static_cast<uint16_t>(i);
    f.segments.push_back(s);
  }
  return f;
}

TEST(CacheBustersDivergence, PreviousTurnAndBestMatch) {
  using testing::Req;
  // Block size 4. Conversation c: turn 1 = blocks 1..4, turn 2 extends it (1..6), turn 3 has its
  // block 3 rewritten (1,2,9,..): a break at block 2 against turn 2, in segment 1 (tokens 8..15),
  // 0 tokens into it... Request 4 (no conversation) shares blocks 1,2 with everything and
  // continues differently: its best match is the latest request that went beyond block 2.
  std::vector<Req> reqs = {{1, {1, 2, 3, 4}, 16, "c"},
                           {2, {1, 2, 3, 4, 5, 6}, 24, "c"},
                           {3, {1, 2, 9, 10, 11, 12, 13}, 28, "c"},
                           {4, {1, 2, 20}, 10, ""}};
  auto records = testing::Records(reqs, 4);
  records[0].facts = Facts({10, 11, 12, 13}, 4);
  records[1].facts = Facts({10, 11, 12, 13, 14, 15}, 4);
  records[2].facts = Facts({10, 11, 99, 98, 97, 96, 95}, 4);
  records[3].facts = Facts({10, 11, 50}, 4);
  const Trace t = BuildTrace(records);
  const auto d = FindDivergences(t, records);
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].reference, kNoRequest);
  EXPECT_EQ(d[1].previous_turn, 0u);
  EXPECT_EQ(d[1].shared, 4u);
  EXPECT_FALSE(d[1].is_break);  // it extends turn 1
  EXPECT_EQ(d[2].previous_turn, 1u);
  EXPECT_EQ(d[2].shared, 2u);
  EXPECT_TRUE(d[2].is_break);
  EXPECT_EQ(d[2].segment, 2);
  EXPECT_EQ(d[2].token_offset, 0u);
  EXPECT_EQ(d[2].best_shared, 2u);
  EXPECT_EQ(d[3].previous_turn, kNoRequest);
  EXPECT_EQ(d[3].best_shared, 2u);
  EXPECT_EQ(d[3].best_match, 2u);  // the latest request holding block 2 and going on
  EXPECT_EQ(d[3].reference, 2u);
  EXPECT_FALSE(d[3].is_break);  // request 4 has no full block after the shared prefix
}

TEST(CacheBustersDivergence, BreakInsideASegmentGivesTheOffset) {
  using testing::Req;
  // One segment of 24 tokens after a 4-token one; the second request differs from block 3 on
  // (token 12): 8 tokens into segment 1.
  std::vector<Req> reqs = {{1, {1, 2, 3, 4, 5, 6, 7}, 28, ""},
                           {2, {1, 2, 3, 8, 9, 10, 11}, 28, ""}};
  auto records = testing::Records(reqs, 4);
  records[0].facts = Facts({1, 2}, 4);
  records[0].facts.segments[1].token_start = 4;
  records[1].facts = records[0].facts;
  records[1].facts.segments[1].digest = 3;
  const Trace t = BuildTrace(records);
  const auto d = FindDivergences(t, records);
  EXPECT_TRUE(d[1].is_break);
  EXPECT_EQ(d[1].shared, 3u);
  EXPECT_EQ(d[1].segment, 1);
  EXPECT_EQ(d[1].token_offset, 8u);
}

}  // namespace
}  // namespace ltl

namespace ltl {
namespace {

SegmentFact Seg(SegmentKind kind, uint32_t digest, uint32_t start,
                SegmentRole role = SegmentRole::kNone, uint32_t masked = 0) {
  SegmentFact s;
  s.kind = static_cast<uint8_t>(kind);
  s.role = static_cast<uint8_t>(role);
  s.digest = digest;
  s.masked_digest = masked ? masked : digest;
  s.token_start = start;
  return s;
}

// Two turns of one conversation (or two conversations) breaking at block 2; the cause of the
// second request's break.
BreakCause CauseOf(const PromptFacts& ref, const PromptFacts& cur, bool same_conversation = true,
                   const char* cur_model = "m") {
  using testing::Req;
  std::vector<Req> reqs = {{1, {1, 2, 3, 4, 5, 6}, 24, "a"},
                           {2, {1, 2, 9, 10, 11, 12, 13}, 28, same_conversation ? "a" : "b"}};
  auto records = testing::Records(reqs, 4);
  records[0].facts = ref;
  records[1].facts = cur;
  records[0].model = "m";
  records[1].model = cur_model;
  const Trace t = BuildTrace(records);
  const auto d = FindDivergences(t, records);
  EXPECT_TRUE(d[1].is_break);
  return ClassifyBreak(t, records, 1, d[1]);
}

PromptFacts WithTools(std::vector<ToolFact> tools) {
  PromptFacts f;
  f.segments = {Seg(SegmentKind::kFraming, 1, 0)};
  for (size_t k = 0; k < tools.size(); ++k)
    f.segments.push_back(
        Seg(SegmentKind::kTools, tools[k].definition_digest, static_cast<uint32_t>(2 + 2 * k)));
  f.segments.push_back(Seg(SegmentKind::kSystem, 50, 20));
  f.tools = std::move(tools);
  return f;
}

TEST(CacheBusterCauses, ToolRules) {
  const PromptFacts base = WithTools({{1, 11}, {2, 12}, {3, 13}});
  EXPECT_EQ(CauseOf(base, WithTools({{1, 11}, {2, 12}, {3, 13}, {4, 14}})).cause,
            BusterCause::kToolsAdded);
  EXPECT_EQ(CauseOf(base, WithTools({{1, 11}, {3, 13}})).cause, BusterCause::kToolsRemoved);
  EXPECT_EQ(CauseOf(base, WithTools({{2, 12}, {1, 11}, {3, 13}})).cause,
            BusterCause::kToolsReordered);
  EXPECT_EQ(CauseOf(base, WithTools({{1, 11}, {2, 99}, {3, 13}})).cause, BusterCause::kToolEdited);
  // Across conversations only a reorder is a buster: two apps' tool sets differ naturally.
  EXPECT_EQ(CauseOf(base, WithTools({{1, 11}, {2, 99}, {3, 13}}), false).cause,
            BusterCause::kNewContentOnly);
  EXPECT_EQ(CauseOf(base, WithTools({{2, 12}, {1, 11}, {3, 13}}), false).cause,
            BusterCause::kToolsReordered);
  // A model switch wins over everything else.
  EXPECT_EQ(CauseOf(base, WithTools({{1, 11}}), true, "other").cause, BusterCause::kModelSwitched);
}

PromptFacts Chat(std::vector<SegmentFact> segs) {
  PromptFacts f;
  f.segments = std::move(segs);
  return f;
}

TEST(CacheBusterCauses, SystemReasoningFramingHistoryAndVolatile) {
  using K = SegmentKind;
  const auto user = SegmentRole::kUser;
  const PromptFacts ref =
      Chat({Seg(K::kFraming, 1, 0), Seg(K::kSystem, 2, 2, {}, 20), Seg(K::kFraming, 3, 6),
            Seg(K::kMessage, 4, 8, user), Seg(K::kFraming, 5, 12), Seg(K::kReasoning, 6, 14),
            Seg(K::kFraming, 7, 18)});
  auto edit = [&](size_t i, uint32_t digest, uint32_t masked = 0) {
    PromptFacts f = ref;
    f.segments[i].digest = digest;
    f.segments[i].masked_digest = masked ? masked : digest;
    return f;
  };
  EXPECT_EQ(CauseOf(ref, edit(1, 90)).cause, BusterCause::kSystemEdited);
  EXPECT_EQ(CauseOf(ref, edit(1, 90)).where, 1);
  EXPECT_EQ(CauseOf(ref, edit(1, 90, 20)).cause, BusterCause::kVolatileText);
  EXPECT_EQ(CauseOf(ref, edit(3, 91)).cause, BusterCause::kHistoryRewritten);
  EXPECT_EQ(CauseOf(ref, edit(0, 92)).cause, BusterCause::kTemplateFraming);
  // Across conversations a different system prompt or message is new content.
  EXPECT_EQ(CauseOf(ref, edit(1, 90), false).cause, BusterCause::kNewContentOnly);
  EXPECT_EQ(CauseOf(ref, edit(1, 90, 20), false).cause, BusterCause::kVolatileText);
  // The reasoning gone (its framing changed with it): stripped, placed at the reference's
  // reasoning; the reverse: kept.
  PromptFacts stripped = ref;
  stripped.segments.erase(stripped.segments.begin() + 5);
  stripped.segments[4].digest = 95;
  const BreakCause s = CauseOf(ref, stripped);
  EXPECT_EQ(s.cause, BusterCause::kReasoningStripped);
  EXPECT_EQ(s.where, 5);
  EXPECT_TRUE(s.in_reference);
  EXPECT_EQ(CauseOf(stripped, ref).cause, BusterCause::kReasoningKept);
  // A turn would have extended its previous turn: all its blocks but the last (6 - 1).
  EXPECT_EQ(CauseOf(ref, edit(1, 90)).would_share, 5u);
}

// AnalyzeInput analyses the busters before the curve is known (the segment facts are freed
// after) and sets the ceiling's figures afterwards: the same CacheBusters as one call with them.
TEST(CacheBusterCauses, CeilingSetAfterwardsEqualsOneCall) {
  using K = SegmentKind;
  using testing::Req;
  const PromptFacts ref = Chat({Seg(K::kFraming, 1, 0), Seg(K::kSystem, 2, 2, {}, 20),
                                Seg(K::kMessage, 4, 8, SegmentRole::kUser)});
  PromptFacts volatile_system = ref, edited = ref;
  volatile_system.segments[1].digest = 90;  // same masked digest: volatile text
  edited.segments[2].digest = 91;           // history rewritten
  std::vector<Req> reqs = {{1, {1, 2, 3, 4, 5, 6}, 24, "a"},
                           {2, {1, 2, 9, 10, 11, 12, 13}, 28, "a"},
                           {3, {1, 2, 9, 10, 11, 12, 13, 14}, 32, "a"},
                           {4, {1, 2, 9, 30, 31, 32, 33, 34}, 32, "a"}};
  auto records = testing::Records(reqs, 4);
  records[0].facts = ref;
  records[1].facts = volatile_system;
  records[2].facts = volatile_system;
  records[3].facts = edited;
  const Trace t = BuildTrace(records);
  const auto d = FindDivergences(t, records);
  for (size_t first_measured : {0, 2}) {
    const CacheBusters once = AnalyzeCacheBusters(t, records, d, first_measured, 70, 104);
    CacheBusters later = AnalyzeCacheBusters(t, records, d, first_measured, 0, 0);
    SetCacheBusterCeiling(&later, 70, 104);
    ASSERT_TRUE(once.has_top);
    ASSERT_GT(once.causes[0].lost_measured_tokens, 0) << first_measured;
    EXPECT_EQ(later.measured_tokens, 104);
    EXPECT_EQ(later.ceiling_hit_tokens, 70);
    EXPECT_EQ(later.whatif_hit_tokens, once.whatif_hit_tokens);
    EXPECT_EQ(once.whatif_hit_tokens, 70 + once.causes[0].lost_measured_tokens);
    EXPECT_EQ(later.has_top, once.has_top);
    EXPECT_EQ(later.top, once.top);
    ASSERT_EQ(later.causes.size(), once.causes.size());
    for (size_t k = 0; k < once.causes.size(); ++k) {
      EXPECT_EQ(later.causes[k].cause, once.causes[k].cause);
      EXPECT_EQ(later.causes[k].lost_measured_tokens, once.causes[k].lost_measured_tokens);
      EXPECT_EQ(later.causes[k].ceiling_points, once.causes[k].ceiling_points);
      EXPECT_EQ(once.causes[k].ceiling_points,
                100.0 * static_cast<double>(once.causes[k].lost_measured_tokens) / 104.0);
    }
  }
}

// The findings' sentences: a small cost is still a cost ("0.6%", "<0.1%", never "0%" beside
// thousands of lost tokens), and the place is named once ("tools added in the tool definitions").
TEST(CacheBusterSentences, SharesAndPlaces) {
  CacheBusters b;
  b.present = true;
  b.ceiling_hit_tokens = 1'000'000;
  auto cause = [](BusterCause c, const char* segment, int64_t lost) {
    CauseCost k;
    k.cause = c;
    k.segment = segment;
    k.lost_tokens = k.lost_measured_tokens = lost;
    k.requests = k.conversations = 1;
    k.token_offset = 212;
    return k;
  };
  b.causes = {cause(BusterCause::kVolatileText, "system prompt", 250'000),
              cause(BusterCause::kToolsAdded, "tools", 7'000),
              cause(BusterCause::kModelSwitched, "framing", 1'000),
              cause(BusterCause::kTemplateFraming, "framing", 600),
              cause(BusterCause::kNewContentOnly, "message (user)", 90'000)};
  // Reusable volume: hits plus the busters' lost tokens = 1,258,600 (natural misses excluded).
  // 1,000 tokens are 0.08% (shown to one decimal, like the ceiling points), 600 are 0.048%.
  const std::vector<std::string> expected = {
      "a timestamp-like value (date, time, id, counter) in the system prompt at token ~212 breaks "
      "20% of the reusable volume",
      "tools added in the tool definitions at token ~212 breaks 0.6% of",
      "the model switched within a conversation in the template's framing text at token ~212 "
      "breaks 0.1% of",
      "the chat template's own text changed in the template's framing text at token ~212 breaks "
      "<0.1% of"};
  const std::vector<std::string> lines = CacheBusterSentences(b);
  ASSERT_EQ(lines.size(), expected.size());
  for (size_t i = 0; i < lines.size(); ++i)
    EXPECT_NE(lines[i].find(expected[i]), std::string::npos) << lines[i];
}

}  // namespace
}  // namespace ltl
