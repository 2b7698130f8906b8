// tokenizer_bench: single-thread encoding speed of a Tokenizer on a NUL-separated corpus, plus the
// pre-tokenization regex alone, plus (--conversation) the per-segment cache on a conversation that
// resends its history every turn. Used by bench/run-tokenizer-bench.sh, which runs tiktoken's
// WASM build on the same corpus in the same script.
// Usage: tokenizer_bench --tokenizer NAME|PATH [--data-dir DIR] [--conversation] FILE
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "tokenize/caching_tokenizer.h"
#include "tokenize/file_bytes.h"
#include "tokenize/split_regex.h"
#include "tokenize/tiktoken_tokenizer.h"
#include "tokenize/tokenizer.h"
#include "tokenize/utf8.h"

namespace {

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU time of the whole process (one thread here), which the load of a shared machine moves far
// less than wall time; the node baseline reports the same measure (process.cpuUsage).
double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::vector<std::string_view> Records(const std::string& data) {
  std::vector<std::string_view> out;
  size_t begin = 0;
  for (size_t i = 0; i <= data.size(); ++i) {
    if (i == data.size() || data[i] == '\0') {
      if (i > begin) out.emplace_back(data.data() + begin, i - begin);
      begin = i + 1;
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string name, file, data_dir = LTL_DEFAULT_DATA_DIR;
  bool conversation = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--tokenizer") && i + 1 < argc) {
      name = argv[++i];
    } else if (!std::strcmp(argv[i], "--data-dir") && i + 1 < argc) {
      data_dir = argv[++i];
    } else if (!std::strcmp(argv[i], "--conversation")) {
      conversation = true;
    } else {
      file = argv[i];
    }
  }
  auto t0 = std::chrono::steady_clock::now();
  auto tok = ltl::LoadTokenizer(name, data_dir);
  if (!tok.ok()) {
    std::fprintf(stderr, "%s\n", tok.status().message().c_str());
    return 2;
  }
  const double load = Seconds(t0);
  auto data = ltl::ReadFileBytes(file);
  if (!data.ok()) {
    std::fprintf(stderr, "%s\n", data.status().message().c_str());
    return 2;
  }
  auto records = Records(*data);
  std::vector<uint32_t> ids;
  ids.reserve(data->size());

  if (conversation) {
    // Turn k sends records 0..k of a 200-record conversation, as chat clients resend history.
    const size_t turns = std::min<size_t>(records.size(), 200);
    std::vector<std::string> prompts;
    std::string history;
    for (size_t k = 0; k < turns; ++k) {
      history += "<|im_start|>user\n";
      history += records[k];
      history += "<|im_end|>\n";
      prompts.push_back(history);
    }
    size_t bytes = 0, tokens_plain = 0, tokens_cached = 0;
    t0 = std::chrono::steady_clock::now();
    for (const auto& p : prompts) {
      ids.clear();
      (*tok)->Encode(p, &ids);
      tokens_plain += ids.size();
      bytes += p.size();
    }
    const double plain = Seconds(t0);
    ltl::CachingTokenizer cached(std::move(tok).value());
    t0 = std::chrono::steady_clock::now();
    for (const auto& p : prompts) {
      ids.clear();
      cached.Encode(p, &ids);
      tokens_cached += ids.size();
    }
    const double with_cache = Seconds(t0);
    std::printf(
        "conversation %s: %zu turns, %.1f MB of prompts, %zu tokens (cached run %zu)\n"
        "  whole-text encoding  %.3f s  %.2f Mtok/s\n"
        "  with segment cache   %.3f s  %.2f Mtok/s  (%.1fx; %.1f%% of bytes served from cache)\n",
        name.c_str(), turns, bytes / 1e6, tokens_plain, tokens_cached, plain,
        tokens_plain / plain / 1e6, with_cache, tokens_cached / with_cache / 1e6,
        plain / with_cache,
        100.0 * cached.stats().hit_bytes /
            std::max<double>(1, cached.stats().hit_bytes + cached.stats().miss_bytes));
    return tokens_plain == tokens_cached ? 0 : 1;
  }

  size_t tokens = 0;
  t0 = std::chrono::steady_clock::now();
  const double cpu0 = ProcessCpuSeconds();
  for (auto r : records) {
    ids.clear();
    (*tok)->Encode(r, &ids);
    tokens += ids.size();
  }
  const double encode = Seconds(t0);
  const double encode_cpu = ProcessCpuSeconds() - cpu0;

  // The split alone, when the tokenizer is a tiktoken encoding.
  double split = 0;
  size_t pieces = 0;
  if (auto* tt = dynamic_cast<const ltl::TiktokenTokenizer*>(tok->get())) {
    const char* pattern = name == "o200k_base" ? ltl::kO200kPattern : ltl::kCl100kPattern;
    auto re = ltl::SplitRegex::Compile(pattern);
    (void)tt;
    // The matcher requires valid UTF-8 (PCRE2_NO_UTF_CHECK), as the encoder ensures before it
    // splits: repair ill-formed records first, outside the timing.
    std::vector<std::string> storage(records.size());
    std::vector<std::string_view> valid;
    for (size_t i = 0; i < records.size(); ++i)
      valid.push_back(ltl::ValidUtf8View(records[i], &storage[i]));
    t0 = std::chrono::steady_clock::now();
    for (auto r : valid) {
      ltl::SplitRegex::Matcher m(**re);
      size_t pos = 0, b, e;
      while (m.Find(r, pos, &b, &e)) {
        ++pieces;
        pos = e;
      }
    }
    split = Seconds(t0);
  }
  std::printf(
      "%s (llmtrafficlens): %.1f MB, %zu records, %zu tokens; load %.3f s; encode wall %.3f s = "
      "%.2f Mtok/s, %.1f MB/s; encode CPU %.3f s = %.2f Mtok/s; split alone %.3f s (%zu pieces)\n",
      name.c_str(), data->size() / 1e6, records.size(), tokens, load, encode, tokens / encode / 1e6,
      data->size() / encode / 1e6, encode_cpu, tokens / encode_cpu / 1e6, split, pieces);
  return 0;
}
