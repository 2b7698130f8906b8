// The cache-trace block chain: h_i = the first 16 hex digits of
// SHA-256(f"{salt}:{h_(i-1)}:{i}:" + the block's token ids joined by single spaces), i counted from
// 0 and h_(-1) = "". Only full blocks are hashed. Hashes are returned as the 64-bit value of their
// 16 hex digits (equal hex strings <=> equal values).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ltl {

// Appends one hash per full block of `tokens` to *out.
void ChainCctraceBlocks(const std::string& salt, const std::vector<uint32_t>& tokens,
                        uint32_t block_size, std::vector<uint64_t>* out);

// 16 lowercase hex digits of a hash value.
std::string CctraceHex(uint64_t h);

// The first `chars` hex digits of SHA-256(salt + ":" + text): anonymous ids (conversations
// without a session id, sub-agent agent_ids) that cannot be confirmed without the salt.
std::string SaltedHexId(const std::string& salt, std::string_view text, size_t chars);

// A random salt: 32 hex digits from OpenSSL's RAND_bytes (as secrets.token_hex(16)).
std::string RandomCctraceSalt();

}  // namespace ltl
