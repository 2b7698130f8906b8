// HfNormalizer: a tokenizer.json `normalizer` (NFC, NFD, NFKC, NFKD, Lowercase, Strip,
// StripAccents, Replace, Prepend, or a Sequence of them) applied to each stretch of text between
// added tokens, exactly as Hugging Face tokenizers does before pre-tokenization.
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "tokenize/split_regex.h"

namespace ltl {

class HfNormalizer {
 public:
  enum class Kind {
    kNfc,
    kNfd,
    kNfkc,
    kNfkd,
    kLowercase,
    kStrip,
    kStripAccents,
    kReplace,
    kPrepend
  };
  struct Step {
    Kind kind = Kind::kNfc;
    std::string pattern;                      // Replace: the literal pattern (when regex is null)
    std::shared_ptr<const SplitRegex> regex;  // Replace: a Regex pattern
    std::string content;                      // Replace: the replacement; Prepend: the prefix
    bool left = false;                        // Strip
    bool right = false;
  };

  // Parses the `normalizer` object (null = no normalizer); unsupported types are errors.
  static Result<HfNormalizer> FromJson(const nlohmann::json& config);

  bool empty() const { return steps_.empty(); }
  // Returns `in` normalized: `in` itself when no step changed it, otherwise a view of *storage.
  std::string_view Normalize(std::string_view in, std::string* storage) const;
  // True when normalizing a text cut right after a '\n' that is followed by an ASCII byte other
  // than whitespace and '/' equals normalizing both parts, and the normalized parts still meet
  // there with '\n' before and that same byte after (docs/SEMANTICS.md, "The segment cache").
  bool NewlineCutIsExact() const;
  const std::vector<Step>& steps() const { return steps_; }

 private:
  Status AddConfig(const nlohmann::json& config);
  std::vector<Step> steps_;
};

}  // namespace ltl
