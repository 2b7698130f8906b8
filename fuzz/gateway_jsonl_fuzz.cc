// libFuzzer target: the JSONL gateway-log reader, body rendering, cutting and hashing included
// (shared properties in gateway_fuzz_impl.h), plus: every non-blank line is a record, a counted
// skip or a counted non-2xx row, so nothing is dropped silently.
#include "fuzz/gateway_fuzz_impl.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text;
  ltl::Detection detection;  // JSON lines (the other framings: json_records tests)
  detection.format = ltl::InputFormat::kJsonl;
  ltl::fuzz::GatewayRun run = ltl::fuzz::FuzzGateway(detection, data, size, &text);
  if (size < 2) return 0;
  LTL_FUZZ_CHECK(run.status.ok());
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a BOM is not content
  // Sources with records nested in a line (OTLP spans) make several rows of one line.
  if (run.stats.source == "otel-genai" || run.stats.source == "openllmetry") return 0;
  LTL_FUZZ_CHECK(run.records.size() + run.skips.total() + run.stats.filtered_status +
                     run.stats.ignored ==
                 ltl::fuzz::NonBlankLines(text, " \t\r"));
  return 0;
}
