// Whole-file reading and SHA-256 for tokenizer vocabularies (small files read once at start-up).
#pragma once

#include <string>

#include "common/status.h"

namespace ltl {

// Reads the whole file; the error names the path and the reason.
Result<std::string> ReadFileBytes(const std::string& path);

// Lower-case hex SHA-256 of `data`.
std::string Sha256Hex(const std::string& data);

}  // namespace ltl
