// Distributions: report.json "distributions", the page's histograms and count tables.
#include <fmt/format.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "common/units.h"
#include "report/html_text.h"
#include "report/html_widgets.h"
#include "report/json_counts.h"
#include "report/report_section.h"

namespace ltl {
namespace {

using Json = nlohmann::ordered_json;

Json QuantilesJson(const Quantiles& q) {
  return Json{{"count", q.count}, {"p50", q.p50}, {"p90", q.p90},
              {"p99", q.p99},     {"max", q.max}, {"mean", q.mean}};
}

Json HistogramJson(const std::vector<HistogramBin>& bins) {
  Json a = Json::array();
  for (const auto& b : bins) a.push_back(Json{{"lo", b.lo}, {"hi", b.hi}, {"count", b.count}});
  return a;
}

std::string DistributionsHtml(const Profile& p) {
  const auto& d = p.dist;
  std::string o = "<section id=\"distributions\">\n<h2>Distributions</h2>\n<div class=\"grid2\">\n";
  o += HistPanel("hist-input", "Input tokens per request", d.input_tokens, d.input_hist, "tok",
                 "input tokens (log2 bins)", "requests");
  o += HistPanel("hist-output", "Output tokens per request", d.output_tokens, d.output_hist, "tok",
                 "output tokens (log2 bins)", "requests");
  o += HistPanel("hist-interarrival", "Time between requests", d.inter_arrival_ms,
                 d.inter_arrival_hist, "ms", "inter-arrival time, ms (log2 bins)", "gaps");
  if (d.conversations > 0) {
    o += HistPanel("hist-conversation", "Requests per conversation", d.requests_per_conversation,
                   d.requests_per_conversation_hist, "", "requests (log2 bins)", "conversations");
  }
  if (d.turns.count > 0)
    o += HistPanel("hist-turns", "Turn of each request", d.turns, d.turns_hist, "",
                   "turn within its conversation (log2 bins)", "requests");

  // Models, status codes, streaming.
  std::vector<std::pair<std::string, uint64_t>> models;
  for (const auto& [m, n] : d.models) models.push_back({m.empty() ? "unknown" : m, n});
  std::sort(models.begin(), models.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  o += "<div class=\"panel\">\n<h3>Model mix</h3>\n";
  o += CountTable("models-table", "model", models, p.requests);
  std::vector<std::pair<std::string, uint64_t>> status;
  for (const auto& [c, n] : d.status_codes)
    status.push_back({c == 0 ? "not recorded" : std::to_string(c), n});
  o += "<h3>Status codes (replayed requests)</h3>\n";
  o += CountTable("status-table", "status", status, p.requests);
  if (p.filtered_status > 0)
    o += fmt::format("<p class=\"note\">{} rows with a non-2xx status were not replayed.</p>\n",
                     Commas(p.filtered_status));
  o += "<h3>Streaming</h3>\n";
  if (d.stream_known == 0)
    o += "<p class=\"note\">The input does not record whether requests streamed.</p>\n";
  else
    o += fmt::format(
        "<p>{} of {} requests that record it asked for <code>stream: true</code>.</p>\n",
        Percent(Ratio(d.stream_true, d.stream_known)), Commas(d.stream_known));
  if (!d.session_fields.empty()) {
    std::vector<std::pair<std::string, uint64_t>> fields(d.session_fields.begin(),
                                                         d.session_fields.end());
    o += "<h3>Session identifier fields seen</h3>\n";
    o += CountTable("session-fields-table", "field", fields, p.requests);
  }
  o += "</div>\n</div>\n</section>\n";
  return o;
}

class DistributionsPart final : public ReportSection {
 public:
  std::string_view name() const override { return "distributions"; }
  std::string_view toc_title() const override { return "Distributions"; }
  void AddJson(const Profile& p, Json* root) const override {
    Json& j = *root;
    const Distributions& d = p.dist;
    const Json models = CountsJson(d.models);
    Json status = Json::object();
    for (const auto& [c, n] : d.status_codes) status[c == 0 ? "unknown" : std::to_string(c)] = n;
    j["distributions"] =
        Json{{"input_tokens", QuantilesJson(d.input_tokens)},
             {"input_tokens_histogram", HistogramJson(d.input_hist)},
             {"output_tokens", QuantilesJson(d.output_tokens)},
             {"output_tokens_histogram", HistogramJson(d.output_hist)},
             {"stream", Json{{"known", d.stream_known},
                             {"streaming", d.stream_true},
                             {"share", Ratio(static_cast<int64_t>(d.stream_true),
                                             static_cast<int64_t>(d.stream_known))}}},
             {"models", models},
             {"duration_s", d.duration_s},
             {"qps", d.qps},
             {"qps_over_time", Json{{"bin_s", d.qps_bin_s}, {"qps", d.qps_over_time}}},
             {"inter_arrival_ms", QuantilesJson(d.inter_arrival_ms)},
             {"status_codes", status},
             {"conversations", d.conversations},
             {"requests_per_conversation", QuantilesJson(d.requests_per_conversation)},
             {"turns", QuantilesJson(d.turns)}};
    Json& dj = j["distributions"];
    dj["qps_over_time"]["peak_qps"] = d.qps_peak;
    dj["inter_arrival_ms_histogram"] = HistogramJson(d.inter_arrival_hist);
    dj["requests_per_conversation_histogram"] = HistogramJson(d.requests_per_conversation_hist);
    dj["turns_histogram"] = HistogramJson(d.turns_hist);
  }
  std::string Html(const Profile& p) const override { return DistributionsHtml(p); }
};

}  // namespace

const ReportSection& DistributionsSection() {
  static const DistributionsPart section;
  return section;
}

}  // namespace ltl
