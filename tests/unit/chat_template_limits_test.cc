// The chat-template engine's limits against hostile templates (issue 35, items 2, 3, 4, 7, 9):
// each case crashed the process, aborted it with an uncaught exception, leaked request text into
// a report, or took gigabytes or seconds before. Expected outputs of the cases Jinja2 renders were
// printed by Debian's Jinja2 3.1 in an ImmutableSandboxedEnvironment (trim_blocks, lstrip_blocks)
// for the same templates; where Jinja2 raises (RecursionError, ValueError) the engine must fail
// the render cleanly with an error of the named kind.
#include <simdjson.h>

#include <gtest/gtest.h>

#include <string>

#include "jinja/chat_template.h"
#include "jinja/json.h"

namespace ltl {
namespace {

struct Rendered {
  bool parsed = false;
  bool ok = false;
  std::string text;  // the output, or the parse error
  ChatTemplateError error;
  size_t arena_used = 0;
};

Rendered RenderT(const std::string& tmpl, const char* vars = "{}", size_t max_bytes = 0,
                 uint64_t max_steps = 0) {
  Rendered r;
  auto parsed = ChatTemplate::Parse(tmpl);
  if (!parsed.ok()) {
    r.text = parsed.status().message();
    return r;
  }
  r.parsed = true;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  EXPECT_EQ(parser.parse(std::string(vars)).get(doc), simdjson::SUCCESS);
  ChatTemplateScratch scratch;
  ChatTemplateInput input;
  if (max_bytes) input.max_bytes = max_bytes;
  if (max_steps) input.max_steps = max_steps;
  simdjson::dom::object obj = doc.get_object().value_unsafe();
  for (auto field : obj)
    input.Set(std::string(field.key), ct::FromDom(field.value, ct::kFraming, &scratch.arena));
  r.ok = parsed.value()->Render(input, &scratch);
  r.text = r.ok ? scratch.text : scratch.error.message;
  r.error = scratch.error;
  r.arena_used = scratch.arena.used();
  return r;
}

std::string Repeated(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// Item 2: printing a namespace that holds itself recursed until the stack overflowed.
TEST(ChatTemplateLimits, SelfContainingNamespacePrintsLikePython) {
  Rendered r = RenderT("{% set ns = namespace(a=1) %}{% set ns.a = ns %}{{ ns }}");
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_EQ(r.text, "<Namespace {'a': <Namespace {...}>}>");
  r = RenderT(
      "{% set ns = namespace(a=1) %}{% set ns.a = [ns] %}{{ ns.a }}|{{ [ns]|join(',') }}|"
      "{{ ns|string }}");
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_EQ(r.text,
            "[<Namespace {'a': [...]}>]|<Namespace {'a': [<Namespace {...}>]}>|"
            "<Namespace {'a': [<Namespace {...}>]}>");
  // Comparing it with itself is identity, as in Python.
  r = RenderT("{% set ns = namespace(a=1) %}{% set ns.a = [ns] %}{{ ns.a == ns.a }}");
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_EQ(r.text, "True");
}

TEST(ChatTemplateLimits, DeeplyNestedValuesFailCleanly) {
  // 100,000 lists inside each other, built by a loop: Python's repr raises RecursionError.
  const std::string build =
      "{% set ns = namespace(l=[], m=[]) %}{% for i in range(100000) %}{% set ns.l = [ns.l] %}"
      "{% set ns.m = [ns.m] %}{% endfor %}";
  for (const char* use : {"{{ ns.l }}", "{{ ns.l|string }}", "{{ ns.l == ns.m }}",
                          "{{ ns.l < ns.m }}", "{{ ns.l|tojson }}"}) {
    SCOPED_TRACE(use);
    Rendered r = RenderT(build + use);
    ASSERT_TRUE(r.parsed) << r.text;
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.error.kind, ct::ErrorKind::kLimit) << r.text;
  }
}

// Item 3: deep syntax crashed the parser (recursion) or the evaluator (a deep tree built by
// loops). Jinja2 raises RecursionError for each; here each is a syntax error at load.
TEST(ChatTemplateLimits, DeepSyntaxIsASyntaxError) {
  const std::string cases[] = {
      "{{ " + Repeated("(", 10000) + "1" + Repeated(")", 10000) + " }}",
      "{{ 1" + Repeated("+1", 50000) + " }}",
      Repeated("{% if true %}", 20000) + "x" + Repeated("{% endif %}", 20000),
      "{{ 'a'" + Repeated("|trim", 200000) + " }}",
      "{{ " + Repeated("not ", 200000) + "true }}",
      "{{ " + Repeated("-", 100000) + "1 }}",
      "{{ " + Repeated("[", 10000) + Repeated("]", 10000) + " }}",
      "{{ 1" + Repeated(" if true else 2", 20000) + " }}",
      "{{ x" + Repeated("[0]", 50000) + " }}",
  };
  for (const std::string& t : cases) {
    SCOPED_TRACE(t.substr(0, 40));
    Rendered r = RenderT(t);
    EXPECT_FALSE(r.parsed);
    EXPECT_NE(r.text.find("nested too deeply"), std::string::npos) << r.text;
  }
  // What real templates nest stays well inside the limits.
  Rendered r = RenderT("{{ " + Repeated("(", 100) + "1" + Repeated(")", 100) + " }}|{{ 1" +
                       Repeated("+1", 500) + " }}|" + Repeated("{% if true %}", 200) + "x" +
                       Repeated("{% endif %}", 200));
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_EQ(r.text, "1|501|x");
}

TEST(ChatTemplateLimits, DeepEvaluationFailsCleanly) {
  // Macro calls 150 deep, each under a chain of 30 additions: 4,500 levels of evaluation.
  Rendered r = RenderT("{% macro f(n) %}{% if n < 150 %}{{ f(n + 1)" + Repeated("+0", 30) +
                       " }}{% endif %}{% endmacro %}{{ f(0) }}");
  ASSERT_TRUE(r.parsed) << r.text;
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.kind, ct::ErrorKind::kLimit);
  EXPECT_NE(r.text.find("nested too deeply"), std::string::npos) << r.text;
}

// Item 4: over-long digit strings threw an uncaught std::out_of_range (the process aborted).
TEST(ChatTemplateLimits, OverlongDigitStringsAreErrorsLikePython) {
  Rendered r = RenderT("{{ '%99999999999999999999s' % 1 }}");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.text, "width too big");
  r = RenderT("{{ '%.99999999999999999999s' % 1 }}");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.text, "precision too big");
  r = RenderT("{{ '{99999999999999999999}'.format() }}");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.text, "Too many decimal digits in format string");
  r = RenderT("{{ '{:99999999999999999999}'.format('a') }}");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.text, "Too many decimal digits in format string");
  // Jinja2 reads the part as an int that indexes nothing: undefined, so map gives Undefineds.
  r = RenderT("{{ [[1],[2]]|map(attribute='99999999999999999999')|list|length }}");
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_EQ(r.text, "2");
  r = RenderT("{{ [[1],[2]]|sort(attribute='99999999999999999999')|list }}");
  EXPECT_TRUE(r.parsed);  // an error or a result, never an abort
}

