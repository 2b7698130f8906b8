// The stylesheet inlined into report.html: system fonts only (no downloads), light theme,
// laptop-width layout, and print rules (no page breaks inside a chart or table, colours kept).
// Internal to src/report/ (tests/build/internal_headers.cmake).
#pragma once

namespace ltl {

inline constexpr const char* kReportCss = R"CSS(
:root { --ink:#1d2330; --muted:#5b6475; --line:#d9dee7; --bg:#ffffff; --panel:#f6f8fb;
  --lru:#1f3a93; --across:#4f86d9; --same:#f0a23b; --ceiling:#c0392b; --knee:#2e7d32;
  --bar:#5b8bd6; --policy0:#8e44ad; --policy1:#16a085; --policy2:#d35400; }
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1120px; margin: 0 auto; padding: 28px 32px 48px; }
header.top { border-bottom: 1px solid var(--line); padding-bottom: 14px; margin-bottom: 8px; }
h1 { font-size: 26px; margin: 0 0 4px; letter-spacing: -0.01em; }
h2 { font-size: 19px; margin: 34px 0 10px; padding-top: 8px; border-top: 1px solid var(--line); }
h3 { font-size: 15px; margin: 0 0 6px; }
p { margin: 6px 0 10px; }
.sub, .note { color: var(--muted); }
.note { font-size: 13px; }
.file { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px;
  word-break: break-all; }
nav.toc { font-size: 13px; margin: 10px 0 0; }
nav.toc a { color: var(--muted); margin-right: 14px; text-decoration: none; }
nav.toc a:hover { color: var(--ink); text-decoration: underline; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 12px;
  margin: 18px 0 14px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px;
  padding: 12px 14px; }
.card .label { font-size: 12px; text-transform: uppercase; letter-spacing: 0.06em;
  color: var(--muted); }
.card .value { font-size: 30px; font-weight: 650; line-height: 1.2; margin: 2px 0;
  font-variant-numeric: tabular-nums; }
.card .value.ceiling { color: var(--ceiling); }
.card .detail { font-size: 13px; color: var(--muted); }
.finding-main { border-left: 4px solid var(--lru); background: #eef2fb; padding: 10px 14px;
  border-radius: 0 6px 6px 0; font-size: 16px; margin: 8px 0 4px; }
table { border-collapse: collapse; width: 100%; font-size: 13.5px; margin: 6px 0 8px;
  font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line);
  vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 12px; text-transform: uppercase;
  letter-spacing: 0.04em; border-bottom: 2px solid var(--line); }
table.sizes, #policies-table { max-width: 760px; }
td.num, th.num { text-align: right; white-space: nowrap; }
.tablewrap { overflow-x: auto; }
#fleet-table th { text-transform: none; }
#fleet-table td:first-child { white-space: nowrap; }
tbody tr:nth-child(even) td { background: #fafbfd; }
.sharecell { white-space: nowrap; min-width: 150px; }
.sharebar { display: inline-block; width: 90px; height: 9px; background: #e7ebf2; border-radius: 5px;
  vertical-align: middle; margin-right: 6px; overflow: hidden; }
.sharebar > span { display: block; height: 100%; background: var(--bar); border-radius: 5px; }
code.prefix { font-size: 12px; white-space: pre-wrap; word-break: break-all; color: #37404f; }
.chart { width: 100%; height: auto; display: block; font-size: 11px; fill: var(--ink); }
.chart text { fill: #3c4453; }
.chart .caption { fill: var(--muted); font-size: 11.5px; }
.chart .grid { stroke: #e6e9ef; stroke-width: 1; }
.chart .grid.v { stroke: #f0f2f6; }
.chart .axis-line, .chart .tick { stroke: #9aa3b2; stroke-width: 1; }
.chart .bar { fill: var(--bar); }
.chart .bar:hover { fill: var(--lru); }
.area-lru { fill: #dfe7f7; stroke: none; }
.area-across { fill: var(--across); fill-opacity: 0.55; stroke: none; }
.area-same { fill: var(--same); fill-opacity: 0.55; stroke: none; }
.series-lru { fill: none; stroke: var(--lru); stroke-width: 2.2; stroke-linejoin: round; }
.ceiling { stroke: var(--ceiling); stroke-width: 1.5; stroke-dasharray: 6 4; }
.chart .ceiling-label, .chart .knee-label, .chart .point-label { paint-order: stroke;
  stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }
.chart .ceiling-label { fill: var(--ceiling); font-weight: 600; font-size: 12px; }
.knee-line { stroke: var(--knee); stroke-width: 1.3; stroke-dasharray: 3 3; }
.knee-point { fill: #fff; stroke: var(--knee); stroke-width: 2.5; }
.chart .knee-label { fill: var(--knee); font-weight: 600; font-size: 12px; }
.asked-point { fill: #fff; stroke: var(--lru); stroke-width: 2; }
.chart .point-label { font-size: 10.5px; fill: var(--lru); }
.policy .marker { fill: #7f8c8d; stroke: #fff; stroke-width: 1; }
.policy-style-0 .marker { fill: var(--policy0); }
.policy-style-1 .marker { fill: var(--policy1); }
.policy-style-2 .marker { fill: var(--policy2); }
ul.legend { list-style: none; padding: 0; margin: 6px 0 0; font-size: 13px; color: var(--muted);
  display: flex; flex-wrap: wrap; gap: 4px 18px; }
.swatch { display: inline-block; width: 18px; height: 10px; margin-right: 6px; vertical-align: middle;
  border-radius: 2px; }
.swatch.area-across { background: var(--across); opacity: 0.7; }
.swatch.area-same { background: var(--same); opacity: 0.7; }
.swatch.line-lru { height: 3px; background: var(--lru); }
.swatch.line-ceiling { height: 0; border-top: 2px dashed var(--ceiling); border-radius: 0; }
.swatch.dot-asked { width: 10px; height: 10px; border: 2px solid var(--lru); border-radius: 50%; }
.swatch.dot-knee { width: 10px; height: 10px; border: 2.5px solid var(--knee); border-radius: 50%; }
.swatch.marker-style-0 { width: 11px; height: 10px; background: var(--policy0); border-radius: 0;
  clip-path: polygon(50% 0, 100% 100%, 0 100%); }
.swatch.marker-style-1 { width: 10px; background: var(--policy1); transform: rotate(45deg); }
.swatch.marker-style-2 { width: 9px; height: 9px; background: var(--policy2); border-radius: 0; }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(430px, 1fr)); gap: 14px 22px; }
.panel { border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; }
.quant { font-size: 13px; color: var(--muted); margin: 0 0 4px; font-variant-numeric: tabular-nums; }
.empty { color: var(--muted); font-style: italic; }
ul.findings li { margin: 4px 0; }
dl.method { display: grid; grid-template-columns: max-content 1fr; gap: 4px 18px; font-size: 14px; }
dl.method dt { color: var(--muted); }
dl.method dd { margin: 0; }
footer { margin-top: 36px; font-size: 12px; color: var(--muted); border-top: 1px solid var(--line);
  padding-top: 10px; }
@media (max-width: 700px) { main { padding: 16px; } .grid2 { grid-template-columns: 1fr; } }
@media print {
  body { font-size: 11pt; }
  main { max-width: none; padding: 0; }
  nav.toc { display: none; }
  h2 { break-after: avoid; }
  section, .panel, table, svg, .cards { break-inside: avoid; }
  .grid2 { grid-template-columns: 1fr 1fr; }
  a { color: inherit; text-decoration: none; }
}
)CSS";

}  // namespace ltl
