// Reading a Hugging Face tokenizer.json into an HfBpeTokenizer: vocabulary strings are mapped back
// from the ByteLevel alphabet to raw bytes, merges (both the "a b" and the ["a","b"] forms) to
// (left id, right id) -> (rank, merged id).
#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tokenize/byte_level.h"
#include "tokenize/file_bytes.h"
#include "tokenize/hf_tokenizer.h"

namespace ltl {
namespace {

Result<bool> ParseNormalizer(const nlohmann::json& n) {
  if (n.is_null()) return false;
  const std::string type = n.value("type", "");
  if (type == "NFC") return true;
  if (type == "Sequence") {
    bool nfc = false;
    for (const auto& sub : n.at("normalizers")) {
      auto r = ParseNormalizer(sub);
      if (!r.ok()) return r.status();
      nfc = nfc || *r;
    }
    return nfc;
  }
  return Status::InvalidArgument(fmt::format("unsupported normalizer type '{}'", type));
}

// The name reports show: the file name, or "<folder>/tokenizer.json" for the usual file name.
std::string DisplayName(const std::string& path) {
  std::filesystem::path p(path);
  if (p.filename() == "tokenizer.json" && p.has_parent_path()) {
    std::filesystem::path parent = std::filesystem::absolute(p).parent_path();
    return (parent.filename() / p.filename()).string();
  }
  return p.filename().string();
}

Status ParseModel(const nlohmann::json& m, HfBpeTokenizer::Model* model) {
  if (m.value("type", "") != "BPE") {
    return Status::InvalidArgument(
        fmt::format("model.type is '{}'; only byte-level BPE is supported", m.value("type", "")));
  }
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (m.contains(key) && !m[key].is_null() && !m[key].get<std::string>().empty()) {
      return Status::InvalidArgument(fmt::format("model.{} is not supported", key));
    }
  }
  if (m.contains("dropout") && !m["dropout"].is_null() && m["dropout"].get<double>() != 0) {
    return Status::InvalidArgument("model.dropout is not supported (encoding would be random)");
  }
  model->ignore_merges = m.value("ignore_merges", false);
  const auto& vocab = m.at("vocab");
  // id -> raw bytes, for building merges; ids of non-ByteLevel strings stay unmapped.
  absl::flat_hash_map<std::string, uint32_t> by_string;
  by_string.reserve(vocab.size());
  model->vocab.Reserve(vocab.size(), vocab.size() * 8);
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    const auto id = it.value().get<uint32_t>();
    by_string.emplace(it.key(), id);
    auto bytes = ByteLevelDecode(it.key());
    if (bytes && !bytes->empty()) model->vocab.Insert(*bytes, id);
  }
  model->byte_id.fill(kNoRank);
  for (int b = 0; b < 256; ++b) {
    model->byte_id[b] = model->vocab.Find(std::string_view(reinterpret_cast<const char*>(&b), 1));
  }
  if (m.contains("unk_token") && m["unk_token"].is_string()) {
    auto it = by_string.find(m["unk_token"].get<std::string>());
    if (it != by_string.end()) model->unk_id = it->second;
  }
  if (!model->vocab.HasAllBytes() && model->unk_id == kNoRank) {
    return Status::InvalidArgument(
        "vocabulary lacks tokens for some bytes and has no unk_token: not a byte-level BPE");
  }
  const auto& merges = m.at("merges");
  model->merges.reserve(merges.size());
  uint32_t rank = 0;
  for (const auto& entry : merges) {
    std::string left, right;
    if (entry.is_string()) {
      const std::string s = entry.get<std::string>();
      const size_t space = s.find(' ');
      if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos) {
        return Status::Corrupt(
            fmt::format("merge {} is not two tokens separated by a space", rank));
      }
      left = s.substr(0, space);
      right = s.substr(space + 1);
    } else if (entry.is_array() && entry.size() == 2) {
      left = entry[0].get<std::string>();
      right = entry[1].get<std::string>();
    } else {
      return Status::Corrupt(fmt::format("merge {} is neither \"a b\" nor [\"a\", \"b\"]", rank));
    }
    auto l = by_string.find(left), r = by_string.find(right), lr = by_string.find(left + right);
    if (l == by_string.end() || r == by_string.end() || lr == by_string.end()) {
      return Status::Corrupt(
          fmt::format("merge {} names a token missing from the vocabulary", rank));
    }
    // The first occurrence of a pair wins, as in Hugging Face tokenizers.
    model->merges.try_emplace((static_cast<uint64_t>(l->second) << 32) | r->second, rank,
                              lr->second);
    ++rank;
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Tokenizer>> LoadHfTokenizerJson(const std::string& path) {
  auto bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  nlohmann::json doc = nlohmann::json::parse(*bytes, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return Status::Corrupt(fmt::format("{}: not a JSON object", path));
  }
  auto fail = [&](const Status& st) {
    return Status(Status::InvalidArgument(fmt::format("{}: {}", path, st.message())));
  };
  try {
    if (!doc.contains("model")) return fail(Status::InvalidArgument("no model"));
    HfBpeTokenizer::Model model;
    Status st = ParseModel(doc["model"], &model);
    if (!st.ok()) return fail(st);
    auto nfc = ParseNormalizer(doc.value("normalizer", nlohmann::json()));
    if (!nfc.ok()) return fail(nfc.status());
    auto pre = HfPreTokenizer::FromJson(doc.value("pre_tokenizer", nlohmann::json()));
    if (!pre.ok()) return fail(pre.status());
    if (!pre->byte_level()) {
      return fail(
          Status::InvalidArgument("pre_tokenizer has no ByteLevel step: not a byte-level BPE"));
    }
    AddedTokenMatcher added;
    if (doc.contains("added_tokens")) {
      for (const auto& t : doc["added_tokens"]) {
        added.Add({t.at("content").get<std::string>(), t.at("id").get<uint32_t>(),
                   t.value("lstrip", false), t.value("rstrip", false),
                   t.value("single_word", false)});
      }
    }
    return std::unique_ptr<Tokenizer>(new HfBpeTokenizer(
        DisplayName(path), std::move(model), std::move(pre).value(), std::move(added), *nfc));
  } catch (const nlohmann::json::exception& e) {
    return fail(Status::Corrupt(fmt::format("unexpected structure ({})", e.what())));
  }
}

}  // namespace ltl
