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

// One builder per worker thread (it keeps scratch buffers).
class RouterViewBuilder {
 public:
  explicit RouterViewBuilder(SipKey key) : key_(key) {}
  // Fills out->text and out->chunks128 from the request body (the session digest is the
  // caller's).
  void Build(simdjson::dom::object body, RouterView* out);

 private:
  SipKey key_;
  std::string prompt_;
};

}  // namespace ltl
