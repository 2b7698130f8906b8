// HfTokenizer encoding: added tokens, normalization, added tokens again on the normalized text,
// pre-tokenization, BPE; and the newline-cut rule that lets CachingTokenizer cache its segments.
#include "tokenize/hf_tokenizer.h"

#include <fmt/format.h>

#include "tokenize/utf8.h"

namespace ltl {

HfTokenizer::HfTokenizer(std::string name, std::string path, Parts parts)
    : name_(std::move(name)), path_(std::move(path)), p_(std::move(parts)) {
  p_.raw_tokens.Finish();
  p_.normalized_tokens.Finish();
  // Each stage either keeps the cut as it is or, for a cut inside a pre-tokenized piece, needs the
  // model to encode the two halves of that piece separately (docs/SEMANTICS.md).
  const auto cut = p_.pre.NewlineCut();
  newline_cut_exact_ = p_.raw_tokens.NewlineCutIsExact() &&
                       p_.normalized_tokens.NewlineCutIsExact() &&
                       p_.normalizer.NewlineCutIsExact() &&
                       (cut == HfPreTokenizer::CutResult::kSplits ||
                        (cut == HfPreTokenizer::CutResult::kJoins && p_.model.WordCutIsExact()));
}

void HfTokenizer::EncodeNormalized(std::string_view text, bool at_origin,
                                   std::vector<uint32_t>* out) const {
  thread_local std::vector<std::string_view> words;
  p_.pre.Run(text, at_origin, &words);
  for (std::string_view w : words) p_.model.EncodeWord(w, out);
}

void HfTokenizer::EncodeStretch(std::string_view raw, bool at_origin,
                                std::vector<uint32_t>* out) const {
  std::string storage;
  const std::string_view text = p_.normalizer.Normalize(raw, &storage);
  if (text.empty()) return;
  if (p_.normalized_tokens.empty()) {
    EncodeNormalized(text, at_origin, out);
    return;
  }
  std::vector<AddedTokenMatcher::Split> splits;
  p_.normalized_tokens.SplitText(text, &splits);
  for (const auto& s : splits) {
    if (s.id != kNoRank) {
      out->push_back(s.id);
    } else if (s.end > s.begin) {
      EncodeNormalized(text.substr(s.begin, s.end - s.begin), at_origin && s.begin == 0, out);
    }
  }
}

void HfTokenizer::Encode(std::string_view text, std::vector<uint32_t>* out) const {
  std::string repaired;
  text = ValidUtf8View(text, &repaired);
  if (p_.raw_tokens.empty()) {
    EncodeStretch(text, true, out);
    return;
  }
  thread_local std::vector<AddedTokenMatcher::Split> splits;
  p_.raw_tokens.SplitText(text, &splits);
  for (const auto& s : splits) {
    if (s.id != kNoRank) {
      out->push_back(s.id);
    } else if (s.end > s.begin) {
      EncodeStretch(text.substr(s.begin, s.end - s.begin), s.begin == 0, out);
    }
  }
}

Status HfTokenizer::EncodeStatus() const {
  std::vector<const SplitRegex*> regexes = p_.pre.regexes();
  for (const auto& s : p_.normalizer.steps()) {
    if (s.regex) regexes.push_back(s.regex.get());
  }
  for (size_t i = 0; i < regexes.size(); ++i) {
    const SplitRegex::LimitHits hits = regexes[i]->limit_hits();
    if (hits.count == 0) continue;
    return Status::Limit(fmt::format(
        "{}: split pattern {} of {} exceeded PCRE2's {} on {} piece(s) (the longest {} bytes): "
        "it backtracks catastrophically, so those pieces could not be split as the reference "
        "does; fix the pattern in the tokenizer file",
        path_, i + 1, regexes.size(), hits.what, hits.count, hits.longest_subject));
  }
  return Status::Ok();
}

}  // namespace ltl
