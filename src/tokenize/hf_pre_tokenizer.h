// HfPreTokenizer: a tokenizer.json `pre_tokenizer` (Split, ByteLevel, Digits, Punctuation,
// Metaspace, or a Sequence of them) as a list of steps applied in order. A split step re-splits
// every piece the previous step produced (each piece matched as a string of its own) with Hugging
// Face's split behaviours (Isolated, Removed, MergedWithPrevious, MergedWithNext, Contiguous) and
// `invert`; a transform step rewrites each piece (ByteLevel's prefix space, Metaspace's
// replacement and prepend scheme). Empty pieces are dropped after every step, as in tokenizers.
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "tokenize/split_regex.h"

namespace ltl {

class HfPreTokenizer {
 public:
  enum class Behavior { kIsolated, kRemoved, kMergedWithPrevious, kMergedWithNext, kContiguous };
  enum class Kind { kSplit, kPrefixSpace, kMetaspace };
  enum class Prepend { kAlways, kFirst, kNever };
  // What a split pattern does to a text cut after '\n' before an ASCII byte other than
  // whitespace and '/' (see NewlineCutIsExact).
  enum class CutClass {
    kUnknown,      // no claim
    kSplitsAtCut,  // the cut is always a piece boundary, and no match looks across it
    kNoNewline,    // matches never contain '\n' and the pattern has no lookaround or anchor
  };
  struct Step {
    Kind kind = Kind::kSplit;
    std::shared_ptr<const SplitRegex> regex;  // kSplit with a regex
    std::string literal;                      // kSplit with a literal (String) pattern
    Behavior behavior = Behavior::kIsolated;
    bool invert = false;
    CutClass cut = CutClass::kUnknown;
    std::string replacement;  // kMetaspace
    Prepend prepend = Prepend::kAlways;
  };

  // Parses the `pre_tokenizer` object (null = one piece per text). A ByteLevel entry sets
  // byte_level() and adds its prefix-space step and, when use_regex is true, the GPT-2 split.
  static Result<HfPreTokenizer> FromJson(const nlohmann::json& config);

  // Splits `text` into pieces, replacing *pieces. Pieces are views into `text` or into buffers of
  // this thread that stay valid until the next Run on it. `at_origin`: `text` starts at offset 0
  // of the input being encoded (Metaspace's prepend_scheme "first" prepends only there).
  void Run(std::string_view text, bool at_origin, std::vector<std::string_view>* pieces) const;

  bool byte_level() const { return byte_level_; }
  // How the pieces of a text cut after '\n' (followed by an ASCII byte other than whitespace and
  // '/') relate to the pieces of its two parts: kSplits: the pieces of the whole are the parts'
  // pieces; kJoins: the same, except that the last piece of the first part and the first of the
  // second may be one piece of the whole; kUnsafe: no claim.
  enum class CutResult { kSplits, kJoins, kUnsafe };
  CutResult NewlineCut() const;
  const std::vector<Step>& steps() const { return steps_; }
  // Split patterns (regexes only), in order, for error messages.
  std::vector<const SplitRegex*> regexes() const;

 private:
  Status AddConfig(const nlohmann::json& config);
  std::vector<Step> steps_;
  bool byte_level_ = false;
};

}  // namespace ltl
