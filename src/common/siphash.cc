// SipHash-2-4 over a byte string (see siphash.h): 2 compression rounds per 8-byte word, 4
// finalization rounds, the message length in the top byte of the last word.
#include "common/siphash.h"

#include <cstring>

namespace ltl {
namespace {

inline uint64_t Rotl(uint64_t x, int b) {
  return (x << b) | (x >> (64 - b));
}

inline uint64_t LoadLe64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

struct State {
  uint64_t v0, v1, v2, v3;
  inline void Round() {
    v0 += v1;
    v1 = Rotl(v1, 13);
    v1 ^= v0;
    v0 = Rotl(v0, 32);
    v2 += v3;
    v3 = Rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = Rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = Rotl(v1, 17);
    v1 ^= v2;
    v2 = Rotl(v2, 32);
  }
  inline void Absorb(uint64_t m) {
    v3 ^= m;
    Round();
    Round();
    v0 ^= m;
  }
};

}  // namespace

SipKey SipKey::FromBytes(const unsigned char bytes[16]) {
  return SipKey{LoadLe64(bytes), LoadLe64(bytes + 8)};
}

uint64_t SipHash24(const SipKey& key, const void* data, size_t len) {
  const auto* p = static_cast<const unsigned char*>(data);
  State s{key.k0 ^ 0x736f6d6570736575ull, key.k1 ^ 0x646f72616e646f6dull,
          key.k0 ^ 0x6c7967656e657261ull, key.k1 ^ 0x7465646279746573ull};
  const size_t full = len & ~size_t{7};
  for (size_t i = 0; i < full; i += 8) s.Absorb(LoadLe64(p + i));
  uint64_t last = static_cast<uint64_t>(len & 0xff) << 56;
  for (size_t i = 0; i < (len & 7); ++i) last |= static_cast<uint64_t>(p[full + i]) << (8 * i);
  s.Absorb(last);
  s.v2 ^= 0xff;
  s.Round();
  s.Round();
  s.Round();
  s.Round();
  return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

}  // namespace ltl
