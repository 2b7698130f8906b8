// The salt file (.ltl-salt by default): the 128-bit SipHash key that makes block ids secret and
// stable across runs. Created on first use from the OS's random source with mode 0600, published
// atomically (a concurrent run either creates it or reads the complete file), reused after. Its
// content is never printed; messages name only the path.
#pragma once

#include <string>

#include "common/siphash.h"
#include "common/status.h"

namespace ltl {

constexpr const char* kDefaultSaltFile = ".ltl-salt";

struct Salt {
  SipKey key;
  bool created = false;    // true when this call created the file
  bool tightened = false;  // true when this call removed group/others' read permission
};

// Reads the salt at `path`, creating it when it does not exist. Refuses a symbolic link (opened
// with O_NOFOLLOW: never followed), a path that is not a regular file, or a file that group or
// others can write (someone else could choose the key). A file that group or others can read
// (anyone who can read it can tell which traces share prompts) is made private (mode & 0700)
// when this user owns it and it holds a valid salt, and refused otherwise; a refused file is
// never changed.
Result<Salt> LoadOrCreateSalt(const std::string& path);

// Parses the file content: 32 hexadecimal digits (surrounding whitespace allowed).
Result<SipKey> ParseSalt(const std::string& content, const std::string& path);

}  // namespace ltl
