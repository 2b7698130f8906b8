// Capacity curve SVG (see capacity_chart.h).
#include "report/capacity_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "analyze/kv_memory_view.h"
#include "common/units.h"
#include "models/kv_models.h"
#include "report/html_text.h"
#include "report/svg_chart.h"

namespace ltl {
namespace {

using svg::Num;

struct Pt {
  double tokens;
  double rate;
};

// A stepped line through (capacity, rate) points: rate r_i holds from c_i up to c_{i+1}.
std::vector<Pt> Steps(const std::vector<Pt>& pts, double x_lo, double x_hi) {
  std::vector<Pt> out;
  out.push_back({x_lo, 0});
  double prev = 0;
  for (const Pt& p : pts) {
    out.push_back({p.tokens, prev});
    out.push_back({p.tokens, p.rate});
    prev = p.rate;
  }
  out.push_back({x_hi, prev});
  return out;
}

std::string Points(const std::vector<Pt>& pts, const svg::LogScale& x, const svg::LinearScale& y) {
  std::string s;
  for (const Pt& p : pts) {
    if (!s.empty()) s += ' ';
    s += Num(x(p.tokens)) + "," + Num(y(p.rate));
  }
  return s;
}

double Pow2Floor(double v) {
  return std::exp2(std::floor(std::log2(std::max(v, 1.0))));
}
double Pow2Ceil(double v) {
  return std::exp2(std::ceil(std::log2(std::max(v, 1.0))));
}

// Policies other than the curve's own are told apart by their place among them (marker shape and
// colour cycle through three styles), so a new policy needs no line here.
constexpr size_t kPolicyStyles = 3;

std::string PolicyMarker(size_t style, double cx, double cy) {
  if (style % kPolicyStyles == 0)
    return fmt::format("<path class=\"marker\" d=\"M{} {} l5 9 h-10 z\"/>", Num(cx), Num(cy - 6));
  if (style % kPolicyStyles == 1)
    return fmt::format("<path class=\"marker\" d=\"M{} {} l6 6 l-6 6 l-6 -6 z\"/>", Num(cx),
                       Num(cy - 6));
  return fmt::format("<rect class=\"marker\" x=\"{}\" y=\"{}\" width=\"9\" height=\"9\"/>",
                     Num(cx - 4.5), Num(cy - 4.5));
}

std::string SizeLabel(const Profile& p, double tokens) {
  std::string s = CompactBinary(tokens) + " tokens";
  if (KvBytesPerToken(p) > 0) s += " (" + BinaryBytes(tokens * KvBytesPerToken(p)) + ")";
  return s;
}

}  // namespace

std::string CapacityChartHtml(const Profile& p) {
  if (p.dense_curve.empty() || p.measured_tokens <= 0)
    return "<p class=\"empty\">No request reuses an earlier block: the hit rate is 0% at every "
           "cache size.</p>\n";
  const double bs = std::max<uint32_t>(p.block_size, 1);
  const double measured = static_cast<double>(p.measured_tokens);
  std::vector<Pt> total, across;
  for (const CurvePoint& c : p.dense_curve) {
    const double tok = static_cast<double>(c.capacity_blocks) * bs;
    total.push_back({tok, static_cast<double>(c.hit.hit) / measured});
    across.push_back({tok, static_cast<double>(c.hit.across) / measured});
  }
  const double ceiling = p.Rate(p.ceiling, p.measured_tokens);
  double lo = std::min(total.front().tokens, bs), hi = total.back().tokens * 2;
  // Other policies' points: --policies / --model rows (kv_cache) that were under memory pressure.
  std::vector<const CurveRow*> others;
  for (const auto* rows : {&p.curve, &p.kv_cache.rows})
    for (const CurveRow& r : *rows)
      if (!r.headline && !r.underfilled && r.capacity_tokens > 0) others.push_back(&r);
  for (const CurveRow* r : others) {
    lo = std::min(lo, static_cast<double>(r->capacity_tokens));
    hi = std::max(hi, static_cast<double>(r->capacity_tokens) * 1.5);
  }
  for (const CurveRow& r : p.curve) {
    if (r.capacity_tokens == 0) continue;
    lo = std::min(lo, static_cast<double>(r.capacity_tokens));
    hi = std::max(hi, static_cast<double>(r.capacity_tokens) * 1.5);
  }
  lo = Pow2Floor(lo);
  hi = Pow2Ceil(hi);
  const bool gib_axis = KvBytesPerToken(p) > 0;

  svg::Frame f;
  f.width = 760;
  f.height = 380;
  f.left = 56;
  f.right = 24;
  f.top = gib_axis ? 44 : 20;
  f.bottom = 48;
  const svg::LogScale x(lo, hi, f.x0(), f.x1());
  const double y_max = std::min(1.0, std::max(0.1, std::ceil((ceiling + 0.04) * 10) / 10));
  const svg::LinearScale y(0, y_max, f.y0(), f.y1());

  std::string o = fmt::format(
      "<svg id=\"capacity-chart\" class=\"chart\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-labelledby=\"capacity-chart-title\" xmlns=\"http://www.w3.org/2000/svg\">\n"
      "<title id=\"capacity-chart-title\">Hit rate by cache size (LRU{})</title>\n",
      Num(f.width), Num(f.height), p.has_conversations ? ", split by source" : "");
  // Y grid in percent.
  const double y_step = y_max <= 0.3 ? 0.05 : 0.1;
  o += "<g class=\"axis y\">\n";
  for (int i = 0; i * y_step <= y_max + 1e-9; ++i) {
    const double v = i * y_step;
    o += fmt::format("<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", Num(f.x0()),
                     Num(f.x1()), Num(y(v)), Num(y(v)));
    o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" dy=\"0.32em\">{:.0f}%</text>\n",
                     Num(f.x0() - 6), Num(y(v)), v * 100);
  }
  o += fmt::format(
      "<text class=\"caption\" transform=\"translate(14 {}) rotate(-90)\" "
      "text-anchor=\"middle\">hit rate (share of input tokens)</text>\n</g>\n",
      Num((f.y0() + f.y1()) / 2));
  // X axis: powers of two (or of four when the range is wide) in tokens.
  const int octaves = static_cast<int>(std::lround(std::log2(hi / lo)));
  const int step = octaves > 14 ? 2 : 1;
  o += "<g class=\"axis x\">\n";
  for (int k = 0; k <= octaves; k += step) {
    const double t = lo * std::exp2(k);
    o += fmt::format("<line class=\"grid v\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", Num(x(t)),
                     Num(x(t)), Num(f.y0()), Num(f.y1()));
    o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", Num(x(t)),
                     Num(f.y0() + 16), CompactBinary(t));
  }
  o += fmt::format(
      "<text class=\"caption\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">cache size (tokens, log "
      "scale)</text>\n</g>\n",
      Num((f.x0() + f.x1()) / 2), Num(f.height - 8));
  if (gib_axis) {
    // GiB ticks at powers of two that fall inside the token range.
    const double per_gib = std::exp2(30) / KvBytesPerToken(p);  // tokens per GiB
    o += "<g class=\"axis x2\">\n";
    for (int e = -10; e <= 20; ++e) {
      const double tok = std::exp2(e) * per_gib;
      if (tok < lo || tok > hi) continue;
      if (octaves > 14 && e % 2 != 0) continue;
      o += fmt::format("<line class=\"tick\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>",
                       Num(x(tok)), Num(x(tok)), Num(f.y1()), Num(f.y1() - 4));
      o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", Num(x(tok)),
                       Num(f.y1() - 8), BinaryBytes(std::exp2(e) * std::exp2(30)));
    }
    o += fmt::format(
        "<text class=\"caption\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">KV cache memory ({}, "
        "{}/token)</text>\n</g>\n",
        Num((f.x0() + f.x1()) / 2), Num(12), HtmlEscape(KvModel(p)),
        BinaryBytes(KvBytesPerToken(p)));
  }

  // Areas: across (bottom) and same-conversation (stacked on top), or the plain area under LRU.
  const std::vector<Pt> total_steps = Steps(total, lo, hi);
  auto closed = [&](const std::vector<Pt>& top, const std::vector<Pt>& bottom) {
    std::vector<Pt> poly = top;
    poly.insert(poly.end(), bottom.rbegin(), bottom.rend());
    return Points(poly, x, y);
  };
  if (p.has_conversations) {
    const std::vector<Pt> across_steps = Steps(across, lo, hi);
    const std::vector<Pt> floor = {{lo, 0}, {hi, 0}};
    o += fmt::format("<polygon class=\"area-across\" points=\"{}\"/>\n",
                     closed(across_steps, floor));
    o += fmt::format("<polygon class=\"area-same\" points=\"{}\"/>\n",
                     closed(total_steps, across_steps));
  } else {
    o += fmt::format("<polygon class=\"area-lru\" points=\"{}\"/>\n",
                     closed(total_steps, {{lo, 0}, {hi, 0}}));
  }
  // Ceiling.
  o += fmt::format(
      "<line class=\"ceiling\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>"
      "<text class=\"ceiling-label\" x=\"{}\" y=\"{}\">ceiling {}</text>\n",
      Num(f.x0()), Num(f.x1()), Num(y(ceiling)), Num(y(ceiling)), Num(f.x0() + 6),
      Num(y(ceiling) - 6), Percent(ceiling));
  // The LRU curve.
  o += fmt::format("<polyline class=\"series-lru\" data-dense-points=\"{}\" points=\"{}\"/>\n",
                   total.size(), Points(total_steps, x, y));
  // Asked sizes.
  o += "<g class=\"asked\">\n";
  for (const CurveRow& r : p.curve) {
    if (!r.headline || r.capacity_tokens == 0) continue;
    const double rate = p.Rate(r.hit, r.measured_tokens);
    const double cx = x(static_cast<double>(r.capacity_tokens)), cy = y(rate);
    o += fmt::format(
        "<circle class=\"asked-point\" cx=\"{}\" cy=\"{}\" r=\"3.5\"><title>{}: {} "
        "(LRU)</title></circle>",
        Num(cx), Num(cy), SizeLabel(p, static_cast<double>(r.capacity_tokens)), Percent(rate));
    // Sizes at the ceiling need no label of their own: the ceiling line says it.
    if (ceiling - rate > 0.005)
      o += fmt::format(
          "<text class=\"point-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
          Num(cx - 5), Num(cy - 6), Percent(rate));
    else
      o += "\n";
  }
  o += "</g>\n";
  // Other policies.
  std::vector<std::string> policies;  // in the order the rows list them (--policies order)
  for (const CurveRow* r : others)
    if (std::find(policies.begin(), policies.end(), r->policy) == policies.end())
      policies.push_back(r->policy);
  for (size_t style = 0; style < policies.size(); ++style) {
    const std::string& pol = policies[style];
    o += fmt::format("<g class=\"policy policy-style-{}\" data-policy=\"{}\">\n",
                     style % kPolicyStyles, HtmlEscape(pol));
    for (const CurveRow* rp : others) {
      const CurveRow& r = *rp;
      if (r.policy != pol) continue;
      const double rate = p.Rate(r.hit, r.measured_tokens);
      o += "<g>" + PolicyMarker(style, x(static_cast<double>(r.capacity_tokens)), y(rate));
      o += fmt::format("<title>{} at {}: {}</title></g>\n", HtmlEscape(pol),
                       SizeLabel(p, static_cast<double>(r.capacity_tokens)), Percent(rate));
    }
    o += "</g>\n";
  }
  // The knee.
  if (p.knee.found) {
    const double kt = static_cast<double>(p.knee.capacity_blocks) * bs;
    const double kx = x(kt), ky = y(p.knee.hit_rate);
    // The label sits low beside the knee line, on the side with room: the curve is still low to
    // the left of a knee in the right half, and already flat (high) to the right of one in the
    // left half.
    const bool right = kx < (f.x0() + f.x1()) / 2;
    const double lx = kx + (right ? 8 : -8);
    const double ly = f.y0() - 36;
    const char* anchor = right ? "start" : "end";
    o += fmt::format(
        "<g class=\"knee\"><line class=\"knee-line\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>"
        "<circle class=\"knee-point\" cx=\"{}\" cy=\"{}\" r=\"5\"><title>knee: {} reaches {}"
        "</title></circle>"
        "<text class=\"knee-label\" x=\"{}\" y=\"{}\" text-anchor=\"{}\">past {}</text>"
        "<text class=\"knee-label\" x=\"{}\" y=\"{}\" text-anchor=\"{}\">&lt; 1 point per "
        "doubling</text></g>\n",
        Num(kx), Num(kx), Num(f.y0()), Num(ky), Num(kx), Num(ky), SizeLabel(p, kt),
        Percent(p.knee.hit_rate), Num(lx), Num(ly), anchor, SizeLabel(p, kt), Num(lx), Num(ly + 15),
        anchor);
  }
  o += fmt::format("<line class=\"axis-line\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\n",
                   Num(f.x0()), Num(f.x1()), Num(f.y0()), Num(f.y0()));
  o += "</svg>\n";

  // Legend.
  o += "<ul class=\"legend\">\n";
  if (p.has_conversations) {
    o += "<li><span class=\"swatch area-across\"></span>across conversations (shared templates, "
         "system prompts, tools)</li>\n";
    o += "<li><span class=\"swatch area-same\"></span>same conversation (resent history)</li>\n";
  }
  o += "<li><span class=\"swatch line-lru\"></span>LRU, every cache size</li>\n";
  o += "<li><span class=\"swatch dot-asked\"></span>sizes asked for</li>\n";
  for (size_t style = 0; style < policies.size(); ++style)
    o += fmt::format("<li><span class=\"swatch marker-style-{}\"></span>{}</li>\n",
                     style % kPolicyStyles, HtmlEscape(policies[style]));
  o += "<li><span class=\"swatch line-ceiling\"></span>ceiling (unbounded cache)</li>\n";
  if (p.knee.found)
    o += "<li><span class=\"swatch dot-knee\"></span>knee: past it, doubling the cache adds less "
         "than one point</li>\n";
  o += "</ul>\n";
  return o;
}

}  // namespace ltl
