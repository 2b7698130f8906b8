// ModelChatTemplate (--chat-template): tokenizer_config.json with one or several named templates,
// special tokens (plain and AddedToken objects), a .jinja file with the tokenizer_config.json
// next to it, the request's own time in strftime_now, the conversation and tool spans, and skip
// reasons that carry the template's message but never request text. Expected texts are written
// out by hand from the templates below.
#include "render/model_chat_template.h"

#include <gtest/gtest.h>
#include <simdjson.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace ltl {
namespace {

struct Rendered {
  bool ok = false;
  RenderedPrompt prompt;
  std::string reason;
};

Rendered RenderBody(const ModelChatTemplate& m, const std::string& body, int64_t now = 0) {
  simdjson::dom::parser p;
  simdjson::dom::element doc = p.parse(body).value();
  ModelTemplateScratch scratch;
  Rendered r;
  r.ok = m.Render(doc, now, &scratch, &r.prompt, &r.reason);
  return r;
}

const char* kNamedConfig = R"({
  "bos_token": {"__type": "AddedToken", "content": "<B>", "lstrip": false},
  "eos_token": "<E>",
  "chat_template": [
    {"name": "default", "template": "{{ bos_token }}{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}{{ eos_token }}"},
    {"name": "tool_use", "template": "{{ bos_token }}T:{% for t in tools %}{{ t.function.name }};{% endfor %}{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}"}
  ]})";

TEST(ModelChatTemplate, NamedTemplatesChosenAsTransformersDoes) {
  auto m = ModelChatTemplate::FromTokenizerConfig(kNamedConfig, "cfg.json");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m.value()->description(), "cfg.json (default, tool_use)");
  Rendered plain = RenderBody(*m.value(), R"({"messages": [{"role": "user", "content": "hi"}]})");
  ASSERT_TRUE(plain.ok) << plain.reason;
  EXPECT_EQ(plain.prompt.text, "<B>[user]hi<E>");
  // Empty tools are no tools (vLLM passes None), so the default template.
  Rendered empty = RenderBody(*m.value(), R"({"messages": [{"role": "user", "content": "hi"}],
                                               "tools": []})");
  EXPECT_EQ(empty.prompt.text, "<B>[user]hi<E>");
  Rendered tools = RenderBody(*m.value(), R"({"messages": [{"role": "user", "content": "hi"}],
      "tools": [{"type": "function", "function": {"name": "f"}},
                {"type": "function", "function": {"name": "g"}}]})");
  ASSERT_TRUE(tools.ok) << tools.reason;
  EXPECT_EQ(tools.prompt.text, "<B>T:f;g;[user]hi");
  // The tool span covers exactly the rendered tool names.
  EXPECT_EQ(tools.prompt.text.substr(tools.prompt.tools_begin,
                                     tools.prompt.tools_end - tools.prompt.tools_begin),
            "f;g");
}

TEST(ModelChatTemplate, RefusesConfigsWithoutUsableTemplate) {
  EXPECT_FALSE(ModelChatTemplate::FromTokenizerConfig(R"({"eos_token": "x"})", "c").ok());
  EXPECT_FALSE(ModelChatTemplate::FromTokenizerConfig(
                   R"({"chat_template": [{"name": "a", "template": "x"},
                                         {"name": "b", "template": "y"}]})",
                   "c")
                   .ok());
  auto bad = ModelChatTemplate::FromTokenizerConfig(R"({"chat_template": "{% if %}"})", "c.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("c.json"), std::string::npos);
  EXPECT_NE(bad.status().message().find("line 1"), std::string::npos);
}

TEST(ModelChatTemplate, SpansStrftimeAndSpecialTokens) {
  auto m = ModelChatTemplate::FromJinja(
      "{{ bos_token }}{{ strftime_now('%Y-%m-%d') }}|{% for m in messages %}<{{ m.role }}>"
      "{{ m.content }}{% endfor %}",
      R"({"bos_token": "<s>"})", "t.jinja");
  ASSERT_TRUE(m.ok()) << m.status().message();
  Rendered r = RenderBody(*m.value(), R"({"messages": [{"role": "system", "content": "SYS"},
      {"role": "user", "content": "U1"}, {"role": "assistant", "content": "A1"},
      {"role": "user", "content": "U2"}]})",
                          86400 * 365);  // 1971-01-01
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(r.prompt.text, "<s>1971-01-01|<system>SYS<user>U1<assistant>A1<user>U2");
  std::string spans;
  for (auto [b, e] : r.prompt.conversation_spans) spans += r.prompt.text.substr(b, e - b) + ",";
  // The role strings are request data too, so they belong to their message's segment.
  EXPECT_NE(spans.find("SYS"), std::string::npos);
  EXPECT_NE(spans.find("U1"), std::string::npos);
  EXPECT_EQ(spans.find("U2"), std::string::npos);
  EXPECT_EQ(spans.find("A1"), std::string::npos);
}

