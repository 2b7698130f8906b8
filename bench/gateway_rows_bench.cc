// Gateway row throughput on one thread, stage by stage, on the same file in the same process:
//   read      CsvReader only (split records, unescape fields)
//   siphash   read + SipHash-2-4 over every request field in 64-byte pieces (the hashing floor)
//   rows      read + GatewayRowProcessor (parse + render + cut + hash + session), records dropped
// Prints MB/s of input for each and the ratios, so the cost of parse+render over bare reading and
// hashing is visible.
//
//   build/gateway_rows_bench FILE.csv
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

#include "ingest/gateway_row.h"
#include "read/csv_reader.h"
#include "read/input_stream.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Run {
  double seconds = 0;      // wall
  double cpu_seconds = 0;  // this process's CPU time (robust when the machine is shared)
  uint64_t bytes = 0, rows = 0, blocks = 0;
};

template <typename PerRow>
Run Pass(const std::string& path, PerRow per_row) {
  Run run;
  auto in = ltl::OpenInput(path);
  if (!in.ok()) {
    std::fprintf(stderr, "%s\n", in.status().message().c_str());
    std::exit(2);
  }
  ltl::CsvReader csv(in->get(), ltl::ReadLimits{});
  auto t0 = Clock::now();
  std::clock_t c0 = std::clock();
  if (csv.Next() != ltl::CsvReader::Outcome::kRecord) std::exit(2);  // header
  std::vector<std::string> header;
  for (auto f : csv.fields()) header.emplace_back(f);
  size_t req = 0, model = 0;
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "request_json") req = i;
    if (header[i] == "model_name") model = i;
  }
  for (;;) {
    auto o = csv.Next();
    if (o == ltl::CsvReader::Outcome::kEnd || o == ltl::CsvReader::Outcome::kError) break;
    if (o != ltl::CsvReader::Outcome::kRecord) continue;
    ++run.rows;
    run.blocks += per_row(csv.fields(), req, model, csv.record_line());
  }
  run.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  run.cpu_seconds = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  run.bytes = (*in)->raw_bytes_read();
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.csv\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const ltl::SipKey key{1, 2};
  Run read = Pass(path, [](const auto&, size_t, size_t, uint64_t) { return 0; });
  Run sip = Pass(path, [&](const auto& f, size_t req, size_t, uint64_t) {
    uint64_t acc = 0, n = 0;
    std::string_view s = f[req];
    for (size_t i = 0; i < s.size(); i += 64, ++n) acc ^= ltl::SipHash24(key, s.substr(i, 64));
    return n + (acc == 42);
  });
  ltl::GatewayConfig config;
  config.key = key;
  config.source = ltl::CompileSource(*ltl::FindSource("generic"), {}).value();
  // The generic source's layout for a two-column header: the request body and the model.
  const ltl::CsvLayout layout = ltl::MapCsvHeader(*config.source, {"request_json", "model_name"});
  ltl::GatewayRowProcessor proc(config);
  ltl::RequestRecord rec;
  std::vector<std::string_view> cells;
  Run rows = Pass(path, [&](const auto& f, size_t req, size_t model, uint64_t line) {
    cells.clear();
    for (size_t c : layout.used) cells.push_back(c == 0 ? f[req] : f[model]);
    const char* reason = nullptr;
    proc.ProcessCsv(layout, cells, line, &rec, &reason);
    return rec.block_ids.size();
  });
  auto mbs = [](const Run& r) { return r.bytes / 1e6 / r.cpu_seconds; };
  std::printf("%-8s %10s %8s %8s %12s %12s\n", "stage", "MB", "wall s", "CPU s", "MB/s (CPU)",
              "rows");
  for (auto [name, r] : {std::pair{"read", read}, {"siphash", sip}, {"rows", rows}})
    std::printf("%-8s %10.1f %8.2f %8.2f %12.1f %12llu\n", name, r.bytes / 1e6, r.seconds,
                r.cpu_seconds, mbs(r), static_cast<unsigned long long>(r.rows));
  std::printf("CPU time ratios: rows/read %.2f, rows/siphash %.2f; %llu blocks\n",
              rows.cpu_seconds / read.cpu_seconds, rows.cpu_seconds / sip.cpu_seconds,
              static_cast<unsigned long long>(rows.blocks));
  return 0;
}
