// The chat-template language against Jinja2: each case's expected output (or error) is what
// Python's Jinja2 3.1.2, configured as transformers configures it
// (tests/oracle/jinja_reference.py), printed for the same template and variables; they were
// produced by that script and checked by hand (Python str() of None/True/floats/containers, int vs
// float arithmetic, slicing with steps, `in`, tests, loop variables, loop controls, namespace(),
// macros and call blocks, filter blocks, block set, whitespace control with trim_blocks /
// lstrip_blocks, filters, str/dict methods, tojson options, raise_exception, strftime_now at a
// given instant, sandbox refusals). Plus the segment map of a rendered request and error positions.
#include <simdjson.h>

#include <gtest/gtest.h>

#include <string>

#include "jinja/chat_template.h"
#include "jinja/json.h"
#include "jinja/template_messages.h"

namespace ltl {
namespace {

struct Case {
  const char* tmpl;
  const char* vars;
  bool ok;
  bool parse_error;
  const char* expected;  // text, or the error message
};

const Case
    kCases
        [] =
            {
                {R"J({{ none }}|{{ true }}|{{ false }}|{{ 1 }}|{{ 1.0 }}|{{ 1e20 }}|{{ 1.5e-5 }}|{{ [1, 'a', none] }}|{{ {'k': "it's"} }}|{{ (1,) }})J",
                 R"J({})J", true, false,
                 R"J(None|True|False|1|1.0|1e+20|1.5e-05|[1, 'a', None]|{'k': "it's"}|(1,))J"},
                {R"J({{ 7 / 2 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ -7 % 3 }} {{ 2 ** 10 }} {{ 10 / 5 }} {{ 1 + 1.5 }} {{ 'ab' * 2 }} {{ 3 - true }})J",
                 R"J({})J", true, false, R"J(3.5 3 -4 2 1024 2.0 2.5 abab 2)J"},
                {R"J({{ 'héllo'[1:3] }}|{{ 'abcdef'[::-1] }}|{{ [1,2,3,4,5][1::2] }}|{{ 'abc'[-1] }}|{{ [1,2,3][5] }}|{{ 'abcdef'[-2:] }}|{{ 'abcdef'[4:1:-1] }})J",
                 R"J({})J", true, false, R"J(él|fedcba|[2, 4]|c||ef|edc)J"},
                {R"J({{ 'b' in 'abc' }} {{ 2 in [1,2] }} {{ 'k' in {'k':1} }} {{ 'z' not in 'abc' }} {{ x is defined }} {{ x is undefined }} {{ none is none }} {{ 1 is number }} {{ true is number }} {{ true is integer }} {{ 'a' is string }} {{ {} is mapping }} {{ [] is iterable }} {{ 'a' is sequence }} {{ 3 is odd }} {{ 4 is even }} {{ 9 is divisibleby(3) }} {{ true is boolean }} {{ false is false }})J",
                 R"J({})J", true, false,
                 R"J(True True True True False True True True True False True True True True True True True True True)J"},
                {R"J({% for m in ['a','b','c'] %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.first }}{{ loop.last }}{{ loop.length }}{{ loop.previtem }}{{ loop.nextitem }};{% endfor %})J",
                 R"J({})J", true, false, R"J(103TrueFalse3b;212FalseFalse3ac;321FalseTrue3b;)J"},
                {R"J({% for x in [] %}x{% else %}empty{% endfor %}|{% for x in [1,2,3,4] if x is even %}{{ x }}{{ loop.length }}{% endfor %}|{% for k, v in {'a': 1, 'b': 2}.items() %}{{ k }}={{ v }},{% endfor %})J",
                 R"J({})J", true, false, R"J(empty|2242|a=1,b=2,)J"},
                {R"J({% for x in [1,2,3,4,5] %}{% if x == 2 %}{% continue %}{% endif %}{% if x == 4 %}{% break %}{% endif %}{{ x }}{% endfor %})J",
                 R"J({})J", true, false, R"J(13)J"},
                {R"J({% set ns = namespace(n=0, s='') %}{% for x in [1,2,3] %}{% set ns.n = ns.n + x %}{% set ns.s = ns.s ~ x %}{% endfor %}{{ ns.n }} {{ ns.s }}|{% set y = 1 %}{% for x in [1] %}{% set y = 5 %}{% endfor %}{{ y }})J",
                 R"J({})J", true, false, R"J(6 123|1)J"},
                {R"J({% macro greet(name, punct='!') %}Hi {{ name }}{{ punct }}{% endmacro %}{{ greet('Ann') }}|{{ greet('Bo', punct='?') }}|{% macro wrap() %}[{{ caller() }}]{% endmacro %}{% call wrap() %}inner{% endcall %})J",
                 R"J({})J", true, false, R"J(Hi Ann!|Hi Bo?|[inner])J"},
                {R"J({% filter upper %}abc {{ 'd' }}{% endfilter %}|{% set block %}  x  {% endset %}[{{ block }}]|{% set t | trim %}  y  {% endset %}[{{ t }}])J",
                 R"J({})J", true, false, R"J(ABC D|[  x  ]|[y])J"},
                {R"J(a
  {%- if true %}
  b
  {% endif %}
c {{- ' d ' -}} e
{# comment #}
f
    {% if true %}g{% endif %}
)J",
                 R"J({})J", true, false, R"J(a  b
c d e
f
g)J"},
                {R"J({{ '  x  '|trim }}|{{ 'abc'|upper }}|{{ 'ABC'|lower }}|{{ 'hello world-foo'|title }}|{{ 'hELLO'|capitalize }}|{{ 'aXbX'|replace('X', '-') }}|{{ [1,2]|join(', ') }}|{{ x|default('dflt') }}|{{ [3,1,2]|first }}|{{ [3,1,2]|last }}|{{ 'ab'|list }}|{{ [3,1,2]|sort }}|{{ [1,2,3]|sum }}|{{ [1,1,2]|unique|list }}|{{ [1,2,3]|reverse|list }}|{{ 'abc'|reverse }}|{{ [1,2,3]|length }}|{{ 'abc'|count }}|{{ 2.5|round }}|{{ 3.14159|round(2) }}|{{ -3|abs }}|{{ '42'|int }}|{{ '4.5'|float }}|{{ 3|string }}|{{ 'x'|safe }})J",
                 R"J({})J", true, false,
                 R"J(x|ABC|abc|Hello World-Foo|Hello|a-b-|1, 2|dflt|3|2|['a', 'b']|[1, 2, 3]|6|[1, 2]|[3, 2, 1]|cba|3|3|2.0|3.14|3|42|4.5|3|x)J"},
                {R"J({{ msgs|selectattr('role', 'equalto', 'user')|list|length }}|{{ msgs|rejectattr('role', 'equalto', 'user')|map(attribute='role')|join(',') }}|{{ msgs|map(attribute='role')|list }}|{{ [1,2,3,4]|select('odd')|list }}|{{ [1,2,3]|reject('even')|list }}|{{ {'b': 1, 'a': 2}|dictsort }}|{{ {'a': 1}|items|list }})J",
                 R"J({"msgs": [{"role": "user"}, {"role": "assistant"}, {"role": "user"}]})J", true,
                 false,
                 R"J(2|assistant|['user', 'assistant', 'user']|[1, 3]|[1, 3]|[('a', 2), ('b', 1)]|[('a', 1)])J"},
                {R"J({{ 'a\nb'|indent(2) }}|{{ 'a\nb\n\nc'|indent(2, true) }})J", R"J({})J", true,
                 false, R"J(a
  b|  a
  b

  c)J"},
                {R"J({{ d|tojson }}|{{ d|tojson(indent=2) }}|{{ d|tojson(separators=(',', ':')) }}|{{ d|tojson(sort_keys=true) }}|{{ 'é"<'|tojson }}|{{ 'é'|tojson(ensure_ascii=true) }}|{{ [1.0, 1e-05, none, true]|tojson }})J",
                 R"J({"d": {"z": 1, "a": [1, 2.5, "x"], "n": null}})J", true, false,
                 R"J({"z": 1, "a": [1, 2.5, "x"], "n": null}|{
  "z": 1,
  "a": [
    1,
    2.5,
    "x"
  ],
  "n": null
}|{"z":1,"a":[1,2.5,"x"],"n":null}|{"a": [1, 2.5, "x"], "n": null, "z": 1}|"é\"<"|"\u00e9"|[1.0, 1e-05, null, true])J"},
                {R"J({{ 'a,b,,c'.split(',') }}|{{ '  a  b '.split() }}|{{ 'a b c'.split(' ', 1) }}|{{ 'a,b,c'.rsplit(',', 1) }}|{{ 'xxhixx'.strip('x') }}|{{ '\n\nhi\n'.lstrip('\n') }}|{{ 'hi  '.rstrip() }}|{{ 'abc'.startswith('ab') }}|{{ 'abc'.endswith(('x', 'c')) }}|{{ 'aaa'.replace('a', 'b', 2) }}|{{ 'hello'.find('l') }}|{{ 'hello'.count('l') }}|{{ 'Hi {}, {name}'.format('A', name='B') }}|{{ 'ab'.upper() }}|{{ 'x'.join(['1','2']) }})J",
                 R"J({})J", true, false,
                 R"J(['a', 'b', '', 'c']|['a', 'b']|['a', 'b c']|['a,b', 'c']|hi|hi
|hi|True|True|bba|2|2|Hi A, B|AB|1x2)J"},
                {R"J({{ d.get('a') }}|{{ d.get('z', 'no') }}|{{ d.keys()|list }}|{{ d.values()|list }}|{{ d['a'] }}|{{ d.a }}|{{ d.missing is defined }})J",
                 R"J({"d": {"a": 1, "b": 2}})J", true, false,
                 R"J(1|no|['a', 'b']|[1, 2]|1|1|False)J"},
                {R"J({{ 1 if true else 2 }}|{{ 'yes' if none else 'no' }}|{{ [1, 2] + [3] }}|{{ 'a' ~ 1 ~ none }}|{{ 1 < 2 < 3 }}|{{ not true or true and false }}|{{ (1, 2) == (1, 2) }}|{{ [1] == (1,) }}|{{ 1 == 1.0 }}|{{ 'a' < 'b' }})J",
                 R"J({})J", true, false,
                 R"J(1|no|[1, 2, 3]|a1None|True|False|True|False|True|True)J"},
                {R"J({{ raise_exception('bad request: ' ~ n) }})J", R"J({"n": 3})J", false, false,
                 R"J(bad request: 3)J"},
                {R"J({{ strftime_now('%Y-%m-%d %H:%M') }}|{{ strftime_now('%d %b %Y') }})J",
                 R"J({"__now__": 1721995200})J", true, false, R"J(2024-07-26 12:00|26 Jul 2024)J"},
                {R"J({{ x.y }})J", R"J({})J", false, false, R"J('x' is undefined)J"},
                {R"J({% set l = [] %}{{ l.append(1) }})J", R"J({})J", false, false,
                 R"J(access to attribute 'append' of 'list' object is unsafe.)J"},
                {R"J({{ 'a' + 1 }})J", R"J({})J", false, false,
                 R"J(can only concatenate str (not "int") to str)J"},
                {R"J({{ none|tojson }}{{ x|tojson }})J", R"J({})J", false, false,
                 R"J(Object of type Undefined is not JSON serializable)J"},
                {R"J({% for %})J", R"J({})J", false, true, R"J()J"},
};

TEST(ChatTemplateLanguage, MatchesJinja2) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.tmpl);
    auto parsed = ChatTemplate::Parse(c.tmpl);
    if (c.parse_error) {
      EXPECT_FALSE(parsed.ok());
      continue;
    }
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    simdjson::dom::parser parser;
    simdjson::dom::element vars;
    ASSERT_EQ(parser.parse(std::string(c.vars)).get(vars), simdjson::SUCCESS);
    ChatTemplateScratch scratch;
    ChatTemplateInput input;
    simdjson::dom::object obj = vars.get_object().value_unsafe();
    for (auto field : obj) {
      if (field.key == "__now__") {
        input.now_unix_seconds = field.value.get_int64().value_unsafe();
        continue;
      }
      input.Set(std::string(field.key), ct::FromDom(field.value, ct::kFraming, &scratch.arena));
    }
    bool ok = parsed.value()->Render(input, &scratch);
    EXPECT_EQ(ok, c.ok) << scratch.error.ToString();
    if (ok && c.ok) {
      EXPECT_EQ(scratch.text, c.expected);
    }
    if (!ok && !c.ok) {
      EXPECT_NE(scratch.error.message.find(c.expected), std::string::npos) << scratch.error.message;
    }
  }
}

