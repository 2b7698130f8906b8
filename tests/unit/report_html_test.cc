// Tests for report.html: input-derived strings appear only escaped, the page loads nothing, and
// the capacity chart has the documented number of vertices.
#include "report/report_html.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "analyze/build_profile.h"
#include "common/units.h"
#include "report/html_text.h"
#include "report/report_json.h"
#include "report/report_section.h"
#include "report/terminal_summary.h"
#include "simulate/trace.h"

namespace ltl {
namespace {

const char* kScript = "<script>alert(1)</script>";
const char* kImg = "\"><img src=x onerror=alert(1)>";

TEST(HtmlText, EscapesMarkupAndQuotes) {
  EXPECT_EQ(HtmlEscape(kScript), "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(HtmlEscape(kImg), "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;");
  EXPECT_EQ(HtmlEscape("a&b 'c'"), "a&amp;b &#39;c&#39;");
}

TEST(HtmlText, CompactFormats) {
  EXPECT_EQ(CompactBinary(16384), "16K");
  EXPECT_EQ(CompactBinary(1536), "1.5K");
  EXPECT_EQ(CompactBinary(900), "900");
  EXPECT_EQ(FormatTraceTime(1753340000.0), "2025-07-24 06:53:20 UTC");
  EXPECT_EQ(FormatTraceTime(3723), "+1h 02m 03s");
}

Profile HostileProfile() {
  std::vector<RequestRecord> recs;
  for (int i = 0; i < 40; ++i) {
    RequestRecord r;
    r.block_size = 16;
    r.block_ids = {1, 2, static_cast<uint64_t>(100 + i)};
    r.input_tokens = 48;
    r.output_tokens = 10;
    r.time_s = i;
    r.has_time = true;
    r.model = i % 2 ? kScript : kImg;
    r.session_field = i % 3 ? "" : std::string(kImg);
    r.conversation = std::to_string(i % 5);
    recs.push_back(r);
  }
  Trace trace = BuildTrace(recs);
  Profile p;
  p.input_name = std::string("dir/") + kScript + kImg + ".csv";
  p.format = "csv";
  p.encoding = "plain";
  p.counting = kImg;
  p.template_layout = kScript;
  p.kv_cache.present = true;
  p.kv_cache.has_memory = true;
  p.kv_cache.memory.model = kImg;
  p.kv_cache.memory.bits_per_token = 95232 * 8;
  p.skipped.Add(kScript, 7);  // reasons are fixed phrases, but escape them anyway
  CapacitySpec caps;
  caps.tokens = {64, 256};
  BuildProfile(recs, trace, ReplayOptions{}, caps, &p);
  p.findings.push_back(std::string("finding ") + kScript);
  CurveRow fifo = p.curve.front();
  fifo.policy = kImg;
  fifo.headline = false;
  p.curve.push_back(fifo);
  p.leaderboards.by_volume.front().text = std::string(kScript) + kImg;
  return p;
}

// The chart tells the curve's own rows from other policies' by the row's role, not its name: a
// headline LRU named "radix-lru" (--eviction sglang) is drawn as the asked sizes, and policies the
// report has never heard of get their own marker style each, in the order the rows list them.
TEST(ReportHtml, CapacityChartDrawsRowsByRoleNotByName) {
  Profile p = HostileProfile();
  p.curve.resize(2);  // the two asked sizes of the curve
  for (CurveRow& r : p.curve) r.policy = "radix-lru";
  for (const char* name : {"zz-new", "sieve"}) {
    CurveRow other = p.curve.back();
    other.policy = name;
    other.headline = false;
    p.kv_cache.rows.push_back(other);
  }
  const std::string html = RenderReportHtml(p);
  auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t at = html.find(needle); at != std::string::npos; at = html.find(needle, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count("class=\"asked-point\""), 2u);
  EXPECT_EQ(count("data-policy=\"radix-lru\""), 0u);
  EXPECT_EQ(count("<g class=\"policy policy-style-0\" data-policy=\"zz-new\">"), 1u);
  EXPECT_EQ(count("<g class=\"policy policy-style-1\" data-policy=\"sieve\">"), 1u);
  EXPECT_EQ(count("<span class=\"swatch marker-style-0\"></span>zz-new</li>"), 1u);
  EXPECT_EQ(count("<span class=\"swatch marker-style-1\"></span>sieve</li>"), 1u);
  // The table's first column is the curve's own policy, under its own name.
  EXPECT_EQ(count("<th class=\"num\">radix-lru hit rate</th>"), 1u);
}

TEST(ReportHtml, InputStringsAppearOnlyEscaped) {
  const std::string html = RenderReportHtml(HostileProfile());
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("onerror=alert(1)>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
}

TEST(ReportHtml, LoadsNothingFromOutside) {
  const std::string html = RenderReportHtml(HostileProfile());
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("src="), html.find("src=x"));  // only inside the escaped payload
  // The only URL is the SVG namespace. (std::regex is avoided: GCC 12 warns inside it under ASan.)
  for (const char* scheme : {"http://", "https://"}) {
    for (size_t pos = html.find(scheme); pos != std::string::npos; pos = html.find(scheme, pos + 1))
      EXPECT_EQ(html.compare(pos, 26, "http://www.w3.org/2000/svg"), 0) << html.substr(pos, 60);
  }
}

TEST(ReportHtml, CapacityPolylineHasTwoVerticesPerDensePointPlusEnds) {
  const Profile p = HostileProfile();
  const std::string html = RenderReportHtml(p);
  const size_t at = html.find("class=\"series-lru\"");
  ASSERT_NE(at, std::string::npos);
  const size_t begin = html.find(" points=\"", at);
  ASSERT_NE(begin, std::string::npos);
  const size_t end = html.find('"', begin + 9);
  const std::string pts = html.substr(begin + 9, end - begin - 9);
  const size_t vertices = static_cast<size_t>(std::count(pts.begin(), pts.end(), ','));
  EXPECT_EQ(vertices, 2 * p.dense_curve.size() + 2);
  EXPECT_NE(html.find("class=\"area-across\""), std::string::npos);
  EXPECT_NE(html.find("class=\"area-same\""), std::string::npos);
  EXPECT_NE(html.find("class=\"knee-point\""), std::string::npos);
  EXPECT_NE(html.find("KiB/token"), std::string::npos);  // the GiB axis caption
}

}  // namespace
}  // namespace ltl

namespace ltl {
namespace {

// Report sections are plug-ins: the page, report.json and the terminal are exactly the registered
// sections' parts in registry order, and the table of contents links only sections on the page.
TEST(ReportSections, EveryOutputIsTheRegisteredSectionsInOrder) {
  const Profile p = HostileProfile();
  const std::string html = RenderReportHtml(p);
  size_t at = 0;
  std::vector<std::string> on_page;
  for (const ReportSection* s : ReportSections()) {
    const std::string part = s->Html(p);
    if (part.empty()) continue;
    EXPECT_EQ(part.rfind(fmt::format("<section id=\"{}\"", s->name()), 0), 0u) << s->name();
    const size_t found = html.find(part, at);
    ASSERT_NE(found, std::string::npos) << s->name() << " missing or out of order";
    at = found + part.size();
    on_page.emplace_back(s->name());
  }
  for (size_t a = html.find("<a href=\"#"); a != std::string::npos;
       a = html.find("<a href=\"#", a + 1)) {
    const size_t end = html.find('"', a + 10);
    const std::string target = html.substr(a + 10, end - a - 10);
    EXPECT_NE(std::find(on_page.begin(), on_page.end(), target), on_page.end()) << target;
  }
  nlohmann::ordered_json want = nlohmann::ordered_json::object();
  std::string terminal;
  for (const ReportSection* s : ReportSections()) {
    s->AddJson(p, &want);
    terminal += s->Terminal(p);
  }
  EXPECT_EQ(ProfileToJson(p), want);
  EXPECT_EQ(RenderTerminalSummary(p), terminal);
  EXPECT_NE(terminal.find("<- ceiling"), std::string::npos);
}

}  // namespace
}  // namespace ltl
