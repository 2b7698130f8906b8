// Reading a Hugging Face tokenizer.json into an HfTokenizer: the normalizer, the pre-tokenizer
// (which decides the model's alphabet: bytes under ByteLevel, characters otherwise), the BPE
// model and the added tokens (split by their `normalized` flag; normalized ones are matched by
// their content as the normalizer rewrites it, as tokenizers does).
#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tokenize/file_bytes.h"
#include "tokenize/hf_tokenizer.h"

namespace ltl {
namespace {

// The name reports show: the file name, or "<folder>/tokenizer.json" for the usual file name.
std::string DisplayName(const std::string& path) {
  std::filesystem::path p(path);
  if (p.filename() == "tokenizer.json" && p.has_parent_path()) {
    std::filesystem::path parent = std::filesystem::absolute(p).parent_path();
    return (parent.filename() / p.filename()).string();
  }
  return p.filename().string();
}

bool IsByteLevelNormalizer(const nlohmann::json& n) {
  if (!n.is_object()) return false;
  if (n.value("type", "") == "ByteLevel") return true;
  if (n.value("type", "") == "Sequence" && n.contains("normalizers")) {
    for (const auto& sub : n["normalizers"]) {
      if (IsByteLevelNormalizer(sub)) return true;
    }
  }
  return false;
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
    const nlohmann::json null;
    const nlohmann::json& normalizer_json = doc.contains("normalizer") ? doc["normalizer"] : null;
    if (IsByteLevelNormalizer(normalizer_json)) {
      return fail(Status::InvalidArgument("unsupported normalizer type 'ByteLevel'"));
    }
    auto normalizer = HfNormalizer::FromJson(normalizer_json);
    if (!normalizer.ok()) return fail(normalizer.status());
    auto pre =
        HfPreTokenizer::FromJson(doc.contains("pre_tokenizer") ? doc["pre_tokenizer"] : null);
    if (!pre.ok()) return fail(pre.status());
    auto model = HfBpeModel::FromJson(doc["model"], pre->byte_level());
    if (!model.ok()) return fail(model.status());
    HfTokenizer::Parts parts{
        std::move(normalizer).value(), std::move(pre).value(), std::move(model).value(), {}, {}};
    if (doc.contains("added_tokens")) {
      for (const auto& t : doc["added_tokens"]) {
        AddedToken token{t.at("content").get<std::string>(), t.at("id").get<uint32_t>(),
                         t.value("lstrip", false), t.value("rstrip", false),
                         t.value("single_word", false)};
        // tokenizers' default for a missing flag: special tokens are not normalized.
        const bool normalized = t.value("normalized", !t.value("special", false));
        if (normalized) {
          std::string storage;
          token.content = std::string(parts.normalizer.Normalize(token.content, &storage));
          parts.normalized_tokens.Add(std::move(token));
        } else {
          parts.raw_tokens.Add(std::move(token));
        }
      }
    }
    return std::unique_ptr<Tokenizer>(new HfTokenizer(DisplayName(path), path, std::move(parts)));
  } catch (const nlohmann::json::exception& e) {
    return fail(Status::Corrupt(fmt::format("unexpected structure ({})", e.what())));
  }
}

}  // namespace ltl
