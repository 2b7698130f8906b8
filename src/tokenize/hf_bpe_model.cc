// HfBpeModel: reading the vocabulary and merges (both the "a b" and the ["a","b"] forms; a pair
// listed twice keeps its last rank, as tokenizers' HashMap collect does) and encoding words.
#include "tokenize/hf_bpe_model.h"

#include <fmt/format.h>

#include <atomic>
#include <nlohmann/json.hpp>

#include "tokenize/bpe_merge.h"
#include "tokenize/byte_level.h"
#include "tokenize/unicode_props.h"

namespace ltl {
namespace {

std::string OptionalString(const nlohmann::json& m, const char* key) {
  if (!m.contains(key) || m[key].is_null()) return {};
  return m[key].get<std::string>();
}

bool IsCutFollower(uint8_t c) {
  return c > 0x20 && c < 0x7F && c != '/';
}

bool SpansNewlineCut(std::string_view s) {
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] == '\n' && IsCutFollower(static_cast<uint8_t>(s[i + 1]))) return true;
  }
  return false;
}

// Words up to this many bytes are cached, at most kWordCacheEntries per model and thread (then the
// cache starts over); a thread keeps the caches of its last kWordCacheModels models.
constexpr size_t kWordCacheMaxBytes = 96;
constexpr size_t kWordCacheEntries = 1 << 17;
constexpr size_t kWordCacheModels = 4;

struct WordCache {
  uint64_t owner = 0;
  absl::flat_hash_map<std::string, std::pair<uint32_t, uint32_t>> index;  // word -> ids_ range
  std::vector<uint32_t> ids;
};

WordCache& WordCacheFor(uint64_t owner) {
  thread_local std::vector<WordCache> caches;
  for (WordCache& c : caches)
    if (c.owner == owner) return c;
  if (caches.size() >= kWordCacheModels) caches.erase(caches.begin());
  caches.emplace_back();
  caches.back().owner = owner;
  return caches.back();
}

std::atomic<uint64_t> next_cache_owner{1};

}  // namespace

Result<HfBpeModel> HfBpeModel::FromJson(const nlohmann::json& m, bool byte_level) {
  Vocabulary vocab;
  std::vector<MergeEntry> merges;
  if (m.contains("vocab")) {
    const auto& v = m.at("vocab");
    if (!v.is_object()) return Status::Corrupt("model.vocab is not an object");
    vocab.reserve(v.size());
    for (auto it = v.begin(); it != v.end(); ++it) {
      const auto& id = it.value();
      if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > 0xFFFFFFFFll) {
        return Status::Corrupt("model.vocab has an id that is not an unsigned integer");
      }
      vocab.emplace_back(it.key(), id.get<uint32_t>());
    }
  }
  if (m.contains("merges")) {
    const auto& list = m.at("merges");
    if (!list.is_array()) return Status::Corrupt("model.merges is not a list");
    merges.reserve(list.size());
    for (const auto& entry : list) {
      MergeEntry e;
      if (entry.is_string()) {
        e.form = MergeEntry::kSpaced;
        e.left = entry.get_ref<const std::string&>();
      } else if (entry.is_array() && entry.size() == 2 && entry[0].is_string() &&
                 entry[1].is_string()) {
        e.form = MergeEntry::kPair;
        e.left = entry[0].get_ref<const std::string&>();
        e.right = entry[1].get_ref<const std::string&>();
      }
      merges.push_back(e);
    }
  }
  return FromParts(m, m.contains("vocab") ? &vocab : nullptr,
                   m.contains("merges") ? &merges : nullptr, byte_level);
}

