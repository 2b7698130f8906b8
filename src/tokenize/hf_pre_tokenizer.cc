// tokenizer.json pre_tokenizer parsing, the split-behaviour rules of Hugging Face tokenizers
// (NormalizedString::split: Isolated, Removed, MergedWithPrevious, MergedWithNext, Contiguous),
// the transform steps (ByteLevel prefix space, Metaspace) and the newline-cut analysis.
#include "tokenize/hf_pre_tokenizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "tokenize/tiktoken_tokenizer.h"

namespace ltl {
namespace {

using Behavior = HfPreTokenizer::Behavior;
using CutClass = HfPreTokenizer::CutClass;
using Kind = HfPreTokenizer::Kind;
using Step = HfPreTokenizer::Step;

// DeepSeek-V3's three chained split patterns, as its tokenizer.json has them.
const char kDeepSeekDigits[] = "\\p{N}{1,3}";
const char kDeepSeekCjk[] = "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+";
const char kDeepSeekWords[] =
    "[!\"#$%&'()*+,\\-./"
    ":;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+|"
    " ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+";
// Digits and Punctuation as patterns (Rust's char::is_numeric is general category N; Punctuation
// is ASCII punctuation or general category P).
const char kDigit[] = "\\p{N}";
const char kDigits[] = "\\p{N}+";
const char kPunctuation[] = "[!-/:-@\\[-`{-~\\p{P}]";

// Patterns for which the newline-cut claims hold (docs/SEMANTICS.md, "The segment cache"). Every
// piece containing a '\n' of the first group ends at a '\n' followed by a non-newline byte that
// is not whitespace; matches of the second group never contain '\n' and look at nothing but the
// characters they match.
CutClass ClassifyPattern(std::string_view p) {
  for (const char* known :
       {kCl100kPattern, kO200kPattern, kGpt2Pattern, kQwen2Pattern, kDeepSeekWords}) {
    if (p == known) return CutClass::kSplitsAtCut;
  }
  for (const char* known : {kDeepSeekDigits, kDeepSeekCjk, kDigit, kDigits, kPunctuation}) {
    if (p == known) return CutClass::kNoNewline;
  }
  return CutClass::kUnknown;
}

Result<Behavior> ParseBehavior(const std::string& name) {
  if (name == "Isolated") return Behavior::kIsolated;
  if (name == "Removed") return Behavior::kRemoved;
  if (name == "MergedWithPrevious") return Behavior::kMergedWithPrevious;
  if (name == "MergedWithNext") return Behavior::kMergedWithNext;
  if (name == "Contiguous") return Behavior::kContiguous;
  return Status::InvalidArgument(fmt::format("unsupported Split behavior '{}'", name));
}

Result<Step> RegexStep(std::string_view pattern, Behavior behavior, bool invert) {
  auto re = SplitRegex::Compile(pattern);
  if (!re.ok()) return re.status();
  Step s;
  s.kind = Kind::kSplit;
  s.regex = std::move(re).value();
  s.behavior = behavior;
  s.invert = invert;
  s.cut = ClassifyPattern(pattern);
  return s;
}

Step LiteralStep(std::string literal, Behavior behavior, bool invert) {
  Step s;
  s.kind = Kind::kSplit;
  s.behavior = behavior;
  s.invert = invert;
  s.cut = literal.find('\n') == std::string::npos ? CutClass::kNoNewline : CutClass::kUnknown;
  s.literal = std::move(literal);
  return s;
}

struct Part {
  std::string_view text;
  bool match;
};

// The (text, is_match) partition of `sub` by a step's pattern, covering all of it, as Hugging
// Face's Pattern::find_matches gives it (an empty regex match becomes an empty match part).
void FindParts(std::string_view sub, const Step& step, SplitRegex::Matcher* matcher,
               std::vector<Part>* parts) {
  parts->clear();
  size_t pos = 0, b = 0, e = 0;
  if (step.regex) {
    while (pos < sub.size() && matcher->Find(sub, pos, &b, &e)) {
      if (b > pos) parts->push_back({sub.substr(pos, b - pos), false});
      parts->push_back({sub.substr(b, e - b), true});
      if (e == b) {  // an empty match: the next character goes to the following gap
        size_t next = e + 1;
        while (next < sub.size() && (static_cast<uint8_t>(sub[next]) & 0xC0) == 0x80) ++next;
        parts->push_back({sub.substr(e, next - e), false});
        e = next;
      }
      pos = e;
    }
  } else if (!step.literal.empty()) {
    for (size_t at; (at = sub.find(step.literal, pos)) != std::string_view::npos;) {
      if (at > pos) parts->push_back({sub.substr(pos, at - pos), false});
      parts->push_back({sub.substr(at, step.literal.size()), true});
      pos = at + step.literal.size();
    }
  }
  if (pos < sub.size()) parts->push_back({sub.substr(pos), false});
  if (step.invert) {
    for (Part& p : *parts) p.match = !p.match;
  }
}

// Joins view b onto view a (b starts where a ends).
std::string_view Join(std::string_view a, std::string_view b) {
  return std::string_view(a.data(), static_cast<size_t>(b.data() + b.size() - a.data()));
}

// Appends the pieces of one part list under a behaviour (Hugging Face's folds, mirrored), dropping
// empty ones.
void ApplyBehavior(Behavior behavior, std::vector<Part>& parts,
                   std::vector<std::string_view>* out) {
  thread_local std::vector<Part> acc;
  acc.clear();
  switch (behavior) {
    case Behavior::kIsolated:  // every part is a piece: no folding needed
      for (const Part& p : parts) {
        if (!p.text.empty()) out->push_back(p.text);
      }
      return;
    case Behavior::kRemoved:
      acc.swap(parts);
      break;
    case Behavior::kContiguous: {
      bool previous = false;
      for (Part& p : parts) {
        if (p.match == previous && !acc.empty()) {
          acc.back().text = Join(acc.back().text, p.text);
        } else {
          acc.push_back({p.text, false});
        }
        previous = p.match;
      }
      break;
    }
    case Behavior::kMergedWithPrevious: {
      bool previous = false;
      for (Part& p : parts) {
        if (p.match && !previous && !acc.empty()) {
          acc.back().text = Join(acc.back().text, p.text);
        } else {
          acc.push_back({p.text, false});
        }
        previous = p.match;
      }
      break;
    }
    case Behavior::kMergedWithNext: {
      bool previous = false;
      for (size_t i = parts.size(); i-- > 0;) {
        Part& p = parts[i];
        if (p.match && !previous && !acc.empty()) {
          acc.back().text = Join(p.text, acc.back().text);
        } else {
          acc.push_back({p.text, false});
        }
        previous = p.match;
      }
      std::reverse(acc.begin(), acc.end());
      break;
    }
  }
  for (const Part& p : acc) {
    if (!p.match && !p.text.empty()) out->push_back(p.text);
  }
}

}  // namespace

Status HfPreTokenizer::AddConfig(const nlohmann::json& c) {
  if (c.is_null()) return Status::Ok();
  const std::string type = c.value("type", "");
  if (type == "Sequence") {
    for (const auto& sub : c.at("pretokenizers")) LTL_RETURN_IF_ERROR(AddConfig(sub));
    return Status::Ok();
  }
  if (byte_level_) {
    // ByteLevel maps bytes to its own alphabet; a later step would see that alphabet.
    return Status::InvalidArgument(
        fmt::format("pre_tokenizer step '{}' after ByteLevel is not supported", type));
  }
  if (type == "ByteLevel") {
    byte_level_ = true;
    if (c.value("add_prefix_space", false)) {
      Step s;
      s.kind = Kind::kPrefixSpace;
      steps_.push_back(std::move(s));
    }
    if (c.value("use_regex", true)) {
      auto s = RegexStep(kGpt2Pattern, Behavior::kIsolated, false);
      if (!s.ok()) return s.status();
      steps_.push_back(std::move(s).value());
    }
    return Status::Ok();
  }
  if (type == "Split") {
    const auto& pat = c.at("pattern");
    auto behavior = ParseBehavior(c.value("behavior", "Isolated"));
    if (!behavior.ok()) return behavior.status();
    const bool invert = c.value("invert", false);
    if (pat.contains("Regex")) {
      auto s = RegexStep(pat.at("Regex").get<std::string>(), *behavior, invert);
      if (!s.ok()) return s.status();
      steps_.push_back(std::move(s).value());
    } else if (pat.contains("String")) {
      steps_.push_back(LiteralStep(pat.at("String").get<std::string>(), *behavior, invert));
    } else {
      return Status::InvalidArgument("Split pattern is neither Regex nor String");
    }
    return Status::Ok();
  }
  if (type == "Digits") {
    // individual_digits: each digit its own piece; otherwise runs of digits (Contiguous).
    const bool each = c.value("individual_digits", false);
    auto s = RegexStep(each ? kDigit : kDigits, Behavior::kIsolated, false);
    if (!s.ok()) return s.status();
    steps_.push_back(std::move(s).value());
    return Status::Ok();
  }
  if (type == "Punctuation") {
    auto behavior = ParseBehavior(c.value("behavior", "Isolated"));
    if (!behavior.ok()) return behavior.status();
    auto s = RegexStep(kPunctuation, *behavior, false);
    if (!s.ok()) return s.status();
    steps_.push_back(std::move(s).value());
    return Status::Ok();
  }
  if (type == "Metaspace") {
    Step s;
    s.kind = Kind::kMetaspace;
    s.replacement = c.value("replacement", std::string("\xE2\x96\x81"));
    // tokenizers' reading of old and new files: prepend_scheme (default "always"), and the older
    // add_prefix_space=false meaning "never".
    const std::string scheme = c.value("prepend_scheme", std::string());
    if (scheme == "first") {
      s.prepend = Prepend::kFirst;
    } else if (scheme == "never") {
      s.prepend = Prepend::kNever;
    } else if (scheme == "always" || scheme.empty()) {
      s.prepend = Prepend::kAlways;
      if (scheme.empty() && c.contains("add_prefix_space") && c["add_prefix_space"].is_boolean() &&
          !c["add_prefix_space"].get<bool>()) {
        s.prepend = Prepend::kNever;
      }
    } else {
      return Status::InvalidArgument(
          fmt::format("unsupported Metaspace prepend_scheme '{}'", scheme));
    }
    if (s.replacement.empty()) return Status::InvalidArgument("Metaspace replacement is empty");
    const std::string replacement = s.replacement;
    steps_.push_back(std::move(s));
    if (c.value("split", true)) {
      steps_.push_back(LiteralStep(replacement, Behavior::kMergedWithNext, false));
    }
    return Status::Ok();
  }
  return Status::InvalidArgument(fmt::format("unsupported pre_tokenizer type '{}'", type));
}

Result<HfPreTokenizer> HfPreTokenizer::FromJson(const nlohmann::json& config) {
  HfPreTokenizer p;
  Status st = p.AddConfig(config);
  if (!st.ok()) return st;
  return p;
}

std::vector<const SplitRegex*> HfPreTokenizer::regexes() const {
  std::vector<const SplitRegex*> out;
  for (const Step& s : steps_) {
    if (s.regex) out.push_back(s.regex.get());
  }
  return out;
}

HfPreTokenizer::CutResult HfPreTokenizer::NewlineCut() const {
  // State: is the cut inside a piece ("joined") or between pieces ("split")? It starts inside the
  // one piece that is the whole text.
  bool split = false;
  for (const Step& s : steps_) {
    switch (s.kind) {
      case Kind::kSplit:
        if (split) break;  // pieces on either side are matched as strings of their own
        if (s.cut == CutClass::kSplitsAtCut && s.behavior == Behavior::kIsolated && !s.invert) {
          split = true;
        } else if (s.cut != CutClass::kNoNewline) {
          return CutResult::kUnsafe;
        }
        // kNoNewline: no match spans the cut, so the parts on either side are the same and the
        // behaviours can only join the last piece before the cut with the first after it.
        break;
      case Kind::kPrefixSpace:
        // Per piece: fine when the cut is a piece boundary; inside a piece the second part would
        // gain a space the whole does not have.
        if (!split) return CutResult::kUnsafe;
        break;
      case Kind::kMetaspace:
        if (s.prepend == Prepend::kFirst) return CutResult::kUnsafe;  // the second part is "first"
        if (s.prepend == Prepend::kAlways && !split) return CutResult::kUnsafe;
        break;  // replacing ' ' touches neither the '\n' nor the byte after it
    }
  }
  return split ? CutResult::kSplits : CutResult::kJoins;
}

void HfPreTokenizer::Run(std::string_view text, bool at_origin,
                         std::vector<std::string_view>* pieces) const {
  thread_local std::vector<std::string_view> next;
  thread_local std::vector<Part> parts;
  thread_local std::string bufs[2];
  thread_local std::vector<std::pair<size_t, size_t>> spans;
  pieces->clear();
  if (text.empty()) return;
  pieces->push_back(text);
  bool origin = at_origin;  // does (*pieces)[0] start at offset 0 of the input?
  int which = -1;           // the buffer the pieces live in (-1: `text`)
  for (const Step& step : steps_) {
    if (pieces->empty()) return;
    next.clear();
    if (step.kind == Kind::kSplit) {
      const char* first = (*pieces)[0].data();
      std::optional<SplitRegex::Matcher> matcher;
      if (step.regex) matcher.emplace(*step.regex);
      for (std::string_view piece : *pieces) {
        FindParts(piece, step, matcher ? &*matcher : nullptr, &parts);
        ApplyBehavior(step.behavior, parts, &next);
      }
      origin = origin && !next.empty() && next[0].data() == first;
      pieces->swap(next);
      continue;
    }
    // A transform: rewrite every piece into the buffer the pieces do not live in.
    std::string& out = bufs[which == 0 ? 1 : 0];
    which = which == 0 ? 1 : 0;
    std::string_view prefix = step.kind == Kind::kPrefixSpace ? std::string_view(" ")
                                                              : std::string_view(step.replacement);
    size_t need = 0;
    for (std::string_view p : *pieces) need += prefix.size() + p.size() * (1 + prefix.size());
    out.clear();
    out.reserve(need);  // no reallocation below: earlier views into `out` stay valid
    spans.clear();
    for (size_t i = 0; i < pieces->size(); ++i) {
      std::string_view p = (*pieces)[i];
      const size_t begin = out.size();
      if (step.kind == Kind::kPrefixSpace) {
        if (p.front() != ' ') out += ' ';
        out.append(p);
      } else {
        bool add = false;
        const bool starts = p.substr(0, prefix.size()) == prefix || p.front() == ' ';
        if (step.prepend == Prepend::kAlways) add = !starts;
        if (step.prepend == Prepend::kFirst) add = !starts && i == 0 && origin;
        if (add) out.append(prefix);
        for (char ch : p) {
          if (ch == ' ') {
            out.append(prefix);
          } else {
            out += ch;
          }
        }
      }
      spans.emplace_back(begin, out.size());
    }
    for (auto [b, e] : spans) next.emplace_back(out.data() + b, e - b);
    pieces->swap(next);
  }
}

}  // namespace ltl
