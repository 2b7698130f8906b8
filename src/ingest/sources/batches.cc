// Sources `openai-batch` and `anthropic-batch`: batch API input files. OpenAI Batch: one
// {custom_id, method, url, body} per line, body a chat request (platform.openai.com batch guide).
// Anthropic Message Batches: the create body {"requests": [{custom_id, params}]}, one
// pretty-printed document (the document framing reads its array) or one {custom_id, params} per
// line; params is a Messages request (docs.anthropic.com, Message Batches API). Neither has times,
// statuses or sessions: conversations are inferred from the prompts.
#include "ingest/source_spec.h"

namespace ltl {

extern const SourceSpec kOpenAiBatch = {
    .name = "openai-batch",
    .tool = "OpenAI Batch input file",
    .summary = "one {custom_id, method, url, body} per line",
    .example =
        R"({"custom_id": "req-1", "method": "POST", "url": "/v1/chat/completions", "body": {"model": "gpt-4o", "messages": [...]}})",
    .detect_all = {"custom_id", "body", "url"},
    .priority = 30,
    .body = {"body"},
};

extern const SourceSpec kAnthropicBatch = {
    .name = "anthropic-batch",
    .tool = "Anthropic Message Batches",
    .summary = R"(requests[].params, or one {custom_id, params} per line)",
    .example =
        R"({"requests": [{"custom_id": "req-1", "params": {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": [...]}}]})",
    .detect_all = {"custom_id", "params"},
    .priority = 30,
    .body = {"params"},
};

}  // namespace ltl
