// RouterViewBuilder: the named routers' own views of a gateway request (RequestRecord::view),
// computed from the request body here in the ingest stage so that no text leaves it: only keyed,
// chained digests travel, as block ids do.
//
// vllm-router-prefix (vllm-project/production-stack@a6c01db0,
// src/vllm_router/routers/routing_logic.py PrefixAwareRouter.route_request and
// src/vllm_router/prefix/hashtrie.py HashTrie): the prompt is the message contents joined with
// "\n" — a string content as it is, a list content as its parts of type "text" joined with " ",
// a null content left out, a missing one as "" — or, for a body without "messages", its "prompt"
// string; it is cut into chunks of 128 characters (Python str: code points), the last one partial,
// and each chunk is one trie level. Here chunk k is SipHash(salt, digest of chunk k-1 ‖ chunk k),
// so a digest names the whole trie path, as a block id names its prefix. Roles, tool definitions,
// tool calls, the system field of Anthropic bodies and the chat template are invisible to it.
//
// sglang-cache-aware (lightseekorg/smg@73da68ca, crates/protocols/src/chat.rs:642
// ChatCompletionRequest::extract_text_for_routing; messages.rs and completion.rs likewise): every
// non-empty text piece, in order, joined with single spaces — per message its content (a string,
// or each of its parts of type "text") and, for an assistant, its "reasoning_content"; Anthropic's
// top-level "system" (a string or text blocks) first; a body without "messages": its "prompt"
// string, or a prompt array joined with " " as it is. Roles, names, tool calls, tool definitions
// and the chat template are invisible to it. SMG rejects bodies whose non-assistant message has no
// string or list content, or an unknown role; here such a message adds its text, if any. The
// router matches Unicode code points (Rust chars): here one digest per code point, digest k =
// SipHash(salt, digest k-1 ‖ code point k as 4 bytes little-endian), digest -1 = 0, so two texts
// share their first k digests exactly when they share their first k code points.
//
// aibrix-prefix (vllm-project/aibrix@e3e10f9e, pkg/plugins/gateway/util.go validateRequestBody,
// parseChatMessages, parseResponsesInput, validateCompletionRequest; the default `character`
// tokenizer, pkg/utils/tokenizer/local_characters.go; pkg/utils/prefixcacheindexer/hash.go
// getPrefixHashes): the routing context's message is, for a body with "messages", every message's
// content joined with single spaces — a string content unquoted, any other content (a list of
// parts, a null, a number) as its JSON text (the gateway writes the raw bytes the client sent;
// here the logged body's minified JSON), a missing content as "" — so roles, tool definitions,
// tool calls, Anthropic's top-level system and the chat template are invisible to it; for a body
// with "prompt" (completions), the prompt string; with "input" (Responses API), the input string,
// or its items' contents joined as messages' are. Its UTF-8 bytes are cut into blocks of
// AIBRIX_PREFIX_CACHE_BLOCK_SIZE bytes (code default 4), a partial last block not hashed; block k
// is SipHash(salt, digest of block k-1 ‖ block k) (AIBrix: seeded xxhash64 of the parent hash ‖
// the block), so a digest names the whole prefix, as a block id does.
//
// llm-d-prefix (llm-d/llm-d-inference-scheduler@520af478,
// pkg/epp/framework/plugins/requestcontrol/dataproducer/approximateprefix/hashing.go hashPrompt,
// getUserInputBytes; pkg/epp/framework/interface/requesthandling/types.go Message, Content,
// ContentBlock, Prompt): the bytes hashed are, for a body with "messages" (chat completions),
// json.Marshal of the parsed messages — each message only `{"role":...,"content":...}` in that
// order ("role" omitted when empty; names, tool calls, tool_call_id, reasoning and every other
// field dropped), a string content as a JSON string, a missing, null or empty one as "", a list
// content as its parsed blocks, each `{"type":...,"text":...,"image_url":{"url":...},
// "input_audio":{"data":...,"format":...},"video_url":{"url":...}}` ("text" and the inner fields
// omitted when empty, unknown fields dropped) — written here as Go's encoding/json writes it:
// no spaces, strings with \" \\ \b \f \n \r \t, other control bytes as \u00xx (lowercase hex),
// <, >, & as \u003c \u003e \u0026 (HTML escaping is on), U+2028/U+2029 as \u2028/\u2029, other
// text as UTF-8. A body whose messages Go would fail to parse (a message that is not an object, a
// non-string role, a content that is neither a string nor a list of objects, a block field of the
// wrong type) gets no chunks. For a body with "prompt" (completions): the prompt string, or a list
// of strings joined with " ", unescaped (token ids: no text). Not modelled: the Responses,
// Conversations and Embeddings bodies (no chunks), Go's case-insensitive key matching and
// last-duplicate-wins (here the first key of the exact name). Every chunk is kept here (the router
// cuts at its maxPrefixBlocksToMatch); an input shorter than one chunk has none (the scheduler
// skips it); else chunk k = SipHash(salt, chunk k ‖ digest k-1) (llm-d: xxhash64 of the same
// concatenation; only equality matters here, so the keyed SipHash of the other views serves),
// digest -1 = SipHash(salt, model ‖ cache_salt) as llm-d seeds the chain with the target model and
// the request's cache_salt; a trailing partial chunk is hashed too.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/request_record.h"
#include "common/siphash.h"

