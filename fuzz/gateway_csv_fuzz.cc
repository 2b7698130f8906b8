// libFuzzer target: the CSV gateway-log reader (header mapping, row processing, rendering, cutting,
// hashing), with the shared properties of gateway_fuzz_impl.h, plus: when the header is usable,
// every CSV record after it is a request, a counted skip or a counted non-2xx row (records counted
// as the reader does: expecting the header's width, so a runaway quote costs one record per line
// passed over while resynchronizing).
#include "fuzz/gateway_fuzz_impl.h"
#include "read/csv_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text;
  ltl::Detection detection;
  detection.format = ltl::InputFormat::kCsv;
  ltl::fuzz::GatewayRun run = ltl::fuzz::FuzzGateway(detection, data, size, &text);
  if (size < 2 || !run.status.ok()) return 0;
  ltl::fuzz::MemoryStream in(text, text.size() + 1);
  ltl::CsvReader csv(&in, ltl::ReadLimits{}, text.size() + 64);  // not the 1 MiB default per input
  uint64_t rows = 0;
  bool header = false;
  for (;;) {
    auto o = csv.Next();
    if (o == ltl::CsvReader::Outcome::kEnd) break;
    if (!header) {
      header = o == ltl::CsvReader::Outcome::kRecord;
      if (header) csv.ExpectFields(csv.fields().size());
      continue;
    }
    ++rows;
  }
  LTL_FUZZ_CHECK(run.records.size() + run.skips.total() + run.stats.filtered_status +
                     run.stats.ignored ==
                 rows);
  return 0;
}
