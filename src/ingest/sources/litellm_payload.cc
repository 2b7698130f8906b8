// Source `litellm-payload`: LiteLLM's StandardLoggingPayload, as its s3 / gcs / generic JSON
// loggers write it (one object per request; `gsutil cat` of many objects concatenates them with
// no separator, which the JSON framing reads). Facts (BerriAI/litellm):
//  - docs/my-website/docs/proxy/logging_spec.md @ 698609e365fe137a0e4c4d448ac189769d39a341:
//    trace_id ("Trace multiple LLM calls belonging to same overall request"), status
//    (success/failure), prompt_tokens, completion_tokens, startTime / endTime /
//    completionStartTime as float epoch seconds, model, messages, response, model_parameters
//    (the request's optional parameters, tools among them);
//  - spend_tracking_utils.py @ 00907c60692d7d14dc7ea814e645165d3b4d5fe9: the spend log's session_id
//    is this trace_id, which LiteLLM generates per call when the client sent no
//    litellm_trace_id / litellm_session_id: a filler when it never repeats.
#include "ingest/source_spec.h"

namespace ltl {

extern const SourceSpec kLitellmPayload = {
    .name = "litellm-payload",
    .tool = "LiteLLM logging callbacks (StandardLoggingPayload)",
    .summary = "messages + model_parameters.tools, trace_id, status, float startTime",
    .example =
        R"({"id": "chatcmpl-1", "trace_id": "9c1e...", "status": "success", "startTime": 1767225600.12, "model": "gpt-4o", "messages": [...], "model_parameters": {"tools": [...]}, "response": {...}})",
    .detect_all = {"messages", "startTime"},
    .detect_any = {"trace_id", "model_parameters", "call_type"},
    .priority = 40,
    .shape = BodyShape::kMessageList,
    .body = {"messages"},
    .tools = {"model_parameters.tools"},
    .response = {"response"},
    .model = {"model"},
    .status = {"status"},
    .time = {"startTime"},
    .session = {"metadata.user_api_key_end_user_session_id"},
    .filler_session = {"trace_id"},
    .prompt_tokens = {"prompt_tokens"},
    .completion_tokens = {"completion_tokens"},
    .cached_tokens = {"metadata.usage_object.prompt_tokens_details.cached_tokens"},
    .end_time = {"endTime"},
    .first_token_time = {"completionStartTime"},
};

}  // namespace ltl
