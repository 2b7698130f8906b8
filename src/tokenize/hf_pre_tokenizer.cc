// tokenizer.json pre_tokenizer parsing and the split-behaviour rules of Hugging Face tokenizers.
#include "tokenize/hf_pre_tokenizer.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "tokenize/tiktoken_tokenizer.h"

namespace ltl {
namespace {

using Behavior = HfPreTokenizer::Behavior;

Result<Behavior> ParseBehavior(const std::string& name) {
  if (name == "Isolated") return Behavior::kIsolated;
  if (name == "Removed") return Behavior::kRemoved;
  if (name == "MergedWithPrevious") return Behavior::kMergedWithPrevious;
  if (name == "MergedWithNext") return Behavior::kMergedWithNext;
  if (name == "Contiguous") return Behavior::kContiguous;
  return Status::InvalidArgument(fmt::format("unsupported Split behavior '{}'", name));
}

// A literal string as a PCRE2 pattern.
std::string QuoteLiteral(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// One step applied to one piece: matches and the gaps between them, then the behaviour.
void SplitPiece(std::string_view text, PieceSpan piece, const HfPreTokenizer::Step& step,
                SplitRegex::Matcher& matcher, std::vector<std::pair<PieceSpan, bool>>& parts,
                std::vector<PieceSpan>* out) {
  parts.clear();
  // Each piece is matched as a string of its own (anchors and lookarounds stop at its edges).
  const std::string_view sub = text.substr(piece.begin, piece.end - piece.begin);
  const uint32_t base = piece.begin;
  auto span = [&](size_t b, size_t e) {
    return PieceSpan{base + static_cast<uint32_t>(b), base + static_cast<uint32_t>(e)};
  };
  size_t pos = 0, b, e;
  while (pos < sub.size() && matcher.Find(sub, pos, &b, &e)) {
    if (b > pos) parts.push_back({span(pos, b), false});
    if (e == b) {  // empty match: no empty piece; the next character joins the gap
      size_t next = e + 1;
      while (next < sub.size() && (static_cast<uint8_t>(sub[next]) & 0xC0) == 0x80) ++next;
      parts.push_back({span(e, next), false});
      pos = next;
      continue;
    }
    parts.push_back({span(b, e), true});
    pos = e;
  }
  if (pos < sub.size()) parts.push_back({span(pos, sub.size()), false});
  if (step.invert) {
    for (auto& p : parts) p.second = !p.second;
  }
  switch (step.behavior) {
    case Behavior::kIsolated:
      for (auto& p : parts) out->push_back(p.first);
      break;
    case Behavior::kRemoved:
      for (auto& p : parts) {
        if (!p.second) out->push_back(p.first);
      }
      break;
    case Behavior::kMergedWithPrevious: {
      bool open = false;
      for (auto& p : parts) {
        if (p.second && open) {
          out->back().end = p.first.end;
        } else {
          out->push_back(p.first);
        }
        open = true;
      }
      break;
    }
    case Behavior::kMergedWithNext: {
      bool pending = false;
      for (auto& p : parts) {
        if (pending) {
          out->back().end = p.first.end;
        } else {
          out->push_back(p.first);
        }
        pending = p.second;
      }
      break;
    }
    case Behavior::kContiguous: {
      bool last_match = false;
      for (size_t i = 0; i < parts.size(); ++i) {
        if (i > 0 && parts[i].second && last_match) {
          out->back().end = parts[i].first.end;
        } else {
          out->push_back(parts[i].first);
        }
        last_match = parts[i].second;
      }
      break;
    }
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
  if (type == "ByteLevel") {
    byte_level_ = true;
    add_prefix_space_ = c.value("add_prefix_space", false);
    if (c.value("use_regex", true)) {
      auto re = SplitRegex::Compile(kGpt2Pattern);
      if (!re.ok()) return re.status();
      steps_.push_back({std::move(re).value(), Behavior::kIsolated, false});
    }
    return Status::Ok();
  }
  if (type == "Split") {
    const auto& pat = c.at("pattern");
    std::string pattern;
    if (pat.contains("Regex")) {
      pattern = pat.at("Regex").get<std::string>();
    } else if (pat.contains("String")) {
      pattern = QuoteLiteral(pat.at("String").get<std::string>());
    } else {
      return Status::InvalidArgument("Split pattern is neither Regex nor String");
    }
    auto behavior = ParseBehavior(c.value("behavior", "Isolated"));
    if (!behavior.ok()) return behavior.status();
    auto re = SplitRegex::Compile(pattern);
    if (!re.ok()) return re.status();
    steps_.push_back({std::move(re).value(), *behavior, c.value("invert", false)});
    return Status::Ok();
  }
  if (type == "Digits") {
    auto re = SplitRegex::Compile(c.value("individual_digits", false) ? "\\p{N}" : "\\p{N}+");
    if (!re.ok()) return re.status();
    steps_.push_back({std::move(re).value(), Behavior::kIsolated, false});
    return Status::Ok();
  }
  return Status::InvalidArgument(fmt::format("unsupported pre_tokenizer type '{}'", type));
}

bool HfPreTokenizer::NewlineCutIsExact() const {
  for (const Step& s : steps_) {
    if (s.behavior != Behavior::kIsolated || s.invert ||
        !IsNewlineCutSafePattern(s.regex->source())) {
      return false;
    }
  }
  return true;
}

Result<HfPreTokenizer> HfPreTokenizer::FromJson(const nlohmann::json& config) {
  HfPreTokenizer p;
  Status st = p.AddConfig(config);
  if (!st.ok()) return st;
  return p;
}

void HfPreTokenizer::Split(std::string_view text, std::vector<PieceSpan>* pieces) const {
  thread_local std::vector<PieceSpan> next;
  thread_local std::vector<std::pair<PieceSpan, bool>> parts;
  pieces->clear();
  if (text.empty()) return;
  pieces->push_back({0, static_cast<uint32_t>(text.size())});
  for (const Step& step : steps_) {
    SplitRegex::Matcher matcher(*step.regex);
    next.clear();
    for (const PieceSpan& piece : *pieces) SplitPiece(text, piece, step, matcher, parts, &next);
    pieces->swap(next);
  }
}

}  // namespace ltl
