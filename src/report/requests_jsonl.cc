// WriteRequestsJsonl (see requests_jsonl.h).
#include "report/requests_jsonl.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "simulate/prefix_hits.h"

namespace ltl {

Status WriteRequestsJsonl(const std::string& path, const Trace& trace,
                          const std::vector<RequestRecord>& records,
                          const std::vector<InputFileSummary>& files,
                          const ProviderCacheSection& provider) {
  AtomicFile out;
  if (Status st = out.Open(path); !st.ok()) return st;
  std::vector<std::string> names;  // each file's name as a JSON string
  std::vector<uint8_t> csv;  // CSV files count data rows (RequestRecord::line counts the header)
  names.reserve(files.size());
  csv.reserve(files.size());
  for (const InputFileSummary& f : files) csv.push_back(f.format == InputFormat::kCsv);
  for (const InputFileSummary& f : files)
    names.push_back(
        nlohmann::json(f.name).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  const std::string unknown = "null";
  const bool modelled = provider.present && provider.modelled && !provider.per_request.empty();
  const std::vector<uint32_t> cold = modelled ? std::vector<uint32_t>() : UnboundedColdHits(trace);
  std::string buf;
  uint64_t index = 0;
  auto count = [](int64_t v) { return v < 0 ? std::string("null") : std::to_string(v); };
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& tr = trace.requests[i];
    if (tr.replay_only) continue;
    const RequestRecord& rec = records[tr.record];
    const int64_t hit = modelled ? provider.per_request[i].ideal
                                 : std::min<int64_t>(static_cast<int64_t>(cold[i]) * tr.block_size,
                                                     tr.input_tokens);
    fmt::format_to(std::back_inserter(buf),
                   "{{\"index\":{},\"file\":{},\"row\":{},\"time\":{},\"input_tokens\":{},"
                   "\"hit_tokens\":{}",
                   index++, rec.file < names.size() ? names[rec.file] : unknown,
                   rec.file < csv.size() && csv[rec.file] && rec.line > 0 ? rec.line - 1 : rec.line,
                   rec.has_time ? fmt::format("{}", tr.time_s) : std::string("null"),
                   tr.input_tokens, hit);
    if (modelled) {
      const bool in_model = provider.included[i] != 0;
      const ProviderRequestRow& row = provider.per_request[i];
      fmt::format_to(std::back_inserter(buf),
                     ",\"provider_read_tokens\":{},\"provider_write_tokens\":{},"
                     "\"observed_read_tokens\":{},\"observed_write_tokens\":{}",
                     in_model ? std::to_string(row.read) : "null",
                     in_model ? std::to_string(row.write) : "null",
                     count(rec.provider_cached_tokens), count(rec.provider.observed_write));
    }
    buf += "}\n";
    if (Status st = out.WriteWhenFull(&buf); !st.ok()) return st;
  }
  if (Status st = out.Write(buf); !st.ok()) return st;
  return out.Commit();
}

}  // namespace ltl