// Found by the chat_template fuzzer: '%d' of an infinite float was an undefined cast, and the
// odd/even/divisibleby tests cast floats to integers (3.5 was odd). Jinja2's tests are `value % 2
// == 1` etc. with Python's modulo; Python's '%d' raises for NaN and infinities (expected values
// from Debian's python3-jinja2 3.1, infinities passed as a variable there: Jinja2 folds the
// constant 1e308 * 10 into source code as `inf`, a NameError of its own).
TEST(ChatTemplateLimits, FloatsInIntegerPlacesAreLikePython) {
  Rendered r = RenderT(
      "{{ 3.5 is odd }}|{{ 3.0 is odd }}|{{ -3 is odd }}|{{ 4.0 is even }}|{{ (1e308 * 10) is "
      "even }}|{{ (1e308 * 10) is odd }}|{{ 7.5 is divisibleby 2.5 }}|{{ 9 is divisibleby 3 }}|"
      "{{ -2 is even }}|{{ '%d|%i' % (3.99, -2.5) }}");
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_EQ(r.text, "False|True|True|True|False|False|True|True|True|3|-2");
  r = RenderT("{{ '%d' % (1e308 * 10) }}");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.text, "cannot convert float infinity to integer");
  r = RenderT("{{ '%d' % (1e308 * 10 - 1e308 * 10) }}");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.text, "cannot convert float NaN to integer");
  r = RenderT("{{ '%d' % 1e300 }}");  // Python prints all 301 digits; 64 bits cannot
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.text, "integer result exceeds 64 bits");
  r = RenderT("{{ 3 is divisibleby 0 }}");
  EXPECT_FALSE(r.ok);
  r = RenderT("{{ 3.0 is divisibleby 0 }}");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.text, "float modulo");
}

