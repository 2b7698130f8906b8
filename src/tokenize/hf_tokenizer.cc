// HfBpeTokenizer encoding: added tokens first, then per remaining segment NFC (when configured),
// the pre-tokenizer splits and byte-pair merging by merge rank.
#include "tokenize/hf_tokenizer.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/uniset.h>

#include "tokenize/bpe_merge.h"
#include "tokenize/utf8.h"

namespace ltl {
namespace {

// NFC as Hugging Face tokenizers computes it: its normalization tables (unicode-normalization-
// alignments) stop at Unicode 9.0, so characters assigned later are left alone, e.g. combining
// marks are not reordered (ICU's NFC restricted by a FilteredNormalizer2 to [:age=9.0:]; the
// version was found by comparing every combining mark against the npm `tokenizers` reference).
const icu::Normalizer2* ReferenceNfc() {
  static const icu::Normalizer2* nfc = [] {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* base = icu::Normalizer2::getNFCInstance(status);
    auto* set = new icu::UnicodeSet(icu::UnicodeString::fromUTF8("[:age=9.0:]"), status);
    set->freeze();
    return static_cast<const icu::Normalizer2*>(new icu::FilteredNormalizer2(*base, *set));
  }();
  return nfc;
}

}  // namespace

void HfBpeTokenizer::EncodeWord(std::string_view word, std::vector<uint32_t>* out) const {
  if (model_.ignore_merges) {
    const uint32_t id = model_.vocab.Find(word);
    if (id != kNoRank) {
      out->push_back(id);
      return;
    }
  }
  thread_local MergeScratch scratch;
  auto& sym = scratch.symbols;
  sym.clear();
  for (uint32_t i = 0; i < word.size(); ++i) {
    // A byte without a token becomes unk_id (the loader refuses such vocabularies without one).
    uint32_t id = model_.byte_id[static_cast<uint8_t>(word[i])];
    if (id == kNoRank) id = model_.unk_id;
    const auto n = static_cast<int32_t>(i);
    sym.push_back({i, i + 1, id, n - 1, i + 1 < word.size() ? n + 1 : -1});
  }
  MergeByRank(
      scratch,
      [&](const MergeSymbol& l, const MergeSymbol& r, uint32_t* id) {
        auto it = model_.merges.find((static_cast<uint64_t>(l.id) << 32) | r.id);
        if (it == model_.merges.end()) return kNoRank;
        *id = it->second.second;
        return it->second.first;
      },
      out);
}

void HfBpeTokenizer::EncodeSegment(std::string_view segment, std::vector<uint32_t>* out) const {
  if (segment.empty()) return;
  std::string normalized;
  if (nfc_) {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* nfc = ReferenceNfc();
    const icu::StringPiece piece(segment.data(), static_cast<int32_t>(segment.size()));
    if (U_SUCCESS(status) && !nfc->isNormalizedUTF8(piece, status) && U_SUCCESS(status)) {
      icu::StringByteSink<std::string> sink(&normalized);
      nfc->normalizeUTF8(0, piece, sink, nullptr, status);
      if (U_SUCCESS(status)) segment = normalized;
    }
  }
  thread_local std::vector<PieceSpan> pieces;
  thread_local std::string word;
  pre_.Split(segment, &pieces);
  for (const PieceSpan& p : pieces) {
    std::string_view piece = segment.substr(p.begin, p.end - p.begin);
    if (piece.empty()) continue;
    if (pre_.add_prefix_space() && piece.front() != ' ') {
      word.resize(piece.size() + 1);
      word[0] = ' ';
      piece.copy(word.data() + 1, piece.size());
      EncodeWord(word, out);
    } else {
      EncodeWord(piece, out);
    }
  }
}

void HfBpeTokenizer::Encode(std::string_view text, std::vector<uint32_t>* out) const {
  std::string repaired;
  text = ValidUtf8View(text, &repaired);
  size_t pos = 0;
  AddedTokenMatcher::Match m;
  while (!added_.empty() && added_.Find(text, pos, &m)) {
    EncodeSegment(text.substr(pos, m.begin - pos), out);
    out->push_back(m.id);
    pos = m.end;
  }
  EncodeSegment(text.substr(pos), out);
}

}  // namespace ltl
