// ReadFileBytes over stdio and SHA-256 through OpenSSL's EVP interface.
#include "tokenize/file_bytes.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace ltl {

Result<std::string> ReadFileBytes(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Status::IoError(fmt::format("{}: is a directory", path));
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Status::IoError(fmt::format("{}: {}", path, std::strerror(errno)));
  std::string data;
  // One allocation of the final size (plus simdjson's padding, so its parser needs no copy):
  // appending 64 KiB at a time regrew and re-faulted an 11 MB tokenizer.json several times.
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec) data.reserve(static_cast<size_t>(size) + 64);
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) data.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return Status::IoError(fmt::format("{}: read error", path));
  return data;
}

std::string Sha256Hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_sha256(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace ltl
