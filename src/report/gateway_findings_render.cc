// Gateway findings rendered for report.json and the terminal (see gateway_findings_render.h).
#include "report/gateway_findings_render.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "common/units.h"

namespace ltl {

nlohmann::ordered_json GatewayFindingsJson(const GatewayFindings& f) {
  using Json = nlohmann::ordered_json;
  auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  const double n = static_cast<double>(f.requests);
  Json fields = Json::object();
  for (const auto& [name, count] : f.session_fields)
    fields[name] = Json{{"requests", count}, {"share", ratio(static_cast<double>(count), n)}};
  Json j;
  j["session_identifiers"] = Json{{"requests", f.with_session},
                                  {"share", ratio(static_cast<double>(f.with_session), n)},
                                  {"fields", fields},
                                  {"per_request_fields", f.per_request_session_fields},
                                  {"filler_values_ignored", f.filler_values_ignored}};
  j["ignored_records"] = Json{{"count", f.ignored_records}, {"reason", f.ignored_reason}};
  j["conversations"] = Json{{"total", f.conversations},
                            {"from_session_ids", f.conversations_from_sessions},
                            {"inferred", f.conversations - f.conversations_from_sessions},
                            {"with_two_or_more_requests", f.multi_request_conversations}};
  j["tool_changes"] = Json{{"conversations", f.tool_change_conversations},
                           {"share", ratio(static_cast<double>(f.tool_change_conversations),
                                           static_cast<double>(f.multi_request_conversations))},
                           {"max_in_one_conversation", f.max_tool_changes}};
  j["truncated_bodies"] = Json{{"requests", f.truncated_bodies},
                               {"share", ratio(static_cast<double>(f.truncated_bodies), n)}};
  j["templates"] = f.layouts;
  j["exact_count_requests"] = f.exact_count_requests;
  const double in = static_cast<double>(f.provider_input_tokens);
  j["provider_cache"] =
      Json{{"requests", f.provider_cache_requests},
           {"input_tokens", f.provider_input_tokens},
           {"cached_tokens", f.provider_cached_tokens},
           {"observed_hit_rate", ratio(static_cast<double>(f.provider_cached_tokens), in)},
           {"predicted_hit_tokens", f.predicted_hit_tokens},
           {"predicted_hit_rate", ratio(static_cast<double>(f.predicted_hit_tokens), in)}};
  return j;
}

std::string GatewayFindingsLines(const GatewayFindings& f) {
  if (!f.present || f.requests == 0) return "";
  std::string out;
  const double n = static_cast<double>(f.requests);
  const double share = static_cast<double>(f.with_session) / n;
  if (f.with_session == 0) {
    out += fmt::format(
        "session identifiers  {} of requests  (affinity routing cannot reach this "
        "reuse)\n",
        Percent(0.0));
  } else {
    std::vector<std::pair<uint64_t, std::string>> fields;
    for (const auto& [name, count] : f.session_fields) fields.emplace_back(count, name);
    std::sort(fields.rbegin(), fields.rend());
    std::string list;
    for (size_t i = 0; i < fields.size() && i < 4; ++i)
      list += fmt::format("{}{} {}", i ? ", " : "", fields[i].second,
                          Percent(static_cast<double>(fields[i].first) / n));
    if (fields.size() > 4) list += fmt::format(", +{} more", fields.size() - 4);
    out += fmt::format("session identifiers  {} of requests  ({})\n", Percent(share), list);
  }
  if (f.provider_cache_requests > 0 && f.provider_input_tokens > 0) {
    const double in = static_cast<double>(f.provider_input_tokens);
    out += fmt::format(
        "provider cache hits  {} observed vs {} predicted  (on the {} requests reporting cached "
        "tokens; predicted = unbounded cache from the first request)\n",
        Percent(static_cast<double>(f.provider_cached_tokens) / in),
        Percent(static_cast<double>(f.predicted_hit_tokens) / in),
        WithCommas(static_cast<int64_t>(f.provider_cache_requests)));
  }
  return out;
}

}  // namespace ltl