TEST(ChatTemplateLanguage, ErrorsCarryLineAndColumn) {
  auto parsed = ChatTemplate::Parse("line one\n{% if x %}\n  {{ x.y + }}\n{% endif %}");
  ASSERT_FALSE(parsed.ok());
  EXPECT_NE(parsed.status().message().find("line 3:"), std::string::npos)
      << parsed.status().message();

  auto t = ChatTemplate::Parse(
      "a\n{% for m in messages %}\n{{ raise_exception('no ' ~ m) }}{% endfor %}");
  ASSERT_TRUE(t.ok());
  ChatTemplateScratch scratch;
  ChatTemplateInput input;
  ct::List* l = scratch.arena.New<ct::List>();
  l->Push(&scratch.arena, ct::Value::Str("x"));
  input.Set("messages", ct::Value::ListOf(l));
  ASSERT_FALSE(t.value()->Render(input, &scratch));
  EXPECT_EQ(scratch.error.kind, ct::ErrorKind::kRaised);
  EXPECT_EQ(scratch.error.message, "no x");  // the template's own message
  EXPECT_EQ(scratch.error.line, 3);
  EXPECT_EQ(scratch.error.column, 4);
}

TEST(ChatTemplateLanguage, ParsedTemplateRendersManyTimes) {
  auto t = ChatTemplate::Parse("{% for m in messages %}<{{ m }}>{% endfor %}");
  ASSERT_TRUE(t.ok());
  ChatTemplateScratch scratch;
  for (int round = 0; round < 3; ++round) {
    scratch.arena.Reset();
    ChatTemplateInput input;
    ct::List* l = scratch.arena.New<ct::List>();
    for (int i = 0; i <= round; ++i) l->Push(&scratch.arena, ct::Value::Int(i));
    input.Set("messages", ct::Value::ListOf(l));
    ASSERT_TRUE(t.value()->Render(input, &scratch));
    EXPECT_EQ(scratch.text, round == 0 ? "<0>" : round == 1 ? "<0><1>" : "<0><1><2>");
  }
}

