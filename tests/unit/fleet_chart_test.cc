// Tests for the fleet section of report.html on a hand-built FleetResult: one line per routing
// policy with one vertex per per-worker size, heights ordered as the hit rates, the unbounded size
// right of every bounded one, pooled and ceiling lines, and the table's rates and load CVs.
#include "report/fleet_chart.h"
#include "policy_names.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ltl {
namespace {

using ltl::testing::Eviction;
using ltl::testing::Routing;

// Hit tokens out of 1,000 measured tokens.
FleetPoint Point(uint64_t capacity, int64_t hit, std::vector<uint64_t> requests) {
  FleetPoint pt;
  pt.capacity_blocks = capacity;
  pt.hit_tokens = hit;
  pt.measured_tokens = 1000;
  pt.requests = std::move(requests);
  pt.uncached_tokens = {1000 - hit, 0};
  return pt;
}

FleetResult HandBuilt() {
  FleetResult f;
  f.options.workers = 2;
  f.options.capacity_blocks = {64, 1024, kUnboundedCapacity};
  f.options.policies = {Routing("round-robin"), Routing("prefix-aware")};
  f.requests = 10;
  f.measured_requests = 10;
  f.measured_tokens = 1000;
  f.ceiling.hit = 600;
  f.pooled = {HitTokens{300, 0}, HitTokens{550, 0}, HitTokens{600, 0}};
  FleetPolicyResult rr;
  rr.policy = Routing("round-robin");
  rr.points = {Point(64, 100, {5, 5}), Point(1024, 200, {5, 5}),
               Point(kUnboundedCapacity, 250, {5, 5})};
  FleetPolicyResult pa;
  pa.policy = Routing("prefix-aware");
  pa.points = {Point(64, 250, {2, 8}), Point(1024, 500, {2, 8}),
               Point(kUnboundedCapacity, 600, {2, 8})};
  f.policies = {rr, pa};
  return f;
}

std::vector<std::string> Between(const std::string& s, const std::string& open,
                                 const std::string& close) {
  std::vector<std::string> out;
  for (size_t i = s.find(open); i != std::string::npos; i = s.find(open, i + 1)) {
    const size_t a = i + open.size();
    out.push_back(s.substr(a, s.find(close, a) - a));
  }
  return out;
}

struct Vertex {
  double x, y;
};

std::vector<Vertex> Vertices(const std::string& points) {
  std::vector<Vertex> v;
  size_t i = 0;
  while (i < points.size()) {
    size_t comma = points.find(',', i);
    size_t end = points.find(' ', comma);
    if (end == std::string::npos) end = points.size();
    v.push_back({std::stod(points.substr(i, comma - i)),
                 std::stod(points.substr(comma + 1, end - comma - 1))});
    i = end + 1;
  }
  return v;
}

TEST(FleetChart, OneLinePerPolicyWithAVertexPerSize) {
  const std::string svg = FleetChartSvg(HandBuilt(), 16);
  ASSERT_NE(svg.find("<svg id=\"fleet-chart\""), std::string::npos);
  const auto policies = Between(svg, "data-policy=\"", "\"");
  ASSERT_EQ(policies, (std::vector<std::string>{"round-robin", "prefix-aware"}));
  const auto series = Between(svg, "class=\"fleet-series\" data-policy=\"", "/>");
  ASSERT_EQ(series.size(), 2u);
  std::vector<std::vector<Vertex>> lines;
  lines.reserve(series.size() + 1);
  for (const std::string& s : series) lines.push_back(Vertices(Between(s, "points=\"", "\"")[0]));
  const auto pooled = Between(svg, "class=\"fleet-pooled\" points=\"", "\"");
  ASSERT_EQ(pooled.size(), 1u);
  lines.push_back(Vertices(pooled[0]));
  for (const auto& l : lines) {
    ASSERT_EQ(l.size(), 3u);
    // Log axis: sizes left to right, the unbounded one last.
    EXPECT_LT(l[0].x, l[1].x);
    EXPECT_LT(l[1].x, l[2].x);
  }
  // SVG y grows downwards: a higher hit rate sits higher (smaller y). Rates: round-robin
  // 10/20/25%, prefix-aware 25/50/60%, pooled 30/55/60%.
  for (int c = 0; c < 3; ++c) {
    EXPECT_GT(lines[0][c].y, lines[1][c].y) << c;
    EXPECT_GE(lines[1][c].y, lines[2][c].y) << c;
  }
  EXPECT_NEAR(lines[0][2].y, lines[1][0].y, 0.051);  // both 25%
  EXPECT_NEAR(lines[1][2].y, lines[2][2].y, 0.051);  // both 60%
  // The ceiling is a horizontal line at 60%, where the unbounded prefix-aware point is.
  const auto ceiling = Between(svg, "<line class=\"ceiling\"", "/>");
  ASSERT_EQ(ceiling.size(), 1u);
  const double y1 = std::stod(Between(ceiling[0], "y1=\"", "\"")[0]);
  EXPECT_EQ(Between(ceiling[0], "y2=\"", "\"")[0], Between(ceiling[0], "y1=\"", "\"")[0]);
  EXPECT_NEAR(y1, lines[1][2].y, 0.051);
  // Every point has a marker: 3 per policy + 3 pooled.
  EXPECT_EQ(Between(svg, "<circle ", ">").size(), 9u);
}

TEST(FleetChart, SectionTableHasRatesBoundsAndLoadSpread) {
  const std::string html = FleetSectionHtml(HandBuilt(), 16, 0.5);
  ASSERT_NE(html.find("<section id=\"fleet\">"), std::string::npos);
  const auto rows = Between(html, "<tr>", "</tr>");
  // Header (in thead), then the two policies.
  ASSERT_GE(rows.size(), 3u);
  EXPECT_NE(rows[1].find("<td>round-robin</td><td class=\"num\">10.0%</td><td "
                         "class=\"num\">20.0%</td><td class=\"num\">25.0%</td>"),
            std::string::npos)
      << rows[1];
  // Load CVs at the largest bounded size: requests {5, 5} -> 0; {2, 8} -> 3 / 5 = 0.60.
  EXPECT_NE(rows[1].find("<td class=\"num\">0.00</td>"), std::string::npos) << rows[1];
  EXPECT_NE(rows[2].find("<td class=\"num\">0.60</td>"), std::string::npos) << rows[2];
  EXPECT_NE(html.find("<strong>pooled</strong> (2 × size)</td><td class=\"num\">30.0%</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<strong>ceiling</strong> (unbounded)"), std::string::npos);
  EXPECT_NE(html.find(">60.0%</td>"), std::string::npos);
  EXPECT_NE(html.find("last 50% of requests"), std::string::npos);
}

}  // namespace
}  // namespace ltl
