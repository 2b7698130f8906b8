// AnthropicCall: one logged Anthropic Messages API call reduced to what a cache trace needs — its
// time, session, model, streaming flag, chained block hashes of tools + system + messages (see
// cctrace_json.h and cctrace_hash.h), the digests that tell threads and turns apart, the Task/Agent
// spawns it shows, and its response (content types, stop reason, usage, timing). No text is kept.
//
// ReadAnthropicCalls reads any gateway log the ingest stage reads (ingest/gateway_readers.h: every
// source, CSV or JSON in any framing): the row locator finds body, response, time, session, model
// and timing; this file only turns each located Anthropic request into a call. Bad rows are
// skipped and counted by reason with their line; failed requests are counted and left out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "ingest/ingest_context.h"
#include "ingest/time_check.h"
#include "read/input_format.h"
#include "read/input_stream.h"
#include "tokenize/tokenizer.h"

namespace ltl {

// Tokens per block of an exported cache trace when --block-size does not say (the Claude-Code
// cache trace's own block size).
inline constexpr uint32_t kCctraceDefaultBlockSize = 64;

struct TaskSpawn {
  uint64_t prompt_digest = 0;  // digest of the tool_use input.prompt
  std::string subagent_type;   // input.subagent_type ("" when absent)
};

struct AnthropicCall {
  uint64_t line = 0;
  double time_s = 0;  // epoch seconds
  bool has_time = false;
  std::string session;        // session id as logged ("" = none); never written except its head
  std::string session_field;  // which field carried it
  std::string model;
  bool stream = false;

  std::vector<uint64_t> hashes;  // chained hashes of the full blocks
  int64_t prompt_tokens = 0;     // cl100k tokens of the serialized tools + system + messages
  int64_t tool_tokens = 0, system_tokens = 0;
  uint64_t thread_digest = 0;         // tools + system: tells the main thread from sub-agents
  uint64_t messages_digest = 0;       // equal for a within-turn repeat
  uint64_t first_message_digest = 0;  // the first message (instance key): its text(s) when it is
                                      // a user message with text, else its whole JSON
  std::vector<uint64_t> first_user_text_digests;  // the first user message's text(s)
  std::vector<std::string> message_types;         // content types over all messages, in order
  std::vector<TaskSpawn> spawns;  // Task/Agent tool_use blocks in the messages and the response

  // Response (when logged).
  bool has_response = false;
  std::vector<std::string> output_types;
  std::string stop;       // stop_reason, "" when unknown
  int64_t tool_uses = 0;  // tool_use blocks in the response
  int64_t usage_in = -1;  // input_tokens + cache_read + cache_creation, -1 unknown
  int64_t usage_out = -1;
  double api_time = -1;  // seconds, -1 unknown
  double ttft = -1;      // seconds, -1 unknown
};

struct AnthropicReadStats {
  uint64_t filtered_status = 0;  // failed requests (non-2xx, failure, ERROR)
  uint64_t rows = 0;             // rows holding a record (valid or not)
  uint64_t ignored = 0;          // records of another kind (spans, events)
  std::string source;            // the source table used
  TimeCheck times;               // implausible times dropped (ingest/time_check.h)
};

struct AnthropicReadConfig {
  const Tokenizer* tokenizer = nullptr;  // cl100k_base
  std::string salt;
  uint32_t block_size = kCctraceDefaultBlockSize;
};

// `detection.format` is kCsv or kJsonl (read/input_format.h).
Status ReadAnthropicCalls(InputStream* in, const Detection& detection,
                          const AnthropicReadConfig& config, IngestContext* ctx,
                          std::vector<AnthropicCall>* out, AnthropicReadStats* stats);

}  // namespace ltl