// Found by the chat_template fuzzer: a number's format spec in str.format was pasted into a printf
// format, so a spec with a '$' positional conversion (or %n, %s) made vsnprintf read or write
// arbitrary memory. The spec is now parsed and only its parts reach printf; what Python gives is
// from Debian's python3-jinja2 3.1 (Python's '-' sign is its default; printf's '-' left-aligned).
TEST(ChatTemplateLimits, FormatSpecsNeverReachPrintfAsText) {
  Rendered r = RenderT(
      "{{ '{:-5d}|{:+5d}|{: "
      "d}|{:05d}|{:.1%}|{:8.1%}|{:8.3f}|{:e}|{:g}|{:+.2e}|{:010.3f}'.format(3, "
      "3, 3, 3, 2.5, 0.5, 3, 2.5, 2.5, 3, 2.5) }}");
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_EQ(r.text,
            "    3|   +3| 3|00003|250.0%|   50.0%|   3.000|2.500000e+00|2.5|+3.00e+00|000002.500");
  r = RenderT("{{ '{:5%}'.format(2.5) }}");  // the width is smaller than the number
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_EQ(r.text, "250.000000%");
  // Python raises ValueError for each; the engine refuses them as unsupported, without printf.
  for (const char* t : {"{{ '{:1$s}'.format(3) }}", "{{ '{:%n}'.format(3) }}",
                        "{{ '{:%1$s%1$s%1$s%1$sd}'.format(3) }}", "{{ '{:.2d}'.format(3) }}",
                        "{{ '{:d}'.format(2.5) }}"}) {
    r = RenderT(t);
    EXPECT_FALSE(r.ok) << t;
    EXPECT_EQ(r.error.kind, ct::ErrorKind::kUnsupported) << t;
  }
}

// Item 9: limits on bytes and on work, per render.
TEST(ChatTemplateLimits, RepetitionIsFlatAndWideFormatsAreWhole) {
  Rendered r = RenderT("{{ ('x' * 16000000)|length }}");
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_EQ(r.text, "16000000");
  EXPECT_LT(r.arena_used, size_t{40} << 20);  // was 256 MiB of pieces (1 GB measured in all)
  // Python's output for these; a 512-byte buffer cut the first at 511 characters.
  r = RenderT("{{ '%.600d' % 1 }}|{{ '%0100d' % -7 }}|{{ '%5s|%-5s|' % ('ab', 'cd') }}");
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_EQ(r.text, std::string(599, '0') + "1|-" + std::string(98, '0') + "7|   ab|cd   |");
  r = RenderT("{{ '{:>8}'.format('ab') }}|{{ '{:08.3f}'.format(3.14159) }}");
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_EQ(r.text, "      ab|0003.142");
}

TEST(ChatTemplateLimits, ByteBudgetEndsTheRenderNamingIt) {
  const char* budget = "template allocated more than its byte budget of 512 MiB";
  // A 999,999,999-character number (4 s of CPU before, then cut to 511 characters).
  Rendered r = RenderT("{{ '%0999999999d' % 1 }}");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.kind, ct::ErrorKind::kLimit);
  EXPECT_EQ(r.text, budget);
  r = RenderT("{{ '{:0999999999d}'.format(1) }}");
  EXPECT_EQ(r.text, budget);
  r = RenderT("{{ '%999999999s' % 1 }}");
  EXPECT_EQ(r.text, budget);
  // 200 MB strings under the 256 MiB cap, three at once.
  r = RenderT("{% set a = 'x' * 200000000 %}{% set b = a ~ 'y' %}{{ (a * 1) ~ (b|upper) ~ a }}");
  EXPECT_EQ(r.text, budget);
  // An empty loop of 10^10 iterations holds a frame per iteration (7.5 GB for 30M before).
  r = RenderT("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
              "{}", size_t{64} << 20);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.text, "template allocated more than its byte budget of 64 MiB");
  // Output counts: a 1 MB string printed 1,000 times.
  r = RenderT("{% set big = 'x' * 1000000 %}{% for i in range(1000) %}{{ big }}{% endfor %}", "{}",
              size_t{64} << 20);
  EXPECT_EQ(r.text, "template allocated more than its byte budget of 64 MiB");
  // A printed list of one large string repeated is built in a temporary: it counts too.
  r = RenderT("{% set big = ['x' * 1000000] * 1000 %}{{ big }}", "{}", size_t{64} << 20);
  EXPECT_EQ(r.text, "template allocated more than its byte budget of 64 MiB");
  // The same render under the budget works, and the budget is per render.
  r = RenderT("{% set big = 'x' * 1000000 %}{% for i in range(10) %}{{ big }}{% endfor %}", "{}",
              size_t{64} << 20);
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_EQ(r.text.size(), 10000000u);
}

