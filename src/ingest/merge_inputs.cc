// MergeInputs (see merge_inputs.h).
#include "ingest/merge_inputs.h"

#include <fmt/format.h>

#include <utility>

namespace ltl {
namespace {

bool IsGateway(const LoadedInput& in) {
  return in.gateway;
}

// "a, b" of the distinct non-empty values in order of first appearance.
template <typename Get>
std::string Distinct(const std::vector<LoadedInput>& parts, Get get) {
  std::vector<std::string> seen;
  for (const LoadedInput& p : parts) {
    std::string v = get(p);
    if (v.empty()) continue;
    bool dup = false;
    for (const auto& s : seen) dup |= s == v;
    if (!dup) seen.push_back(std::move(v));
  }
  std::string out;
  for (const auto& s : seen) out += (out.empty() ? "" : ", ") + s;
  return out;
}

Status CheckCompatible(const std::vector<LoadedInput>& parts) {
  const LoadedInput& a = parts.front();
  for (const LoadedInput& b : parts) {
    const std::string& name = b.files.empty() ? std::string("input") : b.files.front().name;
    if (b.format == InputFormat::kCctrace || a.format == InputFormat::kCctrace)
      return Status::InvalidArgument(fmt::format(
          "{}: a cache trace (cctrace) is profiled on its own: give one file or directory", name));
    if (IsGateway(a) != IsGateway(b) || (!IsGateway(a) && a.format != b.format))
      return Status::InvalidArgument(fmt::format(
          "{}: is {}, {} is {}: the files of one run must all be gateway logs or all the same "
          "hashed-trace format",
          name, FormatName(b.format),
          a.files.empty() ? std::string("the first input") : a.files.front().name,
          FormatName(a.format)));
  }
  return Status::Ok();
}

}  // namespace

Result<LoadedInput> MergeInputs(std::vector<LoadedInput> parts) {
  if (parts.empty()) return Status::InvalidArgument("no input");
  if (parts.size() == 1) {
    FinishGatewayPostPass(&parts.front());
    return std::move(parts.front());
  }
  if (Status st = CheckCompatible(parts); !st.ok()) return st;
  LoadedInput out;
  const LoadedInput& first = parts.front();
  out.format = first.format;
  out.detection = first.detection;
  out.gateway = first.gateway;
  out.counting_estimate = first.counting_estimate;
  out.counting = first.counting;
  out.times.absolute_clock = true;
  size_t n = 0;
  bool pending = false;
  for (const LoadedInput& p : parts) {
    n += p.records.size();
    pending |= p.post_pass_pending;
    out.formats_differ |= p.format != first.format;
  }
  out.encoding = Distinct(parts, [](const LoadedInput& p) { return p.encoding; });
  if (out.encoding.find(',') != std::string::npos) out.encoding = "mixed";
  out.source = Distinct(parts, [](const LoadedInput& p) { return p.source; });
  const std::string reasons =
      Distinct(parts, [](const LoadedInput& p) { return p.detection.reason; });
  if (reasons != first.detection.reason)
    out.detection.reason = "per file (input.files): " + reasons;
  const std::string source_reasons =
      Distinct(parts, [](const LoadedInput& p) { return p.source_reason; });
  out.source_reason = source_reasons;
  out.records.reserve(n);
  if (pending) {
    out.post_pass.links.reserve(n);
    out.post_pass.fillers.reserve(n);
  }
  for (LoadedInput& p : parts) {
    if (pending && p.post_pass.links.size() != p.records.size())
      return Status::InvalidArgument("merge: a gateway input's post-pass was not deferred");
    // Record file indices are per part; in the merged input they index out.files.
    const auto file_base = static_cast<uint32_t>(out.files.size());
    for (auto& r : p.records) {
      r.file += file_base;
      out.records.push_back(std::move(r));
    }
    if (pending) {
      for (auto& l : p.post_pass.links) out.post_pass.links.push_back(std::move(l));
      for (auto& f : p.post_pass.fillers) out.post_pass.fillers.push_back(std::move(f));
    }
    AddInputCounts(p, &out);
    out.untimed += p.untimed;
    if (out.times.implausible == 0) out.times.first_line = p.times.first_line;
    out.times.implausible += p.times.implausible;
    if (!p.records.empty()) out.times.absolute_clock &= p.times.absolute_clock;
    for (auto& f : p.files) out.files.push_back(std::move(f));
    std::vector<RequestRecord>().swap(p.records);
    p.post_pass = GatewayPostPass();
  }
  out.post_pass_pending = pending;
  if (out.gateway) out.counting = CountingSentence(out.records, out.counting_estimate);
  FinishGatewayPostPass(&out);
  return out;
}

void AddInputCounts(const LoadedInput& from, LoadedInput* into) {
  into->bytes += from.bytes;
  into->filtered_status += from.filtered_status;
  for (const auto& [layout, k] : from.layouts) into->layouts[layout] += k;
  into->conformed_ids += from.conformed_ids;
  into->ignored += from.ignored;
  if (into->ignored_reason.empty()) into->ignored_reason = from.ignored_reason;
  if (into->first_skip_reason.empty()) into->first_skip_reason = from.first_skip_reason;
}

SkipCounter MergedSkips(const LoadedInput& in) {
  SkipCounter all;
  for (const InputFileSummary& f : in.files) all.Merge(f.skipped);
  return all;
}

}  // namespace ltl