namespace ltl {

// The prompt production-stack's prefixaware router hashes (see above), UTF-8; false when the body
// has neither a "messages" array nor a "prompt" string (the router would fail the request).
bool VllmRouterPrompt(simdjson::dom::object body, std::string* out);

// Chained keyed digests of `text`'s chunks of `chunk_chars` code points (the last one partial).
void ChunkDigests(const SipKey& key, std::string_view text, size_t chunk_chars,
                  std::vector<uint64_t>* out);

// The text SMG's cache_aware policy routes on (see above), UTF-8; false when the body has neither
// a "messages" array nor a "prompt" string or array.
bool SglangRouterText(simdjson::dom::object body, std::string* out);

// One chained keyed digest per code point of `text` (valid UTF-8).
void CodePointDigests(const SipKey& key, std::string_view text, std::vector<uint64_t>* out);
// The message AIBrix routes on (see above), UTF-8; false when the gateway would refuse the body
// (neither a "messages" list with a message, a "prompt" string nor an "input").
bool AibrixMessage(simdjson::dom::object body, std::string* out);

// Chained keyed digests of `text`'s full blocks of `block_bytes` bytes (a partial last block is not
// hashed).
void ByteBlockDigests(const SipKey& key, std::string_view text, size_t block_bytes,
                      std::vector<uint64_t>* out);

// The bytes llm-d's approximate prefix producer hashes (see above); false when it would hash none
// (an unparsable body or one of a kind not modelled). *seed: the target model ‖ cache_salt.
bool LlmdUserInput(simdjson::dom::object body, std::string* out, std::string* seed);

// Go's encoding/json string encoding of `text` (valid UTF-8), quotes included, appended to `out`.
void AppendGoJsonString(std::string_view text, std::string* out);

// llm-d's chained chunk digests of `input`: at most max_blocks chunks of chunk_bytes bytes (the
// input cut there), the last one partial; none when the input is shorter than one chunk.
void LlmdChunkDigests(const SipKey& key, std::string_view seed, std::string_view input,
                      size_t chunk_bytes, size_t max_blocks, std::vector<uint64_t>* out);

// llm-d-prefix's chunk size: blockSizeTokens 16 x averageCharactersPerToken 4 (approximateprefix
// types.go defaults; the auto-tuned block size from the servers' metrics is not modelled).
inline constexpr size_t kLlmdChunkBytes = 64;

// One builder per worker thread (it keeps scratch buffers).
class RouterViewBuilder {
 public:
  // aibrix_block_bytes > 0: aibrix-prefix's view (kViewAibrixBlocks) in blocks of that many bytes.
  explicit RouterViewBuilder(SipKey key, uint32_t aibrix_block_bytes = 0)
      : key_(key), aibrix_block_bytes_(aibrix_block_bytes) {}
  // Fills out->text and the views `kinds` asks for (RouterViewKind bits) from the request body
  // (the session digest is the caller's).
  void Build(simdjson::dom::object body, uint32_t kinds, RouterView* out);

 private:
  SipKey key_;
  uint32_t aibrix_block_bytes_;
  std::string prompt_;
  std::string aibrix_message_;
  std::string llmd_input_, llmd_seed_;
};

}  // namespace ltl
