// InputFormat: every input the tool reads, and detection from content (never from the file name).
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace ltl {

enum class InputFormat {
  kAuto,
  kMooncake,  // hashed trace: timestamp (ms), input_length, output_length, hash_ids
  kBailian,   // hashed trace: chat_id, parent_chat_id, timestamp (s), ..., hash_ids
  kCctrace,   // per-conversation cache trace JSON (file or directory)
  kCsv,       // gateway log: CSV with a request_json column
  kJsonl,     // gateway log: one request (and optional response) per line
};

const char* FormatName(InputFormat f);
Result<InputFormat> ParseFormatName(std::string_view name);

// Decides the format from the first bytes of the (decompressed) input. `head` should hold at least
// the first line when one exists.
Result<InputFormat> DetectFormat(std::string_view head, const std::string& name);

}  // namespace ltl
