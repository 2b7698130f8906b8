// libFuzzer target: the analyze and report stages on random requests — absurd times (0, 1e300,
// NaN, infinities, negative, unsorted, untimed), hostile labels (model names and session fields
// of arbitrary bytes, sanitized as every reader does with SafeLabel), random conversations, token
// counts and block chains — through AnalyzeInput and the renderers. Properties beyond "no crash":
//  - the request-rate chart has at most kMaxQpsBins bins (every input);
//  - the terminal summary carries no control character but newline (every input: it is cheap);
//  - report.json parses back (simdjson), and report.html stays small (under 8 MiB for at most 200
//    requests: nothing grows with a span), for the inputs whose mode byte asks for them.
// Input layout: the requests, then a last byte that picks the mode together with a hash of the
// bytes before it (FuzzedDataProvider takes integers from the end and strings from the front, so a
// seed of the layout before the mode byte reads the same requests once a mode byte is appended:
// to give it mode M, append M ^ ModeHash(seed)). Mode bits 0-4: 0 renders all three
// outputs, 1 report.json, 2 report.html, anything else the terminal summary only; bits 5-7: 0
// allows up to 200 requests, anything else up to 16. Rendering report.json or report.html costs
// milliseconds under ASan however small the report, and the properties are about structure, not
// scale, so most inputs are small and skip them: that keeps the target above 1,000 executions/s
// (docs/ROBUSTNESS.md). The hash makes every mutation draw its mode afresh: were the mode the
// byte alone, mutants would inherit their parent's and a corpus rich in rendering inputs (they
// add coverage) would render on most executions.
#include <fuzzer/FuzzedDataProvider.h>
#include <simdjson.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "analyze/analyze_input.h"
#include "analyze/build_profile.h"
#include "analyze/distributions.h"
#include "common/safe_label.h"
#include "fuzz/fuzz_util.h"
#include "report/report_html.h"
#include "report/report_json.h"
#include "report/terminal_summary.h"
#include "simulate/trace.h"

namespace {

double FuzzTime(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
      return 0;
    case 1:
      return std::numeric_limits<double>::quiet_NaN();
    case 2:
      return in.ConsumeBool() ? std::numeric_limits<double>::infinity()
                              : -std::numeric_limits<double>::infinity();
    case 3:
      return std::ldexp(1.0, in.ConsumeIntegralInRange<int>(-60, 1020));
    case 4:
      return 1.7e9 + in.ConsumeFloatingPointInRange<double>(0, 86400 * 3);
    default:
      return in.ConsumeFloatingPoint<double>();
  }
}

// FNV-1a of every byte but the last, folded to one byte.
uint8_t ModeHash(const uint8_t* data, size_t size) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i + 1 < size; ++i) h = (h ^ data[i]) * 16777619u;
  return static_cast<uint8_t>(h ^ (h >> 8) ^ (h >> 16) ^ (h >> 24));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const uint8_t mode = in.ConsumeIntegral<uint8_t>() ^ ModeHash(data, size);
  const int outputs = mode & 0x1f;
  const size_t max_requests = (mode >> 5) == 0 ? 200 : 16;
  ltl::LoadedInput loaded;
  loaded.format = in.ConsumeBool() ? ltl::InputFormat::kJsonl : ltl::InputFormat::kMooncake;
  loaded.gateway = loaded.format == ltl::InputFormat::kJsonl;
  loaded.encoding = "plain";
  const uint32_t block = in.ConsumeBool() ? 16 : 512;
  const size_t n = in.ConsumeIntegralInRange<size_t>(1, max_requests);
  for (size_t i = 0; i < n && in.remaining_bytes() > 0; ++i) {
    ltl::RequestRecord r;
    r.line = i + 1;
    r.has_time = in.ConsumeBool();
    r.time_s = r.has_time ? FuzzTime(in) : 0;
    r.block_size = block;
    const size_t blocks = in.ConsumeIntegralInRange<size_t>(1, 24);
    uint64_t id = in.ConsumeIntegralInRange<uint64_t>(1, 6);  // few roots: shared prefixes
    for (size_t b = 0; b < blocks; ++b) {
      r.block_ids.push_back(id);
      id = id * 31 + in.ConsumeIntegralInRange<uint64_t>(0, 2);
    }
    r.input_tokens =
        static_cast<int64_t>((blocks - 1) * block) + in.ConsumeIntegralInRange<int64_t>(1, block);
    r.output_tokens = in.ConsumeIntegralInRange<int64_t>(-1, 1 << 20);
    r.model = ltl::SafeLabel(in.ConsumeRandomLengthString(300));
    if (in.ConsumeBool()) r.session_field = ltl::SafeLabel(in.ConsumeRandomLengthString(40));
    if (in.ConsumeBool()) r.conversation = std::to_string(in.ConsumeIntegralInRange<int>(0, 5));
    r.stream = in.ConsumeIntegralInRange<int>(-1, 1);
    r.status_code = in.ConsumeIntegralInRange<int>(0, 599);
    r.turn = in.ConsumeIntegralInRange<int>(0, 50);
    r.tools_digest = in.ConsumeIntegralInRange<uint64_t>(0, 3);
    r.provider_cached_tokens = in.ConsumeIntegralInRange<int64_t>(-1, r.input_tokens);
    loaded.records.push_back(std::move(r));
  }
  // The time rule runs in every reader (ingest/load_input.cc); half the inputs skip it, so the
  // report stage also sees absurd times directly.
  if (in.ConsumeBool()) loaded.times = ltl::DropImplausibleTimes(&loaded.records, 1.8e9);
  ltl::SkipCounter skips;
  ltl::AnalyzeOptions options;
  options.input_name = ltl::SafeLabel(in.ConsumeRandomLengthString(64));
  options.capacities.tokens = ltl::DefaultCapacityTokens();
  options.kv_cache.threads = 1;
  ltl::Trace trace = ltl::BuildTrace(loaded.records);
  ltl::Profile p = ltl::AnalyzeInput(loaded, trace, skips, options);

  LTL_FUZZ_CHECK(p.dist.qps_over_time.size() <= ltl::kMaxQpsBins);
  const std::string terminal = ltl::RenderTerminalSummary(p);
  for (unsigned char c : terminal) LTL_FUZZ_CHECK(c >= 0x20 || c == '\n');
  if (outputs == 0 || outputs == 1) {
    const std::string json = ltl::RenderReportJson(p);
    static simdjson::dom::parser parser;  // parses back ~10x faster than nlohmann under ASan
    simdjson::dom::element doc;
    LTL_FUZZ_CHECK(!parser.parse(json).get(doc));
  }
  if (outputs == 0 || outputs == 2) {
    const std::string html = ltl::RenderReportHtml(p);
    LTL_FUZZ_CHECK(html.size() < (8u << 20));
  }
  return 0;
}