TEST(ModelChatTemplate, SkipReasonsCarryNoRequestText) {
  auto raising = ModelChatTemplate::FromJinja(
      "{% for m in messages %}{% if m.role != 'user' %}"
      "{{ raise_exception('Unknown role ' + m.role + ' in turn') }}{% endif %}{% endfor %}",
      "{}", "t.jinja");
  ASSERT_TRUE(raising.ok());
  Rendered r =
      RenderBody(*raising.value(), R"({"messages": [{"role": "secretrole", "content": "x"}]})");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.reason.find("secretrole"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("Unknown role \u2026 in turn"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("line 1:"), std::string::npos) << r.reason;

  auto typed = ModelChatTemplate::FromJinja("{{ messages[0].content + 1 }}", "{}", "t.jinja");
  ASSERT_TRUE(typed.ok());
  r = RenderBody(*typed.value(), R"({"messages": [{"role": "user", "content": "SECRET"}]})");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.reason.find("SECRET"), std::string::npos) << r.reason;
  EXPECT_EQ(r.reason, "chat template error: type error (line 1:24)") << r.reason;

  // Refused before the template (vLLM answers 400): a fixed reason.
  r = RenderBody(*typed.value(), R"({"messages": [{"role": "user", "content": [{"x": 1}]}]})");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.reason,
            "request refused before the chat template: missing 'type' field in content part");
}

TEST(ModelChatTemplate, JinjaFileTakesSpecialTokensFromTheConfigNextToIt) {
  char dir[] = "/tmp/ltl-mct-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string d = dir;
  std::ofstream(d + "/chat_template.jinja") << "{{ bos_token }}{{ messages[0].content }}";
  std::ofstream(d + "/tokenizer_config.json") << R"({"bos_token": "<|begin|>"})";
  auto m = ModelChatTemplate::Load(d + "/chat_template.jinja");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(
      RenderBody(*m.value(), R"({"messages": [{"role": "user", "content": "q"}]})").prompt.text,
      "<|begin|>q");
  // The config itself, with its chat_template.
  std::ofstream(d + "/tokenizer_config.json")
      << R"({"bos_token": "<b>", "chat_template": "{{ bos_token }}!"})";
  auto c = ModelChatTemplate::Load(d + "/tokenizer_config.json");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(RenderBody(*c.value(), R"({"messages": []})").prompt.text, "<b>!");
  EXPECT_FALSE(ModelChatTemplate::Load(d + "/missing.jinja").ok());
  // transformers' VERY_LARGE_INTEGER model_max_length (Llama 3.1, gpt-oss, Llama 2 configs) does
  // not fit 64 bits; the config still loads, for the .jinja next to it and by itself (an
  // integer-looking string and a real 20-digit-plus float stay as they are).
  std::ofstream(d + "/tokenizer_config.json")
      << R"({"model_max_length": 1000000000000000019884624838656, "x": "123456789012345678901",)"
      << R"( "y": 100000000000000000000.5, "bos_token": "<|begin|>",)"
      << R"( "chat_template": "{{ bos_token }}[{{ messages[0].content }}]"})";
  auto big = ModelChatTemplate::Load(d + "/chat_template.jinja");
  ASSERT_TRUE(big.ok()) << big.status().message();
  EXPECT_EQ(
      RenderBody(*big.value(), R"({"messages": [{"role": "user", "content": "q"}]})").prompt.text,
      "<|begin|>q");
  auto big_config = ModelChatTemplate::Load(d + "/tokenizer_config.json");
  ASSERT_TRUE(big_config.ok()) << big_config.status().message();
  EXPECT_EQ(RenderBody(*big_config.value(), R"({"messages": [{"role": "user", "content": "q"}]})")
                .prompt.text,
            "<|begin|>[q]");
  std::remove((d + "/chat_template.jinja").c_str());
  std::remove((d + "/tokenizer_config.json").c_str());
  rmdir(dir);
}

}  // namespace
}  // namespace ltl
