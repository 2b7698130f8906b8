// Sources `openai-batch` and `anthropic-batch`: batch API input files.
// OpenAI Batch: a JSONL input file (openai/openai-python src/openai/types/batch_create_params.py
// @ 03febd7da9294ef5467c519792a8efb25f3b6990: endpoint /v1/chat/completions among others), one
// BatchRequestInput {custom_id, method: "POST", url} per line (the OpenAPI schema, read in a
// stored generated copy; no copy in OpenAI's own repositories was found); `body` holding the chat
// request is from the batch guide page (platform.openai.com, no repository found).
// Anthropic Message Batches (anthropics/anthropic-sdk-python
// src/anthropic/types/messages/batch_create_params.py @ 00dcf921fb0cdeacb827e7b17e9a41e39b48f61b):
// the create body {"requests": [{custom_id, params}]}, params a Messages request (model,
// max_tokens, messages, system, tools, ...); read as one pretty-printed document (the document
// framing reads its array) or as one {custom_id, params} per line. Neither has times, statuses
// or sessions: conversations are inferred from the prompts.
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