Result<HfBpeModel> HfBpeModel::FromParts(const nlohmann::json& m, const Vocabulary* vocab,
                                         const std::vector<MergeEntry>* merges, bool byte_level) {
  if (m.value("type", "") != "BPE") {
    return Status::InvalidArgument(
        fmt::format("model.type is '{}'; only BPE models are supported", m.value("type", "")));
  }
  if (m.contains("dropout") && !m["dropout"].is_null() && m["dropout"].get<double>() != 0) {
    return Status::InvalidArgument("model.dropout is not supported (encoding would be random)");
  }
  if (!vocab) return Status::Corrupt("model.vocab is missing");
  if (!merges) return Status::Corrupt("model.merges is missing");
  HfBpeModel model;
  model.cache_owner_ = next_cache_owner.fetch_add(1);
  model.byte_level_ = byte_level;
  model.ignore_merges_ = m.value("ignore_merges", false);
  model.byte_fallback_ = m.value("byte_fallback", false);
  model.fuse_unk_ = m.value("fuse_unk", false);
  std::string prefix = OptionalString(m, "continuing_subword_prefix");
  std::string suffix = OptionalString(m, "end_of_word_suffix");
  const size_t prefix_len = prefix.size();  // in vocabulary strings, as merges see them
  if (byte_level) {
    auto p = ByteLevelDecode(prefix), s = ByteLevelDecode(suffix);
    if (!p || !s) {
      return Status::InvalidArgument(
          "continuing_subword_prefix / end_of_word_suffix outside the ByteLevel alphabet");
    }
    prefix = *p;
    suffix = *s;
  }
  model.prefix_ = prefix;
  model.suffix_ = suffix;

  // As written, for merges and unk_token; a key listed twice keeps its last id (as a JSON object
  // read into a map does: serde's HashMap, and nlohmann's).
  absl::flat_hash_map<std::string_view, uint32_t> by_string;
  by_string.reserve(vocab->size());
  for (const auto& [key, id] : *vocab) by_string.insert_or_assign(key, id);
  model.vocab_.Reserve(by_string.size(), by_string.size() * 8);
  bool spans_cut = false;
  for (const auto& [key, id] : *vocab) {
    if (by_string.find(key)->second != id) continue;  // overridden by a later duplicate
    if (byte_level) {
      // Strings outside the ByteLevel alphabet can never be produced from text: left out.
      auto bytes = ByteLevelDecode(key);
      if (bytes && !bytes->empty()) {
        model.vocab_.Insert(*bytes, id);
        spans_cut = spans_cut || SpansNewlineCut(*bytes);
      }
    } else if (!key.empty()) {
      model.vocab_.Insert(key, id);
      spans_cut = spans_cut || SpansNewlineCut(key);
    }
  }
  model.fallback_id_.fill(kNoRank);
  bool all_fallback = model.byte_fallback_;
  if (model.byte_fallback_) {
    for (int b = 0; b < 256; ++b) {
      auto it = by_string.find(fmt::format("<0x{:02X}>", b));
      if (it != by_string.end()) {
        model.fallback_id_[b] = it->second;
      } else {
        all_fallback = false;
      }
    }
  }
  const std::string unk = OptionalString(m, "unk_token");
  if (!unk.empty()) {
    auto it = by_string.find(unk);
    if (it != by_string.end()) {
      model.unk_id_ = it->second;
    } else if (!all_fallback && !(byte_level && model.vocab_.HasAllBytes())) {
      // tokenizers fails on the first character the vocabulary lacks; so do we, up front.
      return Status::InvalidArgument(fmt::format(
          "model.unk_token is not in the vocabulary (vocabulary size {})", by_string.size()));
    }
  }
  if (byte_level && !model.vocab_.HasAllBytes() && model.unk_id_ == kNoRank && !all_fallback) {
    return Status::InvalidArgument(
        "vocabulary lacks tokens for some bytes and has neither unk_token nor byte_fallback");
  }

  model.merges_.reserve(merges->size());
  uint32_t rank = 0;
  uint32_t newline_fallback_left = 0;  // merges whose left side is the byte token of '\n'
  std::string joined;
  for (const MergeEntry& entry : *merges) {
    std::string_view left, right;
    if (entry.form == MergeEntry::kSpaced) {
      const std::string_view s = entry.left;
      const size_t space = s.find(' ');
      if (space == std::string_view::npos || s.find(' ', space + 1) != std::string_view::npos) {
        return Status::Corrupt(
            fmt::format("merge {} is not two tokens separated by a space", rank));
      }
      left = s.substr(0, space);
      right = s.substr(space + 1);
    } else if (entry.form == MergeEntry::kPair) {
      left = entry.left;
      right = entry.right;
    } else {
      return Status::Corrupt(fmt::format("merge {} is neither \"a b\" nor [\"a\", \"b\"]", rank));
    }
    if (right.size() < prefix_len) {
      return Status::Corrupt(fmt::format("merge {} is shorter than the subword prefix", rank));
    }
    joined.assign(left);
    joined.append(right.substr(prefix_len));
    auto l = by_string.find(left), r = by_string.find(right);
    auto lr = by_string.find(std::string_view(joined));
    if (l == by_string.end() || r == by_string.end() || lr == by_string.end()) {
      return Status::Corrupt(
          fmt::format("merge {} names a token missing from the vocabulary", rank));
    }
    if (model.byte_fallback_ && l->second == model.fallback_id_['\n']) ++newline_fallback_left;
    model.merges_.insert_or_assign((static_cast<uint64_t>(l->second) << 32) | r->second,
                                   std::make_pair(rank, lr->second));
    ++rank;
  }

  // The within-word newline cut (WordCutIsExact): '\n' must be a symbol of its own that no
  // merge joins with the byte after it.
  const bool newline_in_vocab = model.vocab_.Find("\n") != kNoRank;
  const bool newline_by_fallback = !newline_in_vocab && model.byte_fallback_ &&
                                   model.fallback_id_['\n'] != kNoRank &&
                                   newline_fallback_left == 0;
  model.all_bytes_plain_ =
      byte_level && prefix.empty() && suffix.empty() && model.vocab_.HasAllBytes();
  model.word_cut_exact_ = !spans_cut && prefix.empty() && suffix.empty() && !model.ignore_merges_ &&
                          (newline_in_vocab || newline_by_fallback);
  return model;
}

