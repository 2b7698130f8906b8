// Tokenizer: text -> token ids. Implemented by the tiktoken-compatible BPE (cl100k_base,
// o200k_base, .tiktoken files) and by Hugging Face byte-level BPE tokenizer.json files.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ltl {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  // Name shown in reports ("cl100k_base", or the file name).
  virtual const std::string& name() const = 0;
  // Appends the token ids of `text` to *out. Special tokens inside text are not recognised
  // (tiktoken's encode_ordinary). Thread-safe for concurrent calls.
  virtual void Encode(std::string_view text, std::vector<uint32_t>* out) const = 0;
};

// Loads "cl100k_base", "o200k_base" (from `data_dir`), a path to a .tiktoken ranks file, or a path
// to a Hugging Face tokenizer.json. A missing vocabulary is an error naming the set-up command.
Result<std::unique_ptr<Tokenizer>> LoadTokenizer(const std::string& name_or_path,
                                                 const std::string& data_dir);

}  // namespace ltl
