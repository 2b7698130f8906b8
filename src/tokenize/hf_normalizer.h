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

  // Parses the `normalizer` object (null = no normalizer); unsupported types are errors, and so
  // is a normalizer whose Replace steps could multiply a text's bytes by more than
  // kMaxReplaceGrowth (issue 35, item 10: a Replace that multiplies each character, repeated in a
  // Sequence, filled any memory).
  static Result<HfNormalizer> FromJson(const nlohmann::json& config);

  // The most a text's bytes can be multiplied by the Replace steps together: a literal pattern
  // of p bytes replaced by c bytes multiplies by at most max(1, ceil(c / p)); a regex pattern,
  // which may match the empty string between every two bytes, by 1 + c.
  static constexpr double kMaxReplaceGrowth = 64;
  double ReplaceGrowthBound() const;

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
