// The model-family rules of the fixed layouts (issue 16, item 5): which family auto picks, and per
// family one rule each, checked on the rendered text of small agentic requests: DeepSeek renders
// no tools; Qwen3/GLM keep the reasoning inside the current tool loop and drop it at the next user
// message (the client's `reasoning`, which vLLM passes as reasoning_content; an incoming
// reasoning_content or thinking is dropped); Mistral's tools sit just before the last user message;
// Nemo's system prompt goes only into a final user message; gpt-oss writes the request's own date
// first, renders only the first of parallel calls and no reasoning (its template reads `thinking`,
// which vLLM drops).
#include <gtest/gtest.h>

#include <string>

#include "render/render_prompt.h"

namespace ltl {
namespace {

std::string Render(const std::string& json, const char* model, int64_t now = 0,
                   Layout layout = Layout::kAuto) {
  simdjson::dom::parser parser;
  simdjson::dom::element body;
  EXPECT_EQ(parser.parse(json).get(body), simdjson::SUCCESS);
  RenderedPrompt p;
  const char* reason = RenderPrompt(body, layout, model, &p, now);
  EXPECT_EQ(reason, nullptr) << reason;
  return p.text;
}

const std::string kTools =
    R"("tools": [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}])";
const std::string kOtherTools =
    R"("tools": [{"type": "function", "function": {"name": "grep", "parameters": {"type": "object"}}}])";
const std::string kSystem = R"({"role": "system", "content": "SYS-PROMPT"})";
const std::string kUser1 = R"({"role": "user", "content": "first question"})";
const std::string kCall =
    R"({"role": "assistant", "content": null, "reasoning": "LOOP-REASONING", "reasoning_content": "DROPPED-BY-VLLM", "thinking": "LOOP-THINKING", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"x\"}"}}, {"id": "b", "type": "function", "function": {"name": "SECOND-CALL", "arguments": "{}"}}]})";
const std::string kResult = R"({"role": "tool", "tool_call_id": "a", "content": "file text"})";
const std::string kAnswer =
    R"({"role": "assistant", "content": "done", "reasoning": "ANSWER-REASONING"})";
const std::string kUser2 = R"({"role": "user", "content": "second question"})";

