// The CSV and JSONL gateway loops and the post-pass over conversations (see gateway_readers.h).
#include "read/gateway_readers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "read/csv_reader.h"
#include "read/timestamp.h"

namespace ltl {
namespace {

std::string Lower(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Conversations from session fields whose values never repeat are per-request ids in disguise;
// those records fall back to the inferred conversation. Then turns are numbered in time order.
void PostProcess(std::vector<RequestRecord>* records, const std::vector<std::string>& inferred,
                 size_t first, GatewayReadStats* stats) {
  constexpr size_t kMinRequestsToJudge = 20;
  std::map<std::string, std::pair<size_t, std::unordered_set<std::string>>> by_field;
  for (size_t i = first; i < records->size(); ++i) {
    const RequestRecord& r = (*records)[i];
    if (r.session_field.empty() || r.conversation.empty() || r.conversation[0] != 's') continue;
    auto& f = by_field[r.session_field];
    ++f.first;
    f.second.insert(r.conversation);
  }
  std::unordered_set<std::string> per_request;
  for (const auto& [field, f] : by_field) {
    if (f.first >= kMinRequestsToJudge && f.second.size() == f.first) {
      per_request.insert(field);
      stats->per_request_session_fields.push_back(field);
    }
  }
  if (!per_request.empty())
    for (size_t i = first; i < records->size(); ++i) {
      RequestRecord& r = (*records)[i];
      if (per_request.count(r.session_field)) r.conversation = inferred[i - first];
    }
  // Turns: 1-based position within the conversation in time order (file order for ties).
  std::vector<size_t> order(records->size() - first);
  std::iota(order.begin(), order.end(), first);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return (*records)[a].time_s < (*records)[b].time_s; });
  std::unordered_map<std::string, int> turns;
  for (size_t i : order) {
    RequestRecord& r = (*records)[i];
    if (!r.conversation.empty()) r.turn = ++turns[r.conversation];
  }
}

void Accept(GatewayRowProcessor& proc, RequestRecord&& r, std::vector<RequestRecord>* out,
            std::vector<std::string>* inferred, GatewayReadStats* stats) {
  ++stats->layouts[LayoutName(proc.layout())];
  inferred->push_back(proc.inferred_conversation());
  out->push_back(std::move(r));
}

}  // namespace

