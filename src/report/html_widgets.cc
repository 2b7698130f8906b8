// The report's shared widgets (see html_widgets.h).
#include "report/html_widgets.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/units.h"
#include "report/html_text.h"
#include "report/svg_chart.h"

namespace ltl {

std::string Commas(uint64_t v) {
  return WithCommas(static_cast<int64_t>(v));
}

std::string Card(const std::string& label, const std::string& value, const std::string& detail,
                 const char* value_class) {
  return fmt::format(
      "<div class=\"card\"><div class=\"label\">{}</div><div class=\"value {}\">{}</div>"
      "<div class=\"detail\">{}</div></div>\n",
      label, value_class, value, detail);
}

std::string ShareCell(double share) {
  const double w = std::clamp(share * 100.0, 0.0, 100.0);
  return fmt::format(
      "<td class=\"sharecell\"><span class=\"sharebar\"><span style=\"width:{:.1f}%\"></span>"
      "</span>{}</td>",
      w, Percent(share));
}

std::string QuantLine(const Quantiles& q, const char* unit) {
  if (q.count == 0) return "<p class=\"quant\">no data</p>";
  return fmt::format(
      "<p class=\"quant\">p50 {} · p90 {} · p99 {} · max {} {} · mean {:.1f} · n = {}</p>",
      WithCommas(q.p50), WithCommas(q.p90), WithCommas(q.p99), WithCommas(q.max), unit, q.mean,
      Commas(q.count));
}

std::string HistPanel(const std::string& id, const std::string& title, const Quantiles& q,
                      const std::vector<HistogramBin>& bins, const char* unit,
                      const std::string& x_label, const std::string& counted) {
  std::string o = fmt::format("<div class=\"panel\">\n<h3>{}</h3>\n", title);
  o += QuantLine(q, unit);
  svg::BarChart spec{id, title, x_label, counted, counted};
  o += svg::HistogramSvg(bins, spec);
  o += "</div>\n";
  return o;
}

std::string CountTable(const std::string& id, const char* what,
                       const std::vector<std::pair<std::string, uint64_t>>& items, uint64_t total) {
  std::string o = fmt::format(
      "<table id=\"{}\"><thead><tr><th>{}</th><th class=\"num\">requests</th><th>share</th>"
      "</tr></thead><tbody>\n",
      id, what);
  for (const auto& [name, n] : items)
    o += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td>{}</tr>\n", HtmlEscape(name),
                     Commas(n), ShareCell(Ratio(n, total)));
  o += "</tbody></table>\n";
  return o;
}

}  // namespace ltl
