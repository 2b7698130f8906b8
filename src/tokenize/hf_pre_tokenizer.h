// HfPreTokenizer: a tokenizer.json `pre_tokenizer` (Split, ByteLevel, Digits, or a Sequence of
// them) as a list of split steps applied in order, each step re-splitting every piece the previous
// one produced, with Hugging Face's split behaviours (Isolated, Removed, MergedWithPrevious,
// MergedWithNext, Contiguous) and `invert`.
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "tokenize/split_regex.h"

namespace ltl {

struct PieceSpan {
  uint32_t begin;
  uint32_t end;
};

class HfPreTokenizer {
 public:
  enum class Behavior { kIsolated, kRemoved, kMergedWithPrevious, kMergedWithNext, kContiguous };
  struct Step {
    std::shared_ptr<const SplitRegex> regex;
    Behavior behavior = Behavior::kIsolated;
    bool invert = false;
  };

  // Parses the `pre_tokenizer` object; a ByteLevel entry sets byte_level() (and adds the GPT-2
  // split when its use_regex is true).
  static Result<HfPreTokenizer> FromJson(const nlohmann::json& config);

  // Splits text[0..size) into pieces (spans of `text`), replacing *pieces.
  void Split(std::string_view text, std::vector<PieceSpan>* pieces) const;

  bool byte_level() const { return byte_level_; }
  bool add_prefix_space() const { return add_prefix_space_; }
  // True when every split step is a known pattern for which newline cuts are exact.
  bool NewlineCutIsExact() const;
  const std::vector<Step>& steps() const { return steps_; }

 private:
  Status AddConfig(const nlohmann::json& config);
  std::vector<Step> steps_;
  bool byte_level_ = false;
  bool add_prefix_space_ = false;
};

}  // namespace ltl
