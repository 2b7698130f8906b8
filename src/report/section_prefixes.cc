// The prefix leaderboards: report.json "prefixes", the page's two tables, the terminal's top lines.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "analyze/prefix_text.h"
#include "common/units.h"
#include "report/html_text.h"
#include "report/html_widgets.h"
#include "report/json_counts.h"
#include "report/report_section.h"

namespace ltl {
namespace {

using Json = nlohmann::ordered_json;

Json PrefixRowJson(const PrefixRow& r) {
  const Json models = CountsJson(r.models);
  Json j{{"tokens", r.tokens},
         {"blocks", r.blocks},
         {"requests", r.requests},
         {"reusable_tokens", r.reusable_tokens},
         {"share", r.share},
         {"own_tokens", r.own_tokens},
         {"own_share", r.own_share},
         {"first_seen_s", r.first_seen_s},
         {"last_seen_s", r.last_seen_s},
         {"models", models},
         {"with_session_id", r.with_session_id},
         {"session_id_share",
          Ratio(static_cast<int64_t>(r.with_session_id), static_cast<int64_t>(r.requests))}};
  if (!r.text.empty()) j["text"] = r.text;
  return j;
}

Json LeaderboardsJson(const Leaderboards& lb) {
  Json by_count = Json::array(), by_volume = Json::array();
  for (const PrefixRow& r : lb.by_count) by_count.push_back(PrefixRowJson(r));
  for (const PrefixRow& r : lb.by_volume) by_volume.push_back(PrefixRowJson(r));
  return Json{{"reusable_tokens", lb.reusable_tokens},
              {"listed_prefixes", lb.listed_prefixes},
              {"by_count", by_count},
              {"by_volume", by_volume}};
}

std::string ModelsCell(const std::map<std::string, uint64_t>& models) {
  std::vector<std::pair<uint64_t, std::string>> v;
  v.reserve(models.size());
  for (const auto& [m, n] : models) v.emplace_back(n, m);
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::string s;
  for (size_t i = 0; i < v.size() && i < 3; ++i) {
    if (i) s += ", ";
    s += HtmlEscape(v[i].second.empty() ? "unknown" : v[i].second);
  }
  if (v.size() > 3) s += fmt::format(" +{} more", v.size() - 3);
  return s;
}

std::string LeaderboardTable(const std::string& id, const std::vector<PrefixRow>& rows) {
  if (rows.empty()) return "<p class=\"empty\">No prefix is shared by two requests.</p>\n";
  const bool has_text =
      std::any_of(rows.begin(), rows.end(), [](const PrefixRow& r) { return !r.text.empty(); });
  std::string o = fmt::format(
      "<table id=\"{}\" class=\"leaderboard\">\n<thead><tr><th class=\"num\">#</th><th "
      "class=\"num\">prefix</th><th class=\"num\">requests</th><th>share of reusable "
      "volume</th><th>first seen</th><th>last seen</th><th>models</th><th class=\"num\">session "
      "ids</th></tr></thead>\n<tbody>\n",
      id);
  for (size_t i = 0; i < rows.size(); ++i) {
    const PrefixRow& r = rows[i];
    o += fmt::format(
        "<tr><td class=\"num\">{}</td><td class=\"num\" title=\"{} blocks\">{} tok</td><td "
        "class=\"num\">{}</td>{}<td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>\n",
        i + 1, Commas(r.blocks), WithCommas(r.tokens), Commas(r.requests), ShareCell(r.share),
        HtmlEscape(FormatTraceTime(r.first_seen_s)), HtmlEscape(FormatTraceTime(r.last_seen_s)),
        ModelsCell(r.models), Percent(Ratio(r.with_session_id, r.requests), 0));
    if (has_text && !r.text.empty())
      o += fmt::format(
          "<tr class=\"prefix-text\"><td></td><td colspan=\"7\"><code "
          "class=\"prefix\">{}</code></td></tr>\n",
          HtmlEscape(r.text));
  }
  o += "</tbody></table>\n";
  return o;
}

std::string PrefixLine(const char* label, const std::vector<PrefixRow>& rows) {
  if (rows.empty())
    return fmt::format("{:<20}  none (no prefix is shared by two requests)\n", label);
  const PrefixRow& r = rows.front();
  std::string line =
      fmt::format("{:<20}  {} tok x {} reqs = {} of reusable volume\n", label, WithCommas(r.tokens),
                  WithCommas(static_cast<int64_t>(r.requests)), Percent(r.share));
  // --show-prefix-text only: the prefix's first characters, control characters escaped.
  if (!r.text.empty()) line += fmt::format("{:<20}  \"{}\"\n", "", TerminalSafe(r.text));
  return line;
}

std::string PrefixesHtml(const Profile& p) {
  const Leaderboards& lb = p.leaderboards;
  std::string o = "<section id=\"prefixes\">\n<h2>Top prefixes</h2>\n";
  o += fmt::format(
      "<p>Which prefixes to keep resident. A prefix is listed at its longest length for its "
      "request count (a branch point or an end of the block tree); {} prefixes qualify. "
      "<em>Reusable volume</em> = prefix tokens × (requests − 1); shares are of all reusable "
      "volume, {} tokens (the hit tokens of an unbounded cache replaying every request from "
      "cold). Shares of nested prefixes overlap.</p>\n",
      Commas(lb.listed_prefixes), WithCommas(lb.reusable_tokens));
  o += "<h3>By reusable volume</h3>\n" + LeaderboardTable("top-by-volume", lb.by_volume);
  o += "<h3>By request count</h3>\n" + LeaderboardTable("top-by-count", lb.by_count);
  o += "<p class=\"note\">The two rankings differ: a short prefix reused very often contributes "
       "little volume, a long one reused a few dozen times can carry most of it. The volume "
       "ranking is what determines savings.</p>\n</section>\n";
  return o;
}

class PrefixesPart final : public ReportSection {
 public:
  std::string_view name() const override { return "prefixes"; }
  std::string_view toc_title() const override { return "Top prefixes"; }
  void AddJson(const Profile& p, Json* root) const override {
    (*root)["prefixes"] = LeaderboardsJson(p.leaderboards);
  }
  std::string Html(const Profile& p) const override {
    if (p.sampling.active)  // report.json keeps its (empty) keys; sampling.omitted says why
      return "<section id=\"prefixes\">\n<h2>Top prefixes</h2>\n<p>Not computed under sampling: "
             "the leaderboards rank whole prefixes, of which a sampled replay holds only some "
             "blocks.</p>\n</section>\n";
    return PrefixesHtml(p);
  }
  std::string Terminal(const Profile& p) const override {
    if (p.sampling.active) return "";  // the sampling line lists it as not computed
    return PrefixLine("top prefix by volume", p.leaderboards.by_volume) +
           PrefixLine("top prefix by count", p.leaderboards.by_count);
  }
};

}  // namespace

const ReportSection& PrefixesSection() {
  static const PrefixesPart section;
  return section;
}

}  // namespace ltl
