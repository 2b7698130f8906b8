// TokenizeRun (see tokenize_run.h).
#include "pipeline/tokenize_run.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <ctime>
#include <memory>

#include "common/json_memory.h"
#include "pipeline/model_files.h"
#include "read/input_stream.h"
#include "render/model_chat_template.h"
#include "tokenize/caching_tokenizer.h"
#include "tokenize/tokenizer.h"

namespace ltl {
namespace {

// --chat-template: each record is a request body rendered by the template. One instance per run.
class BodyRenderer {
 public:
  BodyRenderer(ModelChatTemplatePtr tmpl, int64_t now) : tmpl_(std::move(tmpl)), now_(now) {}
  // The rendered text, or nullptr with *error set (no request text in it).
  const std::string* Render(std::string_view record, std::string* error) {
    padded_ = PaddedOrOutOfMemory(record);
    simdjson::dom::element body;
    if (auto e = JsonOrOutOfMemory(parser_.parse(padded_).get(body)); e) {
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

}  // namespace

Result<TokenizeResult> TokenizeRun(TokenizeSpec a, const TokenizeOutput& sink,
                                   const RunHooks& hooks) {
  if (!a.model_dir.empty()) {
    if (!a.chat_template.empty()) {
      return Status::InvalidArgument("--chat-template and --model-dir " + a.model_dir +
                                     " both give the template; keep one");
    }
    auto folder = FindModelFolder("--model-dir " + a.model_dir, a.model_dir);
    if (!folder.ok()) {
      return folder.status();
    }
    if (!a.tokenizer.empty() && !folder->tokenizer.empty()) {
      return Status::InvalidArgument("--tokenizer and --model-dir " + a.model_dir +
                                     " (its tokenizer.json) both give the tokenizer; keep one");
    }
    a.chat_template = folder->chat_template;
    if (a.tokenizer.empty()) a.tokenizer = folder->tokenizer;
    if (a.tokenizer.empty() && !a.text) {
      return Status::InvalidArgument(
          "--model-dir " + a.model_dir +
          " has no tokenizer.json: give --tokenizer, or --text to print the rendered text");
    }
  }
  if (a.text && a.chat_template.empty()) {
    return Status::InvalidArgument(
        "--text needs --chat-template (without it the input already is the text)");
  }
  if (a.tokenizer.empty() && !a.text) {
    return Status::InvalidArgument(
        "--tokenizer is required (or --chat-template FILE --text to print rendered text)");
  }
  std::unique_ptr<BodyRenderer> renderer;
  if (!a.chat_template.empty()) {
    auto t = ModelChatTemplate::Load(a.chat_template);
    if (!t.ok()) {
      return Status::InvalidArgument("--chat-template: " + t.status().message());
    }
    renderer = std::make_unique<BodyRenderer>(
        *t, a.now >= 0 ? a.now : static_cast<int64_t>(std::time(nullptr)));
  }
  std::unique_ptr<Tokenizer> tok;
  if (!a.tokenizer.empty()) {
    auto loaded = LoadTokenizer(a.tokenizer, a.data_dir);
    if (!loaded.ok()) {
      return loaded.status();
    }
    tok = std::move(loaded).value();
  }
  if (a.cache && tok) {
    if (!tok->NewlineCutIsExact()) {
      hooks.Warn(fmt::format(
          "--cache has no effect: cutting a text at newlines could change {}'s ids, so its texts "
          "are always encoded whole",
          tok->name()));
    }
    tok = std::make_unique<CachingTokenizer>(std::move(tok), size_t{64} << 20, a.cache_min_segment);
  }
  auto in = OpenInput(a.input);
  if (!in.ok()) {
    return in.status();
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
        hooks.Warn(fmt::format("{}:{}: {}", name, record, error));
        out.push_back('\n');
        return;
      }
      text = *rendered;
      if (a.text) {
        out.append(text);
        out.push_back(a.null_data ? '\0' : '\n');
        if (out.size() > (1 << 16)) {
          sink.write(std::string_view(out.data(), out.size()));
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
      sink.write(std::string_view(out.data(), out.size()));
      out.clear();
    }
  };
  if (a.null_data) {
    Status st = ForEachNulRecord(in->get(), a.max_line_bytes, emit);
    if (!st.ok()) {
      return Status::InvalidArgument(fmt::format("{}: {}", name, st.message()));
    }
  } else {
    LineReader lines(in->get(), a.max_line_bytes);
    std::string_view line;
    for (;;) {
      LineReader::Outcome outcome = lines.Next(&line);
      if (outcome == LineReader::Outcome::kEnd) break;
      if (outcome == LineReader::Outcome::kError) {
        return lines.error();
      }
      if (outcome == LineReader::Outcome::kTooLong) {
        return Status::InvalidArgument(fmt::format("{}:{}: line longer than --max-line-bytes {}",
                                                   name, lines.line_number(), a.max_line_bytes));
      }
      emit(line);
    }
  }
  sink.write(std::string_view(out.data(), out.size()));
  if (Status st = sink.flush ? sink.flush() : Status::Ok(); !st.ok()) return st;
  if (tok) {
    Status enc = tok->EncodeStatus();
    if (!enc.ok()) {  // the ids printed are not all the reference's
      return enc;
    }
  }
  TokenizeResult result;
  if (refused > 0)
    result.refused =
        fmt::format("{}: the chat template refused {} of {} request bodies", name, refused, record);
  return result;
}

}  // namespace ltl