MergeScratch& HfBpeModel::Scratch() {
  thread_local MergeScratch scratch;
  return scratch;
}

void HfBpeModel::EncodeCached(std::string_view word, std::vector<uint32_t>* out) const {
  if (word.size() > kWordCacheMaxBytes) {
    EncodeUnits(word, out);
    return;
  }
  WordCache& cache = WordCacheFor(cache_owner_);
  auto it = cache.index.find(absl::string_view(word.data(), word.size()));
  if (it != cache.index.end()) {
    const auto begin = cache.ids.begin() + it->second.first;
    out->insert(out->end(), begin, begin + it->second.second);
    return;
  }
  const size_t first = out->size();
  EncodeUnits(word, out);
  if (cache.index.size() >= kWordCacheEntries) {
    cache.index.clear();
    cache.ids.clear();
  }
  const auto count = static_cast<uint32_t>(out->size() - first);
  cache.index.emplace(std::string(word), std::pair<uint32_t, uint32_t>(
                                             static_cast<uint32_t>(cache.ids.size()), count));
  cache.ids.insert(cache.ids.end(), out->begin() + static_cast<ptrdiff_t>(first), out->end());
}

void HfBpeModel::EncodeUnits(std::string_view word, std::vector<uint32_t>* out) const {
  thread_local std::string unit;
  auto& sym = Scratch().symbols;
  sym.clear();
  uint32_t pos = 0;  // symbol positions only order the symbols (merge ties go leftmost)
  auto add = [&](uint32_t id) {
    const auto n = static_cast<int32_t>(sym.size());
    sym.push_back({pos, pos + 1, id, n - 1, -1});
    if (n > 0) sym[n - 1].next = n;
    ++pos;
  };
  if (all_bytes_plain_) {
    // Byte-level without prefix/suffix and a token for every byte (Qwen, Llama 3, DeepSeek,
    // gpt-oss): one symbol per byte, nothing unknown.
    const auto n = static_cast<uint32_t>(word.size());
    sym.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      sym[i] = {i, i + 1, vocab_.ByteRank(static_cast<uint8_t>(word[i])),
                static_cast<int32_t>(i) - 1, i + 1 < n ? static_cast<int32_t>(i + 1) : -1};
    }
    MergeSymbols(out);
    return;
  }
  uint32_t unk = kNoRank;  // a pending unknown (fused with following unknowns when fuse_unk)
  const bool plain_bytes = byte_level_ && prefix_.empty() && suffix_.empty();
  size_t len = 1;
  for (size_t i = 0; i < word.size(); i += len) {
    uint32_t id;
    std::string_view s;
    if (plain_bytes) {
      len = 1;
      id = vocab_.ByteRank(static_cast<uint8_t>(word[i]));
      s = word.substr(i, 1);
    } else {
      if (byte_level_) {
        len = 1;
      } else {
        DecodeUtf8At(word, i, &len);
      }
      s = word.substr(i, len);
      if (i > 0 && !prefix_.empty()) {
        unit.assign(prefix_);
        unit.append(s);
        s = unit;
      }
      if (i + len == word.size() && !suffix_.empty()) {
        if (s.data() != unit.data()) unit.assign(s);
        unit.append(suffix_);
        s = unit;
      }
      id = vocab_.Find(s);
    }
    if (id != kNoRank) {
      if (unk != kNoRank) {
        add(unk);
        unk = kNoRank;
      }
      add(id);
      continue;
    }
    if (byte_fallback_) {
      bool all = true;
      for (char c : s) all = all && fallback_id_[static_cast<uint8_t>(c)] != kNoRank;
      if (all) {
        for (char c : s) add(fallback_id_[static_cast<uint8_t>(c)]);
        continue;
      }
    }
    if (unk_id_ != kNoRank) {
      if (unk != kNoRank && !fuse_unk_) add(unk);
      unk = unk_id_;
    }
    // Without unk_token the character is dropped, as tokenizers does.
  }
  if (unk != kNoRank) add(unk);
  MergeSymbols(out);
}

void HfBpeModel::MergeSymbols(std::vector<uint32_t>* out) const {
  MergeByRank(
      Scratch(),
      [&](const MergeSymbol& l, const MergeSymbol& r, uint32_t* id) {
        auto it = merges_.find((static_cast<uint64_t>(l.id) << 32) | r.id);
        if (it == merges_.end()) return kNoRank;
        *id = it->second.second;
        return it->second.first;
      },
      out);
}

}  // namespace ltl
