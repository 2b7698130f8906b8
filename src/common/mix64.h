// SplitMix64's finalizer (Steele, Lea, Flood 2014): a fixed bijection on 64 bits with full
// avalanche. Used where ids that are already keyed hashes (or small integers) need spreading or
// deriving, never as a keyed hash itself. Hand-written: five lines, no library offers it alone.
#pragma once

#include <cstdint>

namespace ltl {

inline uint64_t SplitMix64Finalizer(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace ltl
