// Tier charts (see tier_chart.h).
#include "report/tier_chart.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/html_text.h"
#include "report/svg_chart.h"

namespace ltl {
namespace {

constexpr const char* kTierColors[] = {"#2f5fb3", "#e08a2c", "#4c9a5b", "#9b59b6",
                                       "#c0392b", "#7f8c8d", "#16a085", "#d35400"};

double Share(int64_t a, int64_t b) {
  return b > 0 ? static_cast<double>(a) / b : 0.0;
}

// A tier chart's opening <svg> and its y-axis labels: each tick (in label units) at y(tick /
// per_label), printed with `suffix`.
std::string ChartStart(const char* id, const char* title, const svg::Frame& f,
                       const svg::LinearScale& y, const std::vector<double>& ticks,
                       double per_label, const char* suffix) {
  std::string o = fmt::format(
      "<svg id=\"{}\" class=\"chart\" viewBox=\"0 0 {} {}\" role=\"img\"><title>{}</title>\n", id,
      svg::Num(f.width), svg::Num(f.height), title);
  for (double t : ticks)
    o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{:g}{}</text>\n",
                     svg::Num(f.x0() - 4), svg::Num(y(t / per_label) + 4), t, suffix);
  return o;
}

}  // namespace

std::string TierStackSvg(const TiersSection& s) {
  std::vector<size_t> rows;
  for (size_t i = 0; i < s.rows.size(); ++i)
    if (s.rows[i].kind == "scaled" || i == s.asked_row) rows.push_back(i);
  std::sort(rows.begin(), rows.end(),
            [&](size_t a, size_t b) { return s.rows[a].scale < s.rows[b].scale; });
  svg::Frame f;
  f.bottom = 56;
  double top = 0;
  for (size_t i : rows) top = std::max(top, Share(s.rows[i].total_hit(), s.measured_tokens));
  const std::vector<double> ticks = svg::NiceTicks(std::max(top, 0.01) * 100, 5);
  const svg::LinearScale y(0, ticks.back() / 100, f.y0(), f.y1());
  const double slot = (f.x1() - f.x0()) / static_cast<double>(std::max<size_t>(rows.size(), 1));
  std::string o =
      ChartStart("tiers-stack", "hit tokens by tier across hierarchy sizes", f, y, ticks, 100, "%");
  for (size_t b = 0; b < rows.size(); ++b) {
    const TierRow& r = s.rows[rows[b]];
    double base = 0;
    const double x = f.x0() + slot * static_cast<double>(b) + slot * 0.15;
    for (size_t k = 0; k < r.hit.size(); ++k) {
      const double h = Share(r.hit[k], s.measured_tokens);
      if (h <= 0) continue;
      o += fmt::format(
          "<rect class=\"tier-seg\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">"
          "<title>{}: {:.1f}% of tokens</title></rect>\n",
          svg::Num(x), svg::Num(y(base + h)), svg::Num(slot * 0.7), svg::Num(y(base) - y(base + h)),
          kTierColors[k % 8], HtmlEscape(s.tiers[k].name), h * 100);
      base += h;
    }
    o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">x {:g}</text>\n",
                     svg::Num(x + slot * 0.35), svg::Num(f.y0() + 14), r.scale);
  }
  double lx = f.x0();
  for (size_t k = 0; k < s.tiers.size(); ++k) {
    o += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{}\" "
        "y=\"{}\">{}</text>\n",
        svg::Num(lx), svg::Num(f.height - 16), kTierColors[k % 8], svg::Num(lx + 14),
        svg::Num(f.height - 7), HtmlEscape(s.tiers[k].name));
    lx += 24 + 7.0 * static_cast<double>(s.tiers[k].name.size());
  }
  o += fmt::format("<text class=\"caption\" x=\"{}\" y=\"{}\">every tier scaled by</text>\n",
                   svg::Num(lx + 10), svg::Num(f.height - 7));
  return o + "</svg>\n";
}

std::string TtftSvg(const TiersSection& s) {
  const TierTimeModel& t = s.time;
  const TierRow& a = s.rows[s.asked_row];
  const double none[] = {t.ttft_p50, t.ttft_p90, t.ttft_p95, t.ttft_p99};
  const double with[] = {a.ttft_p50, a.ttft_p90, a.ttft_p95, a.ttft_p99};
  const char* names[] = {"p50", "p90", "p95", "p99"};
  svg::Frame f;
  double top = 0;
  for (int i = 0; i < 4; ++i) top = std::max({top, none[i], with[i]});
  const bool ms = top < 2;
  const double unit = ms ? 1000 : 1;
  const std::vector<double> ticks = svg::NiceTicks(std::max(top * unit, 1e-3), 5);
  const svg::LinearScale y(0, ticks.back(), f.y0(), f.y1());
  const double slot = (f.x1() - f.x0()) / 4;
  std::string o =
      ChartStart("tiers-ttft", "estimated TTFT without and with the cache", f, y, ticks, 1, "");
  for (int i = 0; i < 4; ++i) {
    const double x = f.x0() + slot * i + slot * 0.1;
    for (int j = 0; j < 2; ++j) {
      const double v = (j == 0 ? none[i] : with[i]) * unit;
      o += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{} {}: {:.3g} "
          "{}</title></rect>\n",
          svg::Num(x + j * slot * 0.4), svg::Num(y(v)), svg::Num(slot * 0.38),
          svg::Num(f.y0() - y(v)), j == 0 ? "#9aa3b2" : kTierColors[0], names[i],
          j == 0 ? "no cache" : "with the tiers", v, ms ? "ms" : "s");
    }
    o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     svg::Num(x + slot * 0.4), svg::Num(f.y0() + 14), names[i]);
  }
  o += fmt::format(
      "<text class=\"caption\" x=\"{}\" y=\"{}\">TTFT ({}; grey: no cache, blue: with the "
      "tiers)</text>\n",
      svg::Num(f.x0()), svg::Num(f.height - 8), ms ? "ms" : "s");
  return o + "</svg>\n";
}

}  // namespace ltl
