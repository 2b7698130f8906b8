// `llmtrafficlens tokenize`: prints the token ids of each input line (space-separated, one output
// line per input line, the line's '\n' not included) so users can check block boundaries. With
// --null-data the input records are NUL-separated instead, so texts may contain newlines. With
// --chat-template each record is a request body, rendered by that template first (as `profile`
// renders it); --text prints the rendered text instead of ids. --model-dir DIR takes both the
// template and the tokenizer.json from a Hugging Face model folder, as profile's --model-dir does.
#include <fmt/format.h>
#include <simdjson.h>

#include <ctime>
#include <memory>

#include "cli/commands.h"
#include "cli/model_files.h"
#include "read/input_stream.h"
#include "read/read_context.h"
#include "render/model_chat_template.h"
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
  std::string chat_template;  // "" = records are texts, not request bodies
  std::string model_dir;      // --model-dir: gives chat_template and (if present) tokenizer
  bool text = false;          // --text: print the rendered text, not ids
  int64_t now = -1;           // --now: what strftime_now formats (-1 = the clock)
};

// --chat-template: each record is a request body rendered by the template. One instance per run.
class BodyRenderer {
 public:
  BodyRenderer(ModelChatTemplatePtr tmpl, int64_t now) : tmpl_(std::move(tmpl)), now_(now) {}
  // The rendered text, or nullptr with *error set (no request text in it).
  const std::string* Render(std::string_view record, std::string* error) {
    padded_ = simdjson::padded_string(record);
    simdjson::dom::element body;
    if (auto e = parser_.parse(padded_).get(body); e) {
      *error = fmt::format("not a JSON request body ({})", simdjson::error_message(e));
      return nullptr;
    }
    if (!body.is_object()) {
      *error = "not a JSON request body (not an object)";
      return nullptr;
    }
    prompt_.Clear();
    if (!tmpl_->Render(body, now_, &scratch_, &prompt_, error)) return nullptr;
    return &prompt_.text;
  }

 private:
  ModelChatTemplatePtr tmpl_;
  int64_t now_;
  simdjson::dom::parser parser_;
  simdjson::padded_string padded_;
  ModelTemplateScratch scratch_;
  RenderedPrompt prompt_;
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

int RunTokenize(TokenizeArgs a) {
  if (!a.model_dir.empty()) {
    if (!a.chat_template.empty()) {
      PrintError("--chat-template and --model-dir " + a.model_dir +
                 " both give the template; keep one");
      return kExitUnusable;
    }
    auto folder = FindModelFolder("--model-dir " + a.model_dir, a.model_dir);
    if (!folder.ok()) {
      PrintError(folder.status().message());
      return kExitUnusable;
    }
    if (!a.tokenizer.empty() && !folder->tokenizer.empty()) {
      PrintError("--tokenizer and --model-dir " + a.model_dir +
                 " (its tokenizer.json) both give the tokenizer; keep one");
      return kExitUnusable;
    }
    a.chat_template = folder->chat_template;
    if (a.tokenizer.empty()) a.tokenizer = folder->tokenizer;
    if (a.tokenizer.empty() && !a.text) {
      PrintError("--model-dir " + a.model_dir +
                 " has no tokenizer.json: give --tokenizer, or --text to print the rendered text");
      return kExitUnusable;
    }
  }
  if (a.text && a.chat_template.empty()) {
    PrintError("--text needs --chat-template (without it the input already is the text)");
    return kExitUnusable;
  }
  if (a.tokenizer.empty() && !a.text) {
    PrintError("--tokenizer is required (or --chat-template FILE --text to print rendered text)");
    return kExitUnusable;
  }
  std::unique_ptr<BodyRenderer> renderer;
  if (!a.chat_template.empty()) {
    auto t = ModelChatTemplate::Load(a.chat_template);
    if (!t.ok()) {
      PrintError("--chat-template: " + t.status().message());
      return kExitUnusable;
    }
    renderer = std::make_unique<BodyRenderer>(
        *t, a.now >= 0 ? a.now : static_cast<int64_t>(std::time(nullptr)));
  }
  std::unique_ptr<Tokenizer> tok;
  if (!a.tokenizer.empty()) {
    auto loaded = LoadTokenizer(a.tokenizer, a.data_dir);
    if (!loaded.ok()) {
      PrintError(loaded.status().message());
      return kExitUnusable;
    }
    tok = std::move(loaded).value();
  }
  if (a.cache && tok) {
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
  uint64_t record = 0, refused = 0;
  std::string error;
  auto emit = [&](std::string_view text) {
    ++record;
    if (renderer) {
      // A refused body prints an empty line (one output line per input record stays true) and
      // its reason, which never quotes the request, on stderr.
      const std::string* rendered = renderer->Render(text, &error);
      if (!rendered) {
        ++refused;
        PrintWarning(fmt::format("{}:{}: {}", name, record, error));
        out.push_back('\n');
        return;
      }
      text = *rendered;
      if (a.text) {
        out.append(text);
        out.push_back(a.null_data ? '\0' : '\n');
        if (out.size() > (1 << 16)) {
          std::fwrite(out.data(), 1, out.size(), stdout);
          out.clear();
        }
        return;
      }
    }
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
  if (tok) {
    Status enc = tok->EncodeStatus();
    if (!enc.ok()) {  // the ids printed are not all the reference's
      PrintError(enc.message());
      return kExitUnusable;
    }
  }
  if (refused > 0) {
    PrintError(fmt::format("{}: the chat template refused {} of {} request bodies", name, refused,
                           record));
    return kExitTooManySkipped;
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
                  "tokenizer.json (required unless --chat-template with --text)");
  cmd->add_option("--chat-template", args->chat_template,
                  "Each input record is a request body (OpenAI chat or Anthropic Messages JSON): "
                  "render it with this chat template (a .jinja file or a tokenizer_config.json) as "
                  "profile does, then tokenize the rendered text");
  cmd->add_option("--model-dir", args->model_dir,
                  "Each input record is a request body: render it with this Hugging Face model "
                  "folder's template (chat_template.jinja, else tokenizer_config.json) and "
                  "tokenize it with its tokenizer.json, as profile --model-dir does");
  cmd->add_flag("--text", args->text,
                "With --chat-template or --model-dir: print each rendered text (followed by a "
                "newline, or a NUL "
                "with -z) instead of its ids");
  cmd->add_option(
         "--now", args->now,
         "With --chat-template or --model-dir: the time strftime_now formats, in Unix seconds "
         "(default: the clock; profile uses each request's own timestamp)")
      ->check(CLI::NonNegativeNumber);
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