std::string Body(std::initializer_list<std::string> msgs, const std::string& tools = kTools) {
  std::string s = R"({"messages": [)";
  bool first = true;
  for (const std::string& m : msgs) {
    if (!first) s += ", ";
    s += m;
    first = false;
  }
  return s + "], " + tools + "}";
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

TEST(RenderFamilies, AutoPicksTheFamilyLayout) {
  for (const char* m :
       {"deepseek-chat", "deepseek-ai/DeepSeek-V3.1", "deepseek-reasoner",
        "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "DeepSeek-R1-Distill-Llama-70B"})
    EXPECT_EQ(ChooseLayout(Layout::kAuto, m, false), Layout::kNoTools) << m;
  for (const char* m : {"mistralai/Mistral-Small-3.2-24B-Instruct-2506", "mistral-large-latest",
                        "magistral-medium", "devstral-small", "mixtral-8x7b"})
    EXPECT_EQ(ChooseLayout(Layout::kAuto, m, false), Layout::kToolsBeforeLastUser) << m;
  for (const char* m : {"mistralai/Mistral-Nemo-Instruct-2407", "open-mistral-nemo"})
    EXPECT_EQ(ChooseLayout(Layout::kAuto, m, false), Layout::kSystemInLastUser) << m;
  EXPECT_EQ(ChooseLayout(Layout::kAuto, "openai/gpt-oss-120b", false), Layout::kHarmony);
  EXPECT_EQ(ChooseLayout(Layout::kAuto, "gpt-4o", false), Layout::kToolsFirst);
  EXPECT_EQ(ChooseLayout(Layout::kAuto, "glm-4.6", false), Layout::kToolsFirst);
  EXPECT_EQ(ChooseReasoning("Qwen/Qwen3-8B"), Reasoning::kCurrentTurn);
  EXPECT_EQ(ChooseReasoning("zai-org/GLM-4.6"), Reasoning::kCurrentTurn);
  EXPECT_EQ(ChooseReasoning("qwen2.5-72b-instruct"), Reasoning::kNever);
  EXPECT_EQ(ChooseReasoning("deepseek-r1-distill-qwen3-8b"), Reasoning::kNever);
  for (const char* n : {"no-tools", "tools-before-last-user", "system-in-last-user", "harmony"})
    EXPECT_STREQ(LayoutName(ParseLayoutName(n).value()), n);
}

TEST(RenderFamilies, DeepSeekRendersNoTools) {
  const std::string a = Render(Body({kSystem, kUser1}), "deepseek-chat");
  EXPECT_EQ(a.find("read_file"), std::string::npos);
  EXPECT_EQ(a.find("# Tools"), std::string::npos);
  // A tool-set change therefore keeps the whole prefix.
  EXPECT_EQ(a, Render(Body({kSystem, kUser1}, kOtherTools), "deepseek-chat"));
  EXPECT_NE(Render(Body({kSystem, kUser1}), "glm-4.6"),
            Render(Body({kSystem, kUser1}, kOtherTools), "glm-4.6"));
}

TEST(RenderFamilies, Qwen3KeepsReasoningInsideTheCurrentToolLoop) {
  for (const char* model : {"Qwen/Qwen3-32B", "glm-4.6"}) {
    const std::string loop = Render(Body({kSystem, kUser1, kCall, kResult}), model);
    EXPECT_NE(loop.find("<think>\nLOOP-REASONING\n</think>\n\n"), std::string::npos) << model;
    EXPECT_EQ(loop.find("LOOP-THINKING"), std::string::npos) << model;
    EXPECT_EQ(loop.find("DROPPED-BY-VLLM"), std::string::npos) << model;
    // The next step of the same loop extends that text: the reasoning is still there.
    const std::string next = Render(Body({kSystem, kUser1, kCall, kResult, kCall, kResult}), model);
    EXPECT_TRUE(StartsWith(next, loop)) << model;
    // At the next user message the loop's reasoning (and the answer's) is dropped: the prefix
    // breaks at the first reasoning block.
    const std::string turn2 =
        Render(Body({kSystem, kUser1, kCall, kResult, kAnswer, kUser2}), model);
    EXPECT_EQ(turn2.find("REASONING"), std::string::npos) << model;
    EXPECT_FALSE(StartsWith(turn2, loop)) << model;
    EXPECT_TRUE(StartsWith(turn2, loop.substr(0, loop.find("<think>")))) << model;
  }
  // Qwen2.5 (and every family without the rule) never renders reasoning.
  EXPECT_EQ(Render(Body({kSystem, kUser1, kCall, kResult}), "qwen2.5-7b").find("REASONING"),
            std::string::npos);
}

TEST(RenderFamilies, MistralToolsGoJustBeforeTheLastUserMessage) {
  const char* model = "mistral-small-latest";
  const std::string t1 = Render(Body({kSystem, kUser1}), model);
  const std::string t2 = Render(Body({kSystem, kUser1, kCall, kResult, kAnswer, kUser2}), model);
  EXPECT_TRUE(StartsWith(t1, "<|im_start|>system\nSYS-PROMPT<|im_end|>\n<|im_start|>tools\n"));
  const size_t tools = t2.find("<|im_start|>tools\n");
  ASSERT_NE(tools, std::string::npos);
  EXPECT_EQ(t2.find("<|im_start|>tools\n", tools + 1), std::string::npos);  // once
  EXPECT_EQ(t2.compare(t2.find("<|im_end|>\n", tools) + 11, 22, "<|im_start|>user\nsecon"), 0);
  EXPECT_LT(t2.find("first question"), tools);
  // Within one tool loop the last user message stays put, so the prefix extends...
  EXPECT_TRUE(StartsWith(Render(Body({kSystem, kUser1, kCall, kResult}), model), t1));
  // ...and the next user turn moves the tools: turn 2 shares turn 1 only up to the tools.
  EXPECT_FALSE(StartsWith(t2, t1));
  EXPECT_TRUE(StartsWith(t2, t1.substr(0, t1.find("<|im_start|>tools"))));
}

TEST(RenderFamilies, NemoPutsTheSystemPromptOnlyIntoAFinalUserMessage) {
  const char* model = "mistral-nemo-instruct-2407";
  const std::string ends_user = Render(Body({kSystem, kUser1}), model);
  EXPECT_EQ(ends_user.find("<|im_start|>system"), std::string::npos);
  EXPECT_NE(ends_user.find("<|im_start|>user\nSYS-PROMPT\n\nfirst question<|im_end|>"),
            std::string::npos);
  const std::string in_loop = Render(Body({kSystem, kUser1, kCall, kResult}), model);
  EXPECT_EQ(in_loop.find("SYS-PROMPT"), std::string::npos);  // not the last message: not rendered
  EXPECT_NE(in_loop.find("<|im_start|>user\nfirst question<|im_end|>"), std::string::npos);
  const std::string turn2 = Render(Body({kSystem, kUser1, kCall, kResult, kAnswer, kUser2}), model);
  EXPECT_NE(turn2.find("<|im_start|>user\nSYS-PROMPT\n\nsecond question<|im_end|>"),
            std::string::npos);
  EXPECT_EQ(turn2.find("SYS-PROMPT"), turn2.rfind("SYS-PROMPT"));
}

TEST(RenderFamilies, GptOssDateLineFirstCallOnlyNoReasoning) {
  const char* model = "gpt-oss-120b";
  const int64_t day = 1718000000;  // 2024-06-10 06:13:20 UTC
  const std::string a = Render(Body({kSystem, kUser1, kCall, kResult}), model, day);
  EXPECT_TRUE(StartsWith(a, "<|im_start|>system\nCurrent date: 2024-06-10<|im_end|>\n"));
  EXPECT_EQ(a, Render(Body({kSystem, kUser1, kCall, kResult}), model, day + 3600));  // same day
  const std::string next_day = Render(Body({kSystem, kUser1, kCall, kResult}), model, day + 86400);
  EXPECT_TRUE(StartsWith(next_day, "<|im_start|>system\nCurrent date: 2024-06-11"));
  EXPECT_EQ(Render(Body({kUser1}), model),
            "<|im_start|>system\nCurrent date: 1970-01-01<|im_end|>\n"
            "<|im_start|>developer\n# Tools\n\nYou may call one or more functions to assist with "
            "the user query.\n\nYou are provided with function signatures within <tools></tools> "
            "XML tags:\n<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"read_file\", "
            "\"parameters\": {\"type\": \"object\"}}}\n</tools>\n\nFor each function call, return "
            "a json object with function name and arguments within <tool_call></tool_call> XML "
            "tags.<|im_end|>\n<|im_start|>user\nfirst question<|im_end|>\n");
  EXPECT_NE(a.find("read_file\", \"arguments\""), std::string::npos);
  EXPECT_EQ(a.find("SECOND-CALL"), std::string::npos);  // only the first of parallel calls
  // The template reads `thinking`, which vLLM drops; reasoning reaches it under other names only.
  EXPECT_EQ(a.find("THINKING"), std::string::npos);
  EXPECT_EQ(a.find("REASONING"), std::string::npos);
  EXPECT_EQ(a.find("<think>"), std::string::npos);
  const std::string turn2 =
      Render(Body({kSystem, kUser1, kCall, kResult, kAnswer, kUser2}), model, day);
  EXPECT_EQ(turn2.find("SECOND-CALL"), std::string::npos);
  // The system prompt goes into the developer block with the tools.
  EXPECT_NE(a.find("<|im_start|>developer\nSYS-PROMPT\n\n# Tools"), std::string::npos);
}

TEST(RenderFamilies, ForcedLayoutKeepsTheModelsReasoningRule) {
  const std::string b = Body({kSystem, kUser1, kCall, kResult});
  EXPECT_NE(Render(b, "qwen3-8b", 0, Layout::kNoTools).find("LOOP-REASONING"), std::string::npos);
  EXPECT_EQ(Render(b, "llama-3.1", 0, Layout::kNoTools).find("LOOP-REASONING"), std::string::npos);
}

}  // namespace
}  // namespace ltl
