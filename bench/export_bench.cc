// Export throughput, in MB of input per second: reading a trace alone (the baseline) against
// reading it and writing the export (mooncake, bailian, coarsened, dense), in the same process, on
// a generated bailian trace of --mb megabytes (conversations resending their history, 16-token
// blocks) and on any files named on the command line.
//
//   build/export_bench [--mb N] [FILE ...]
//
// The export is written to a real file through AtomicFile (fsync included), as the command does.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "common/atomic_file.h"
#include "export/export_trace.h"
#include "ingest/load_input.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Writes a bailian trace of about `mb` megabytes: 64 shared system prompts (skewed popularity),
// conversations of 2-30 turns whose every turn resends the history plus 1-40 new blocks.
std::string GenerateBailian(const std::string& path, uint64_t mb) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> turns(2, 30), grow(1, 40), sys_len(20, 200), tail(0, 15);
  std::geometric_distribution<int> popular(0.2);
  std::vector<std::vector<uint64_t>> systems(64);
  uint64_t next_id = 1;
  for (auto& s : systems)
    for (int i = 0, n = sys_len(rng); i < n; ++i) s.push_back(next_id++);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return "";
  std::string line;
  uint64_t bytes = 0, chat = 0;
  double t = 0;
  while (bytes < mb * 1000000) {
    std::vector<uint64_t> ids = systems[std::min<size_t>(popular(rng), systems.size() - 1)];
    int64_t parent = -1;
    for (int k = 1, n = turns(rng); k <= n; ++k) {
      for (int i = 0, g = grow(rng); i < g; ++i) ids.push_back(next_id++);
      int tl = tail(rng);
      int64_t len = static_cast<int64_t>(ids.size()) * 16 - (tl ? 16 - tl : 0);
      line = fmt::format(
          "{{\"chat_id\": {}, \"parent_chat_id\": {}, \"timestamp\": {:.3f}, \"input_length\": {}, "
          "\"output_length\": 100, \"type\": \"text\", \"turn\": {}, \"hash_ids\": [{}]}}\n",
          chat, parent, t += 0.013, len, k, fmt::join(ids, ", "));
      parent = static_cast<int64_t>(chat++);
      std::fwrite(line.data(), 1, line.size(), f);
      bytes += line.size();
    }
  }
  std::fclose(f);
  return path;
}

struct Case {
  const char* name;
  ltl::ExportTarget target;
  uint32_t block_size;  // 0 = the input's own
  bool dense;
  bool to_disk = true;  // false: lines go to memory, isolating formatting from disk I/O and fsync
};

void Measure(const std::string& file, const std::string& out_dir) {
  const uint64_t size = std::filesystem::file_size(file);
  auto load = [&](ltl::LoadedInput* in) {
    ltl::SkipCounter skips;
    ltl::IngestContext ctx;
    ctx.name = file;
    ctx.skips = &skips;
    ctx.gateway.salt_file = out_dir + "/salt";  // gateway logs: a throwaway key
    auto r = ltl::LoadInput(file, ltl::InputFormat::kAuto, &ctx);
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.status().message().c_str());
      std::exit(2);
    }
    *in = std::move(r.value());
  };
  // Each case runs kRuns times and keeps its fastest run (the machine is shared, timings are
  // noisy).
  constexpr int kRuns = 3;
  double read_s = 1e300;
  uint32_t native = 16;
  size_t requests = 0;
  for (int run = 0; run < kRuns; ++run) {
    auto t0 = Clock::now();
    ltl::LoadedInput in;
    load(&in);
    read_s = std::min(read_s, Seconds(t0, Clock::now()));
    if (!in.records.empty()) native = in.records.front().block_size;
    requests = in.records.size();
  }
  std::printf("%s: %.1f MB, %zu requests, block size %u (best of %d runs)\n", file.c_str(),
              size / 1e6, requests, native, kRuns);
  std::printf("  %-34s %7.3f s %8.1f MB/s  (baseline)\n", "read only", read_s, size / 1e6 / read_s);
  const Case cases[] = {
      {"read + export mooncake (own bs)", ltl::ExportTarget::kMooncake, 0, false},
      {"read + export bailian (own bs)", ltl::ExportTarget::kBailian, 0, false},
      {"read + export mooncake bs 512", ltl::ExportTarget::kMooncake, 512, false},
      {"read + export mooncake --dense-ids", ltl::ExportTarget::kMooncake, 0, true},
      {"read + export mooncake, no disk", ltl::ExportTarget::kMooncake, 0, false, false}};
  for (const Case& c : cases) {
    double best = 1e300, best_export = 0;
    uint64_t written = 0;
    for (int run = 0; run < kRuns; ++run) {
      auto a = Clock::now();
      ltl::LoadedInput again;
      load(&again);
      auto b = Clock::now();
      ltl::ExportOptions o;
      o.target = c.target;
      o.block_size = c.block_size ? c.block_size : native;
      o.dense_ids = c.dense;
      ltl::SkipCounter skips;
      ltl::IngestContext ctx;
      ctx.name = file;
      ctx.skips = &skips;
      ltl::AtomicFile out;
      ltl::ExportStats stats;
      written = 0;
      ltl::Status st = out.Open(out_dir + "/export.jsonl");
      if (st.ok())
        st = ltl::ExportTrace(
            again.records, o, &ctx,
            [&](std::string_view s) {
              written += s.size();
              return c.to_disk ? out.Write(s) : ltl::Status::Ok();
            },
            &stats);
      if (st.ok()) st = out.Commit();
      if (!st.ok()) {
        std::fprintf(stderr, "%s\n", st.message().c_str());
        std::exit(2);
      }
      auto e = Clock::now();
      if (Seconds(a, e) < best) best = Seconds(a, e), best_export = Seconds(b, e);
    }
    std::printf(
        "  %-34s %7.3f s %8.1f MB/s  (%.2fx the read-only time; export step %.3f s; "
        "wrote %.1f MB)\n",
        c.name, best, size / 1e6 / best, best / read_s, best_export, written / 1e6);
  }
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t mb = 200;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--mb") == 0 && i + 1 < argc)
      mb = std::stoull(argv[++i]);
    else
      files.push_back(argv[i]);
  }
  auto dir =
      std::filesystem::temp_directory_path() / fmt::format("ltl-export-bench-{}", ::getpid());
  std::filesystem::create_directories(dir);
  for (const std::string& f : files) Measure(f, dir.string());
  if (mb > 0) {
    auto g0 = Clock::now();
    std::string gen = GenerateBailian((dir / "generated-bailian.jsonl").string(), mb);
    std::printf("(generated %s in %.1f s)\n", gen.c_str(), Seconds(g0, Clock::now()));
    Measure(gen, dir.string());
  }
  std::filesystem::remove_all(dir);
  return 0;
}