// Found by the chat_template fuzzer with its issue-35 dictionary: padding and grouping sized by an
// argument were built before the budget saw them (`'x'|center(99999999)` ran a character at a
// time past libFuzzer's 20 s limit, `indent(99999999)` built a 97 MB indentation per line;
// `batch(n, fill)` pads to n values, `slice(n)` makes n groups).
// Ordinary sizes render as Jinja2 3.1 prints them (expected strings from Debian's python3-jinja2).
TEST(ChatTemplateLimits, PaddingAndGroupingAreChargedBeforeTheyAreBuilt) {
  const char* budget = "template allocated more than its byte budget of 64 MiB";
  const size_t kBudget = size_t{64} << 20;
  for (const char* t :
       {"{{ 'x'|center(1000000000000) }}", "{{ 'x'.ljust(99999999) }}",
        "{{ 'x'.rjust(99999999, '*') }}", "{{ [1]|batch(1000000000000, 'x')|list }}",
        "{{ [1, 2, 3]|slice(1000000000000)|list|length }}",
        "{{ ('a\\n' * 4000)|indent(99999999) }}", "{{ 'a'|indent(99999999) }}"}) {
    Rendered r = RenderT(t, "{}", kBudget);
    EXPECT_FALSE(r.ok) << t;
    EXPECT_EQ(r.error.kind, ct::ErrorKind::kLimit) << t;
    EXPECT_EQ(r.text, budget) << t;
  }
  Rendered r = RenderT(
      "{{ 'ab'|center(7) }}|{{ 'ab'.ljust(5, '*') }}|{{ 'ab'.rjust(4) }}|{{ '\u00e9'.center(4, "
      "'\u00b7') }}",
      "{}", kBudget);
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_EQ(r.text, "   ab  |ab***|  ab|\u00b7\u00e9\u00b7\u00b7");
  r = RenderT(
      "{{ 'a\\nb\\n\\nc'|indent(3) }}|{{ 'a\\nb\\n\\nc'|indent(2, true, true) }}|{{ "
      "'x\\ny'|indent('> ') }}",
      "{}", kBudget);
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_EQ(r.text, "a\n   b\n\n   c|  a\n  b\n  \n  c|x\n> y");
  // A large count without a fill value holds only the items: no false limit.
  r = RenderT(
      "{{ [1, 2, 3]|batch(100000000)|list }}|{{ [1, 2, 3, 4, 5]|slice(3, 0)|list }}|"
      "{{ [1]|batch(3, 'x')|list }}",
      "{}", kBudget);
  ASSERT_TRUE(r.ok) << r.text;
  EXPECT_EQ(r.text, "[[1, 2, 3]]|[[1, 2], [3, 4], [5, 0]]|[[1, 'x', 'x']]");
}

TEST(ChatTemplateLimits, WorkStepLimitEndsTheRenderNamingIt) {
  Rendered r =
      RenderT("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
              "{}", size_t{1} << 40, 1000000);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.kind, ct::ErrorKind::kLimit);
  EXPECT_EQ(r.text, "template ran too long (work step limit)");
  // Expressions count, not only loop iterations: a long chain is work too.
  r = RenderT("{{ 1" + Repeated("+1", 900) + " }}", "{}", 0, 500);
  EXPECT_EQ(r.text, "template ran too long (work step limit)");
}

// Item 7: request text reached reports through raise_exception messages computed from it.
TEST(ChatTemplateLimits, RaisedMessagesShowOnlyTheTemplatesOwnText) {
  const char* vars = R"({"messages": [{"role": "user", "content": "SECRET-PROMPT"}], "n": 3})";
  struct MaskCase {
    const char* tmpl;
    const char* safe;
  };
  const MaskCase cases[] = {
      {"{{ raise_exception('Unknown role: ' ~ messages[0].role) }}", "Unknown role: …"},
      {"{{ raise_exception('bad: %s' % messages[0].content) }}", "…"},
      {"{{ raise_exception('bad: {}'.format(messages[0].content)) }}", "…"},
      {"{{ raise_exception('bad: %s'|format(messages[0].content)) }}", "…"},
      {"{{ raise_exception(messages|string) }}", "…"},
      {"{{ raise_exception(messages[0]) }}", "…"},
      {"{{ raise_exception(messages) }}", "…"},
      {"{{ raise_exception(messages[0].content|upper) }}", "…"},
      {"{{ raise_exception(messages[0].content[2:]) }}", "…"},
      {"{{ raise_exception('x' ~ messages|tojson ~ 'y') }}", "x…y"},
      {"{% set m %}Bad {{ messages[0].content }} here{% endset %}{{ raise_exception(m) }}",
       "Bad … here"},
      {"{{ raise_exception('Only ' ~ n ~ ' allowed') }}", "Only … allowed"},
      {"{{ raise_exception('Conversation roles must alternate user/assistant') }}",
       "Conversation roles must alternate user/assistant"},
      {"{{ raise_exception('abcdef'[1:3]) }}", "bc"},
  };
  for (const MaskCase& c : cases) {
    SCOPED_TRACE(c.tmpl);
    Rendered r = RenderT(c.tmpl, vars);
    ASSERT_TRUE(r.parsed) << r.text;
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error.kind, ct::ErrorKind::kRaised);
    EXPECT_EQ(r.error.safe_message, c.safe);
    EXPECT_EQ(r.error.safe_message.find("SECRET"), std::string::npos);
  }
}

}  // namespace
}  // namespace ltl