// The segment map names which request part every rendered byte came from.
TEST(ChatTemplateSegments, NamesRequestParts) {
  const char* tmpl =
      "{% for tool in tools %}{{ tool | tojson }}\n{% endfor %}"
      "{% for m in messages %}<{{ m.role }}>{{ m.content }}"
      "{% for c in m.tool_calls or [] %}[{{ c.function.name }} {{ c.function.arguments | tojson "
      "}}]{% endfor %}"
      "{% if m.reasoning_content %}(r:{{ m.reasoning_content }}){% endif %}\n{% endfor %}";
  auto t = ChatTemplate::Parse(tmpl);
  ASSERT_TRUE(t.ok());
  const char* body = R"({"messages": [
    {"role": "system", "content": "SYS"},
    {"role": "user", "content": [{"type": "text", "text": "U1"}, {"type": "text", "text": "U2"}]},
    {"role": "assistant", "content": null, "reasoning": "RR", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "OUT"}],
    "tools": [{"type": "function", "function": {"name": "f", "description": "d"}}]})";
  simdjson::dom::parser parser, sp;
  simdjson::dom::element doc, special;
  ASSERT_EQ(parser.parse(std::string(body)).get(doc), simdjson::SUCCESS);
  ASSERT_EQ(sp.parse(std::string("{}")).get(special), simdjson::SUCCESS);
  ChatTemplateScratch scratch;
  ChatTemplateInput input;
  std::string reason;
  TemplateMessageOptions options;
  options.content_format = DetectContentFormat(*t.value());
  EXPECT_EQ(options.content_format, ContentFormat::kString);
  ASSERT_TRUE(BuildTemplateInput(doc, special, options, 0, &scratch, &input, &reason)) << reason;
  ASSERT_TRUE(t.value()->Render(input, &scratch)) << scratch.error.ToString();
  const std::string& text = scratch.text;
  EXPECT_EQ(text,
            "{\"type\": \"function\", \"function\": {\"name\": \"f\", \"description\": \"d\", "
            "\"parameters\": null}}\n"
            "<system>SYS<user>U1\nU2<assistant>[f {\"a\": 1}](r:RR)<tool>OUT");  // trim_blocks
  auto kind_at = [&](const std::string& needle) {
    size_t at = text.find(needle);
    EXPECT_NE(at, std::string::npos) << needle;
    return scratch.segments.segments[scratch.segments.SegmentAt(at)];
  };
  EXPECT_EQ(kind_at("\"description\"").kind, SegmentKind::kTools);
  EXPECT_EQ(kind_at("SYS").kind, SegmentKind::kSystem);
  EXPECT_EQ(kind_at("SYS").message, 0);
  Segment u2 = kind_at("U2");
  EXPECT_EQ(u2.kind, SegmentKind::kMessage);
  EXPECT_EQ(u2.role, SegmentRole::kUser);
  EXPECT_EQ(u2.message, 1);
  Segment call = kind_at("{\"a\": 1}");
  EXPECT_EQ(call.kind, SegmentKind::kToolCall);
  EXPECT_EQ(call.message, 2);
  EXPECT_EQ(call.index, 0);
  EXPECT_EQ(kind_at("RR").kind, SegmentKind::kReasoning);
  EXPECT_EQ(kind_at("OUT").kind, SegmentKind::kToolResult);
  EXPECT_EQ(kind_at("<system>").kind, SegmentKind::kFraming);
  EXPECT_EQ(scratch.segments.SegmentAt(text.find("<assistant>")), 0u);  // '<' is framing
  EXPECT_EQ(
      scratch.segments.segments[scratch.segments.SegmentAt(text.find("<assistant>") + 1)].role,
      SegmentRole::kAssistant);  // the role value is the message's
}

TEST(ChatTemplateSegments, ContentFormatDetection) {
  auto s = ChatTemplate::Parse("{% for m in messages %}{{ m.content }}{% endfor %}");
  auto o = ChatTemplate::Parse(
      "{% set loop_messages = messages[1:] %}{% for m in loop_messages %}"
      "{% for part in m['content'] %}{{ part.text }}{% endfor %}{% endfor %}");
  ASSERT_TRUE(s.ok() && o.ok());
  EXPECT_EQ(DetectContentFormat(*s.value()), ContentFormat::kString);
  EXPECT_EQ(DetectContentFormat(*o.value()), ContentFormat::kOpenAI);
}

}  // namespace
}  // namespace ltl