Status ReadGatewayCsv(InputStream* in, ReadContext* ctx, const GatewayConfig& config,
                      std::vector<RequestRecord>* out, GatewayReadStats* stats) {
  CsvReader csv(in, ctx->limits, ctx->limits.buffer_bytes);
  // Header.
  CsvReader::Outcome first = csv.Next();
  if (first == CsvReader::Outcome::kBad)
    return Status::InvalidArgument(
        fmt::format("{}:{}: unreadable CSV header: {}", ctx->name, csv.record_line(), csv.bad_reason()));
  if (first == CsvReader::Outcome::kError)
    return Status::Corrupt(fmt::format("{}:1: {}", ctx->name, csv.error().message()));
  if (first == CsvReader::Outcome::kEnd)
    return Status::InvalidArgument(fmt::format("{}:1: input is empty", ctx->name));
  std::vector<std::string> names;
  std::unordered_map<std::string, size_t> index;  // first column of each name wins
  for (std::string_view f : csv.fields()) {
    names.push_back(Lower(f));
    index.emplace(names.back(), names.size() - 1);
  }
  auto col = [&](std::initializer_list<std::string_view> candidates) -> long {
    for (std::string_view c : candidates)
      if (auto it = index.find(std::string(c)); it != index.end())
        return static_cast<long>(it->second);
    return -1;
  };
  // Header names are echoed in error messages, but a file without a header has data (prompt text)
  // in its first row: the names are printed only when every one of them looks like a column name.
  auto name_like = [](const std::string& n) {
    return !n.empty() && n.size() <= 40 &&
           n.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_.@-") == std::string::npos;
  };
  const bool header_like = std::all_of(names.begin(), names.end(), name_like);
  auto printable_name = [&](size_t i) {
    return name_like(names[i]) ? names[i] : fmt::format("<column {}>", i + 1);
  };
  auto found_list = [&] {
    if (!header_like)
      return fmt::format("{} columns; the first row does not look like a header", names.size());
    std::string s;
    for (size_t i = 0; i < names.size() && i < 30; ++i) {
      if (i) s += ", ";
      s += printable_name(i);
    }
    if (names.size() > 30) s += fmt::format(", ... ({} columns)", names.size());
    return s;
  };
  const long c_request =
      col({"request_json", "proxy_server_request", "request_body", "request", "body"});
  if (c_request < 0)
    return Status::InvalidArgument(fmt::format("{}:{}: no request_json column (found: {})",
                                               ctx->name, csv.record_line(), found_list()));
  const long c_response = col({"response_json", "response", "response_body"});
  const long c_model = col({"model_name", "model"});
  const long c_status = col({"status_code", "status"});
  const long c_prompt = col({"prompt_tokens"});
  const long c_completion = col({"completion_tokens"});
  long c_time = -1;
  if (!config.ts_column.empty()) {
    c_time = col({config.ts_column});
    if (c_time < 0)
      return Status::InvalidArgument(
          fmt::format("{}:{}: no column '{}' for --ts-column (found: {})", ctx->name,
                      csv.record_line(), config.ts_column, found_list()));
  } else {
    for (std::string_view n : TimestampColumnNames())
      if ((c_time = col({n})) >= 0) break;
  }
  std::vector<std::pair<long, const char*>> session_cols;
  for (std::string_view n : SessionHeaderNames()) {
    long c = col({n});
    if (c >= 0) session_cols.emplace_back(c, SessionHeaderField(n));
  }

  // A column the reader uses must be unambiguous: two "request_json" columns could hold different
  // bodies, and silently picking one would measure the wrong traffic.
  std::vector<long> used = {c_request, c_response, c_model, c_status, c_prompt, c_completion, c_time};
  for (const auto& sc : session_cols) used.push_back(sc.first);
  for (long c : used) {
    if (c < 0) continue;
    for (size_t k = 0; k < names.size(); ++k) {
      if (k != static_cast<size_t>(c) && names[k] == names[static_cast<size_t>(c)])
        return Status::InvalidArgument(fmt::format(
            "{}:{}: column '{}' appears more than once (columns {} and {})", ctx->name,
            csv.record_line(), printable_name(static_cast<size_t>(c)), c + 1, k + 1));
    }
  }

  GatewayRowProcessor proc(config);
  std::vector<std::string> inferred;
  const size_t first_record = out->size();
  const uint64_t header_line = csv.record_line();
  uint64_t rows = 0;
  for (;;) {
    auto outcome = csv.Next();
    if (outcome == CsvReader::Outcome::kEnd) break;
    if (outcome == CsvReader::Outcome::kError)
      return Status::Corrupt(
          fmt::format("{}:{}: {}", ctx->name, csv.record_line(), csv.error().message()));
    ++rows;
    if (outcome == CsvReader::Outcome::kBad) {
      ctx->Skip(csv.bad_reason(), csv.record_line());
      continue;
    }
    const auto& f = csv.fields();
    if (f.size() != names.size()) {
      ctx->Skip("CSV record field count differs from the header", csv.record_line());
      continue;
    }
    GatewayCsvRow row;
    row.line = csv.record_line();
    row.request = f[c_request];
    if (c_response >= 0) row.response = f[c_response];
    if (c_model >= 0) row.model = f[c_model];
    if (c_status >= 0) row.status = f[c_status];
    if (c_time >= 0) row.timestamp = f[c_time];
    if (c_prompt >= 0) row.prompt_tokens = f[c_prompt];
    if (c_completion >= 0) row.completion_tokens = f[c_completion];
    for (auto [c, field] : session_cols) {
      if (!f[c].empty()) {
        row.session_field = field;
        row.session_value = f[c];
        break;
      }
    }
    RequestRecord r;
    const char* reason = nullptr;
    switch (proc.ProcessCsv(row, &r, &reason)) {
      case RowResult::kOk:
        Accept(proc, std::move(r), out, &inferred, stats);
        break;
      case RowResult::kFiltered:
        ++stats->filtered_status;
        break;
      case RowResult::kSkipped:
        ctx->Skip(reason, row.line);
        break;
    }
  }
  if (rows == 0)
    return Status::InvalidArgument(
        fmt::format("{}:{}: no rows after the header", ctx->name, header_line + 1));
  PostProcess(out, inferred, first_record, stats);
  return Status::Ok();
}

Status ReadGatewayJsonl(InputStream* in, ReadContext* ctx, const GatewayConfig& config,
                        std::vector<RequestRecord>* out, GatewayReadStats* stats) {
  LineReader lines(in, ctx->limits.max_line_bytes, ctx->limits.buffer_bytes);
  GatewayRowProcessor proc(config);
  std::vector<std::string> inferred;
  const size_t first_record = out->size();
  std::string_view line;
  for (;;) {
    auto outcome = lines.Next(&line);
    if (outcome == LineReader::Outcome::kEnd) break;
    if (outcome == LineReader::Outcome::kError)
      return Status::Corrupt(
          fmt::format("{}:{}: {}", ctx->name, lines.line_number() + 1, lines.error().message()));
    if (outcome == LineReader::Outcome::kTooLong) {
      ctx->Skip(fmt::format("line longer than {} bytes", ctx->limits.max_line_bytes),
                lines.line_number());
      continue;
    }
    if (lines.line_number() == 1 && line.size() >= 3 && line.substr(0, 3) == "\xEF\xBB\xBF")
      line.remove_prefix(3);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    RequestRecord r;
    const char* reason = nullptr;
    switch (proc.ProcessJsonLine(line, lines.line_number(), &r, &reason)) {
      case RowResult::kOk:
        Accept(proc, std::move(r), out, &inferred, stats);
        break;
      case RowResult::kFiltered:
        ++stats->filtered_status;
        break;
      case RowResult::kSkipped:
        ctx->Skip(reason, lines.line_number());
        break;
    }
  }
  PostProcess(out, inferred, first_record, stats);
  return Status::Ok();
}

}  // namespace ltl
