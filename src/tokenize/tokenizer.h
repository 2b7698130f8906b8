// Tokenizer: text -> token ids. Implemented by the tiktoken-compatible BPE (cl100k_base,
// o200k_base, .tiktoken files) and by Hugging Face tokenizer.json files with a BPE model
// (byte-level and SentencePiece-style vocabularies).
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
  // Appends the token ids of `text` to *out. tiktoken encodings do not recognise special tokens
  // inside text (encode_ordinary); tokenizer.json files recognise their added tokens, as Hugging
  // Face's encode(text, add_special_tokens=False) does. Ill-formed UTF-8 is read as U+FFFD.
  // Thread-safe for concurrent calls.
  virtual void Encode(std::string_view text, std::vector<uint32_t>* out) const = 0;
  // True when cutting a text right after a '\n' that is followed by an ASCII byte other than
  // whitespace and '/' never changes its ids (encoding the parts and concatenating equals encoding
  // the whole); CachingTokenizer relies on it. See docs/SEMANTICS.md for why it holds.
  virtual bool NewlineCutIsExact() const { return false; }
  // Ok, or why some text encoded so far did not get the reference's ids: a split pattern ran
  // into its PCRE2 match, depth or heap limit (catastrophic backtracking; the message names the
  // tokenizer file and the pattern). Callers check it once encoding is done and stop with it.
  virtual Status EncodeStatus() const { return Status::Ok(); }
};

// Loads "cl100k_base", "o200k_base" (from `data_dir`), a path to a .tiktoken ranks file, or a path
// to a Hugging Face tokenizer.json. A missing vocabulary is an error naming the set-up command.
Result<std::unique_ptr<Tokenizer>> LoadTokenizer(const std::string& name_or_path,
                                                 const std::string& data_dir);

}  // namespace ltl
