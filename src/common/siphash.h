// SipHash-2-4 (Aumasson & Bernstein): the keyed 64-bit PRF behind every block id.
// Hand-written because it is called once per 64-code-point block — tens of millions of times on a
// large log — and OpenSSL's EVP_MAC interface costs an allocation and several indirect calls per
// message (init/update/final), several times the cost of hashing a 64-byte input itself. The tests
// check this implementation against the published test vectors and against OpenSSL's "SIPHASH".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ltl {

struct SipKey {
  uint64_t k0 = 0, k1 = 0;  // key bytes 0-7 and 8-15, little-endian
  static SipKey FromBytes(const unsigned char bytes[16]);
};

uint64_t SipHash24(const SipKey& key, const void* data, size_t len);
inline uint64_t SipHash24(const SipKey& key, std::string_view s) {
  return SipHash24(key, s.data(), s.size());
}

}  // namespace ltl
