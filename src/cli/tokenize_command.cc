// `llmtrafficlens tokenize`: prints the token ids of each input line (space-separated, one output
// line per input line, the line's '\n' not included) so users can check block boundaries. With
// --null-data the input records are NUL-separated instead, so texts may contain newlines.
#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "read/input_stream.h"
#include "read/read_context.h"
#include "tokenize/caching_tokenizer.h"
#include "tokenize/tokenizer.h"

namespace ltl::cli {
namespace {

struct TokenizeArgs {
  std::string tokenizer;
  std::string input = "-";
  std::string data_dir = LTL_DEFAULT_DATA_DIR;
  bool count = false;
  bool null_data = false;
  bool cache = false;
  size_t cache_min_segment = 256;
  size_t max_line_bytes = ReadLimits{}.max_line_bytes;
};

// Calls fn(record) for each NUL-terminated record (a final record without NUL counts too).
template <typename Fn>
Status ForEachNulRecord(InputStream* in, size_t max_bytes, Fn&& fn) {
  std::string buf;
  size_t begin = 0;
  std::vector<char> chunk(1 << 20);
  for (;;) {
    auto n = in->Read(chunk.data(), chunk.size());
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    buf.append(chunk.data(), *n);
    size_t nul;
    while ((nul = buf.find('\0', begin)) != std::string::npos) {
      fn(std::string_view(buf).substr(begin, nul - begin));
      begin = nul + 1;
    }
    if (buf.size() - begin > max_bytes) {
      return Status::Limit(fmt::format("record longer than --max-line-bytes {}", max_bytes));
    }
    buf.erase(0, begin);
    begin = 0;
  }
  if (begin < buf.size()) fn(std::string_view(buf).substr(begin));
  return Status::Ok();
}

int RunTokenize(const TokenizeArgs& a) {
  auto loaded = LoadTokenizer(a.tokenizer, a.data_dir);
  if (!loaded.ok()) {
    PrintError(loaded.status().message());
    return kExitUnusable;
  }
  std::unique_ptr<Tokenizer> tok = std::move(loaded).value();
  if (a.cache) {
    if (!tok->NewlineCutIsExact()) {
      PrintWarning(fmt::format(
          "--cache has no effect: cutting a text at newlines could change {}'s ids, so its texts "
          "are always encoded whole",
          tok->name()));
    }
    tok = std::make_unique<CachingTokenizer>(std::move(tok), size_t{64} << 20, a.cache_min_segment);
  }
  auto in = OpenInput(a.input);
  if (!in.ok()) {
    PrintError(in.status().message());
    return kExitUnusable;
  }
  const std::string name = a.input == "-" ? "<stdin>" : a.input;
  std::vector<uint32_t> ids;
  fmt::memory_buffer out;
  auto emit = [&](std::string_view text) {
    ids.clear();
    tok->Encode(text, &ids);
    if (a.count) {
      fmt::format_to(std::back_inserter(out), "{}\n", ids.size());
    } else {
      fmt::format_to(std::back_inserter(out), "{}\n", fmt::join(ids, " "));
    }
    if (out.size() > (1 << 16)) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  };
  if (a.null_data) {
    Status st = ForEachNulRecord(in->get(), a.max_line_bytes, emit);
    if (!st.ok()) {
      PrintError(fmt::format("{}: {}", name, st.message()));
      return kExitUnusable;
    }
  } else {
    LineReader lines(in->get(), a.max_line_bytes);
    std::string_view line;
    for (;;) {
      LineReader::Outcome outcome = lines.Next(&line);
      if (outcome == LineReader::Outcome::kEnd) break;
      if (outcome == LineReader::Outcome::kError) {
        PrintError(lines.error().message());
        return kExitUnusable;
      }
      if (outcome == LineReader::Outcome::kTooLong) {
        PrintError(fmt::format("{}:{}: line longer than --max-line-bytes {}", name,
                               lines.line_number(), a.max_line_bytes));
        return kExitUnusable;
      }
      emit(line);
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  if (std::fflush(stdout) != 0) {
    PrintError("cannot write standard output");
    return kExitUnusable;
  }
  Status enc = tok->EncodeStatus();
  if (!enc.ok()) {  // the ids printed are not all the reference's
    PrintError(enc.message());
    return kExitUnusable;
  }
  return kExitOk;
}

}  // namespace

void RegisterTokenize(CLI::App& app, CommandRegistry& registry) {
  auto args = std::make_shared<TokenizeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "tokenize", "Print the token ids of each input line (space-separated, one line per line)");
  cmd->add_option("--tokenizer", args->tokenizer,
                  "cl100k_base, o200k_base, a .tiktoken ranks file or a Hugging Face "
                  "tokenizer.json")
      ->required();
  cmd->add_option("FILE", args->input, "Input text (plain, .gz or .zst), or - for stdin (default)");
  cmd->add_option("--data-dir", args->data_dir,
                  "Where cl100k_base / o200k_base vocabularies are installed (default: the "
                  "build's data directory, filled by scripts/fetch-vocab.sh)");
  cmd->add_flag("-z,--null-data", args->null_data,
                "Input records are separated by NUL bytes instead of newlines");
  cmd->add_flag("--cache", args->cache,
                "Encode through the per-segment token cache (same ids; for checking it)");
  cmd->add_option("--cache-min-segment", args->cache_min_segment,
                  "With --cache: shortest segment in bytes (default 256; 1 cuts at every newline "
                  "the cache may cut at, for checking that cutting there is exact)");
  cmd->add_flag("--count", args->count, "Print the number of tokens per line instead of the ids");
  cmd->add_option("--max-line-bytes", args->max_line_bytes,
                  "Longest input line accepted (default 256 MiB)");
  cmd->callback([args, &registry] { registry.Set([args] { return RunTokenize(*args); }); });
}

}  // namespace ltl::cli
