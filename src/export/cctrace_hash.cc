// Cache-trace block chain with OpenSSL's SHA-256 (see cctrace_hash.h).
#include "export/cctrace_hash.h"

#include <fmt/format.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <charconv>
#include <random>

namespace ltl {

std::string CctraceHex(uint64_t h) {
  return fmt::format("{:016x}", h);
}

void ChainCctraceBlocks(const std::string& salt, const std::vector<uint32_t>& tokens,
                        uint32_t block_size, std::vector<uint64_t>* out) {
  if (block_size == 0) return;
  const size_t blocks = tokens.size() / block_size;
  std::string content;
  std::string prev;  // h_(i-1) as hex
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  char num[16];
  for (size_t i = 0; i < blocks; ++i) {
    content.assign(salt);
    content.push_back(':');
    content.append(prev);
    content.push_back(':');
    content.append(std::to_string(i));
    content.push_back(':');
    for (size_t j = 0; j < block_size; ++j) {
      if (j) content.push_back(' ');
      auto r = std::to_chars(num, num + sizeof num, tokens[i * block_size + j]);
      content.append(num, r.ptr);
    }
    EVP_Digest(content.data(), content.size(), md, &md_len, EVP_sha256(), nullptr);
    uint64_t h = 0;
    for (int k = 0; k < 8; ++k) h = (h << 8) | md[k];
    out->push_back(h);
    prev = CctraceHex(h);
  }
}

std::string SaltedHexId(const std::string& salt, std::string_view text, size_t chars) {
  std::string content = salt + ":" + std::string(text);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  EVP_Digest(content.data(), content.size(), md, &md_len, EVP_sha256(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < md_len && hex.size() < chars; ++i)
    hex += fmt::format("{:02x}", md[i]);
  hex.resize(std::min(chars, hex.size()));
  return hex;
}

std::string RandomCctraceSalt() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) {
    std::random_device rd;  // OpenSSL's generator failed: fall back to the OS source directly
    for (auto& b : bytes) b = static_cast<unsigned char>(rd());
  }
  std::string s;
  for (unsigned char b : bytes) s += fmt::format("{:02x}", b);
  return s;
}

}  // namespace ltl
