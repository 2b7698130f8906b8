// InputFormat: every input the tool reads, and detection from content (never from the file name).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "read/json_records.h"

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

// What detection decided, and why (report.json `input.detection`).
struct Detection {
  InputFormat format = InputFormat::kAuto;
  JsonFraming framing = JsonFraming::kLines;  // JSON inputs: how records are delimited
  std::string document_key;                   // JsonFraming::kDocument: the records' key
  std::string reason;                         // one sentence, no input text
};

// Top-level keys of a JSON document whose array value holds the records ({"requests": [...]}).
const std::vector<std::string_view>& RecordArrayKeys();

// Whether `head` holds enough to decide: the whole first JSON value (or the end of the input), or
// for other inputs the first line. Detection reads until this is true or the head exceeds the
// record limit, so a first record of any length is seen whole.
bool HeadDecides(std::string_view head, bool at_end);

// Decides the format from the head of the (decompressed) input (see HeadDecides).
Result<Detection> DetectFormat(std::string_view head, const std::string& name);

}  // namespace ltl
