// tokenizer.json normalizers. Unicode normalization is ICU's, restricted to the characters Hugging
// Face's tables know (Unicode 9.0: see ReferenceNormalizer); Lowercase is Rust's per-character
// `to_lowercase` (full mappings, no context), taken from ICU one code point at a time; Strip and
// StripAccents use White_Space and the general category M.
#include "tokenize/hf_normalizer.h"

#include <fmt/format.h>
#include <unicode/bytestream.h>
#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/uniset.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "tokenize/unicode_props.h"

namespace ltl {
namespace {

using Kind = HfNormalizer::Kind;

// Hugging Face tokenizers normalizes with the unicode-normalization-alignments tables, which stop
// at Unicode 9.0: characters assigned later are left alone, e.g. newer combining marks are not
// reordered. ICU's normalizer restricted by a FilteredNormalizer2 to [:age=9.0:] does the same (the
// version was found by comparing every combining mark against the npm `tokenizers` reference).
const icu::Normalizer2* ReferenceNormalizer(Kind kind) {
  auto make = [](const icu::Normalizer2* base) {
    UErrorCode status = U_ZERO_ERROR;
    auto* set = new icu::UnicodeSet(icu::UnicodeString::fromUTF8("[:age=9.0:]"), status);
    set->freeze();
    return static_cast<const icu::Normalizer2*>(new icu::FilteredNormalizer2(*base, *set));
  };
  UErrorCode status = U_ZERO_ERROR;
  static const icu::Normalizer2* nfc = make(icu::Normalizer2::getNFCInstance(status));
  static const icu::Normalizer2* nfd = make(icu::Normalizer2::getNFDInstance(status));
  static const icu::Normalizer2* nfkc = make(icu::Normalizer2::getNFKCInstance(status));
  static const icu::Normalizer2* nfkd = make(icu::Normalizer2::getNFKDInstance(status));
  switch (kind) {
    case Kind::kNfc:
      return nfc;
    case Kind::kNfd:
      return nfd;
    case Kind::kNfkc:
      return nfkc;
    default:
      return nfkd;
  }
}

// Applies a Unicode normalization form; false when the text is already normalized.
bool UnicodeNormalize(Kind kind, std::string_view in, std::string* out) {
  const icu::Normalizer2* n = ReferenceNormalizer(kind);
  UErrorCode status = U_ZERO_ERROR;
  const icu::StringPiece piece(in.data(), static_cast<int32_t>(in.size()));
  if (n->isNormalizedUTF8(piece, status) || U_FAILURE(status)) return false;
  out->clear();
  icu::StringByteSink<std::string> sink(out);
  status = U_ZERO_ERROR;
  n->normalizeUTF8(0, piece, sink, nullptr, status);
  return U_SUCCESS(status);
}

void Lowercase(std::string_view in, std::string* out) {
  out->clear();
  out->reserve(in.size());
  size_t len = 0;
  for (size_t i = 0; i < in.size(); i += len) {
    const auto c = static_cast<uint8_t>(in[i]);
    if (c < 0x80) {
      out->push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
      len = 1;
      continue;
    }
    const uint32_t cp = DecodeUtf8At(in, i, &len);
    // One code point at a time, so no context-dependent rule (Final_Sigma) applies: Rust's
    // char::to_lowercase has none either.
    icu::UnicodeString s(static_cast<UChar32>(cp));
    s.toLower(icu::Locale::getRoot());
    s.toUTF8String(*out);
  }
}

void Strip(std::string_view in, bool left, bool right, std::string_view* out) {
  size_t b = 0, e = in.size(), len = 0;
  while (left && b < e && IsUnicodeWhiteSpace(DecodeUtf8At(in, b, &len))) b += len;
  while (right && e > b && IsUnicodeWhiteSpace(DecodeUtf8Before(in, e, &len))) e -= len;
  *out = in.substr(b, e - b);
}

void StripAccents(std::string_view in, std::string* out) {
  out->clear();
  size_t len = 0;
  for (size_t i = 0; i < in.size(); i += len) {
    if (!IsCombiningMark(DecodeUtf8At(in, i, &len))) out->append(in.substr(i, len));
  }
}

// Replaces every leftmost non-overlapping match; false when nothing matched.
bool Replace(const HfNormalizer::Step& s, std::string_view in, std::string* out) {
  out->clear();
  size_t pos = 0, copied = 0;
  bool any = false;
  if (!s.regex) {
    if (s.pattern.empty()) return false;
    for (size_t at; (at = in.find(s.pattern, pos)) != std::string_view::npos;) {
      out->append(in.substr(copied, at - copied));
      out->append(s.content);
      pos = copied = at + s.pattern.size();
      any = true;
    }
  } else {
    SplitRegex::Matcher m(*s.regex);
    size_t b = 0, e = 0;
    while (pos < in.size() && m.Find(in, pos, &b, &e)) {
      out->append(in.substr(copied, b - copied));
      out->append(s.content);
      any = true;
      copied = e;
      pos = e;
      if (e == b) {  // an empty match inserts the content; the next character is kept
        size_t len = 0;
        DecodeUtf8At(in, e, &len);
        out->append(in.substr(e, len));
        pos = copied = e + len;
      }
    }
  }
  if (!any) return false;
  out->append(in.substr(copied));
  return true;
}

Result<std::string> PatternOf(const nlohmann::json& c, bool* is_regex) {
  const auto& pat = c.at("pattern");
  if (pat.contains("String")) {
    *is_regex = false;
    return pat.at("String").get<std::string>();
  }
  if (pat.contains("Regex")) {
    *is_regex = true;
    return pat.at("Regex").get<std::string>();
  }
  return Status::InvalidArgument("Replace pattern is neither String nor Regex");
}

}  // namespace

Status HfNormalizer::AddConfig(const nlohmann::json& c) {
  if (c.is_null()) return Status::Ok();
  const std::string type = c.value("type", "");
  if (type == "Sequence") {
    for (const auto& sub : c.at("normalizers")) LTL_RETURN_IF_ERROR(AddConfig(sub));
    return Status::Ok();
  }
  Step s;
  if (type == "NFC") {
    s.kind = Kind::kNfc;
  } else if (type == "NFD") {
    s.kind = Kind::kNfd;
  } else if (type == "NFKC") {
    s.kind = Kind::kNfkc;
  } else if (type == "NFKD") {
    s.kind = Kind::kNfkd;
  } else if (type == "Lowercase") {
    s.kind = Kind::kLowercase;
  } else if (type == "StripAccents") {
    s.kind = Kind::kStripAccents;
  } else if (type == "Strip") {
    s.kind = Kind::kStrip;
    s.left = c.value("strip_left", true);
    s.right = c.value("strip_right", true);
  } else if (type == "Prepend") {
    s.kind = Kind::kPrepend;
    s.content = c.at("prepend").get<std::string>();
  } else if (type == "Replace") {
    s.kind = Kind::kReplace;
    bool is_regex = false;
    auto pattern = PatternOf(c, &is_regex);
    if (!pattern.ok()) return pattern.status();
    s.content = c.at("content").get<std::string>();
    if (is_regex) {
      auto re = SplitRegex::Compile(*pattern);
      if (!re.ok()) return Status::InvalidArgument("Replace " + re.status().message());
      s.regex = std::move(re).value();
    } else {
      s.pattern = std::move(pattern).value();
    }
  } else {
    return Status::InvalidArgument(fmt::format("unsupported normalizer type '{}'", type));
  }
  steps_.push_back(std::move(s));
  return Status::Ok();
}

double HfNormalizer::ReplaceGrowthBound() const {
  double bound = 1;
  for (const Step& s : steps_) {
    if (s.kind != Kind::kReplace) continue;
    const auto c = static_cast<double>(s.content.size());
    if (s.regex) {
      bound *= 1 + c;
    } else if (!s.pattern.empty()) {
      bound *= std::max(1.0, std::ceil(c / static_cast<double>(s.pattern.size())));
    }
  }
  return bound;
}

Result<HfNormalizer> HfNormalizer::FromJson(const nlohmann::json& config) {
  HfNormalizer n;
  Status st = n.AddConfig(config);
  if (!st.ok()) return st;
  if (const double g = n.ReplaceGrowthBound(); g > kMaxReplaceGrowth) {
    return Status::InvalidArgument(
        fmt::format("normalizer Replace steps can multiply a text's bytes by up to {:.0f}, more "
                    "than the {:.0f} "
                    "allowed: refused (a hostile tokenizer could fill the memory)",
                    g, kMaxReplaceGrowth));
  }
  return n;
}

std::string_view HfNormalizer::Normalize(std::string_view in, std::string* storage) const {
  thread_local std::string scratch;
  std::string* bufs[2] = {storage, &scratch};
  std::string_view cur = in;
  int which = -1;  // the buffer `cur` lives in (-1: `in` itself)
  for (const Step& s : steps_) {
    std::string* out = bufs[which == 0 ? 1 : 0];
    bool changed = true;
    switch (s.kind) {
      case Kind::kNfc:
      case Kind::kNfd:
      case Kind::kNfkc:
      case Kind::kNfkd:
        changed = UnicodeNormalize(s.kind, cur, out);
        break;
      case Kind::kLowercase:
        Lowercase(cur, out);
        break;
      case Kind::kStripAccents:
        StripAccents(cur, out);
        break;
      case Kind::kStrip:
        Strip(cur, s.left, s.right, &cur);  // a sub-view of the same buffer
        changed = false;
        break;
      case Kind::kReplace:
        changed = Replace(s, cur, out);
        break;
      case Kind::kPrepend:
        changed = !cur.empty();
        if (changed) {
          out->assign(s.content);
          out->append(cur);
        }
        break;
    }
    if (changed) {
      cur = *out;
      which = out == storage ? 0 : 1;
    }
  }
  if (which == 1) {
    storage->assign(cur);
    cur = *storage;
  }
  return cur;
}

bool HfNormalizer::NewlineCutIsExact() const {
  auto is_follower = [](char c) { return c > 0x20 && c < 0x7F && c != '/'; };
  for (const Step& s : steps_) {
    switch (s.kind) {
      case Kind::kNfc:
      case Kind::kNfd:
      case Kind::kNfkc:
      case Kind::kNfkd:
      case Kind::kLowercase:
      case Kind::kStripAccents:
        // Per character, or (Unicode forms) never across an ASCII starter: '\n' and the ASCII
        // byte after the cut stay as they are and nothing composes or reorders across them.
        break;
      case Kind::kReplace:
        // A literal that cannot contain the '\n' or the byte after the cut never matches across
        // the cut, and leaves both unchanged.
        if (s.regex || s.pattern.empty() || s.pattern.find('\n') != std::string::npos ||
            std::any_of(s.pattern.begin(), s.pattern.end(), is_follower)) {
          return false;
        }
        break;
      case Kind::kStrip:    // would strip the '\n' that ends the first part
      case Kind::kPrepend:  // would prefix the second part
        return false;
    }
  }
  return true;
}

}  // namespace ltl
