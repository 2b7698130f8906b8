// TokenizeRun: `tokenize` as a library call: the token ids (or counts) of each input record, one
// output line per record, so users can check block boundaries; with a chat template each record
// is a request body rendered as `profile` renders it first (--text prints the rendered text).
// --model-dir DIR takes both the template and the tokenizer.json from a Hugging Face model folder.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "pipeline/run_setup.h"
#include "read/read_context.h"

namespace ltl {

struct TokenizeSpec {
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

// Where the output goes: write(bytes) in order, flush() once at the end (an error ends the run).
struct TokenizeOutput {
  std::function<void(std::string_view)> write;
  std::function<Status()> flush;
};

struct TokenizeResult {
  std::string refused;  // "FILE: the chat template refused N of M request bodies" ("" = none)
};

// Errors are one printable line; a refused body's reason goes to hooks.warn (never its text).
Result<TokenizeResult> TokenizeRun(TokenizeSpec a, const TokenizeOutput& sink,
                                   const RunHooks& hooks);

}  // namespace ltl
