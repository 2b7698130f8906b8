// Reading a Hugging Face tokenizer.json into an HfTokenizer: the normalizer, the pre-tokenizer
// (which decides the model's alphabet: bytes under ByteLevel, characters otherwise), the BPE
// model and the added tokens (split by their `normalized` flag; normalized ones are matched by
// their content as the normalizer rewrites it, as tokenizers does).
// Parsed with simdjson: model.vocab and model.merges (nearly all of an 11 MB file) are read from
// its DOM as views, everything else is handed to the stages' nlohmann readers as small documents (a
// whole-file nlohmann DOM, a std::map node per vocabulary entry, took ~0.5 s before any request
// was read). A file simdjson refuses (an integer beyond 64 bits) is read whole with nlohmann.
#include <fmt/format.h>
#include <simdjson.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

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

// The one depth rule for tokenizer.json, whichever reader reads it: at most kMaxJsonDepth levels
// of arrays and objects, simdjson's default (issue 35, item 10: a file nested 50,000 levels, which
// simdjson refused, went to the nlohmann reader, which has no limit, and the normalizer check
// after it recursed until the stack overflowed). Counted outside strings without parsing.
constexpr size_t kMaxJsonDepth = 1024;

bool JsonDepthAtMost(std::string_view json, size_t limit) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return false;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return true;
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

// The fast path (see the file comment): `doc` gets every key but model.vocab / model.merges.
struct SplitDocument {
  nlohmann::json doc;
  std::optional<HfBpeModel::Vocabulary> vocab;
  std::optional<std::vector<HfBpeModel::MergeEntry>> merges;
};

nlohmann::json ToNlohmann(simdjson::dom::element e) {
  return nlohmann::json::parse(simdjson::to_string(e));
}

Status ReadVocab(simdjson::dom::element e, HfBpeModel::Vocabulary* out) {
  simdjson::dom::object obj;
  if (e.get(obj) != simdjson::SUCCESS) return Status::Corrupt("model.vocab is not an object");
  out->reserve(obj.size());
  for (auto [key, value] : obj) {
    uint64_t id;
    if (value.get(id) != simdjson::SUCCESS || id > 0xFFFFFFFFull) {
      return Status::Corrupt("model.vocab has an id that is not an unsigned integer");
    }
    out->emplace_back(key, static_cast<uint32_t>(id));
  }
  return Status::Ok();
}

Status ReadMerges(simdjson::dom::element e, std::vector<HfBpeModel::MergeEntry>* out) {
  simdjson::dom::array list;
  if (e.get(list) != simdjson::SUCCESS) return Status::Corrupt("model.merges is not a list");
  out->reserve(list.size());
  for (simdjson::dom::element entry : list) {
    HfBpeModel::MergeEntry m;
    simdjson::dom::array pair;
    if (entry.get(m.left) == simdjson::SUCCESS) {
      m.form = HfBpeModel::MergeEntry::kSpaced;
    } else if (entry.get(pair) == simdjson::SUCCESS && pair.size() == 2 &&
               pair.at(0).get(m.left) == simdjson::SUCCESS &&
               pair.at(1).get(m.right) == simdjson::SUCCESS) {
      m.form = HfBpeModel::MergeEntry::kPair;
    } else {
      m = HfBpeModel::MergeEntry{};
    }
    out->push_back(m);
  }
  return Status::Ok();
}

// A key given twice keeps its last value, as nlohmann's (and serde's) object reading does.
Status Split(simdjson::dom::object root, SplitDocument* out) {
  out->doc = nlohmann::json::object();
  for (auto [key, value] : root) {
    simdjson::dom::object model;
    if (key != "model" || value.get(model) != simdjson::SUCCESS) {
      out->doc[std::string(key)] = ToNlohmann(value);
      continue;
    }
    nlohmann::json small = nlohmann::json::object();
    out->vocab.reset();
    out->merges.reset();
    for (auto [mkey, mvalue] : model) {
      if (mkey == "vocab") {
        out->vocab.emplace();
        if (Status st = ReadVocab(mvalue, &*out->vocab); !st.ok()) return st;
      } else if (mkey == "merges") {
        out->merges.emplace();
        if (Status st = ReadMerges(mvalue, &*out->merges); !st.ok()) return st;
      } else {
        small[std::string(mkey)] = ToNlohmann(mvalue);
      }
    }
    out->doc["model"] = std::move(small);
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Tokenizer>> LoadHfTokenizerJson(const std::string& path) {
  auto bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  auto fail = [&](const Status& st) {
    return Status(Status::InvalidArgument(fmt::format("{}: {}", path, st.message())));
  };
  simdjson::dom::parser parser;  // owns the strings the vocabulary and merges views point into
  simdjson::dom::element root;
  SplitDocument split;
  bool fast = false;
  if (!JsonDepthAtMost(*bytes, kMaxJsonDepth)) {
    return Status::Corrupt(
        fmt::format("{}: JSON nested deeper than {} levels", path, kMaxJsonDepth));
  }
  try {
    if (parser.parse(*bytes).get(root) == simdjson::SUCCESS) {
      simdjson::dom::object obj;
      if (root.get(obj) != simdjson::SUCCESS) {
        return Status::Corrupt(fmt::format("{}: not a JSON object", path));
      }
      if (Status st = Split(obj, &split); !st.ok()) return fail(st);
      fast = true;
    } else {
      split.doc = nlohmann::json::parse(*bytes, nullptr, /*allow_exceptions=*/false);
      if (split.doc.is_discarded() || !split.doc.is_object()) {
        return Status::Corrupt(fmt::format("{}: not a JSON object", path));
      }
    }
  } catch (const nlohmann::json::exception& e) {
    return fail(Status::Corrupt(fmt::format("unexpected structure ({})", e.what())));
  }
  nlohmann::json& doc = split.doc;
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
    auto model =
        fast ? HfBpeModel::FromParts(doc["model"], split.vocab ? &*split.vocab : nullptr,
                                     split.merges ? &*split.merges : nullptr, pre->byte_level())
             : HfBpeModel::FromJson(doc["model"], pre->byte_level());
    if (!model.ok()) return fail(model.status());
    HfTokenizer::Parts parts{
        std::move(normalizer).value(), std::move(pre).value(), std::move(model).value(), {}, {}};
    if (doc.contains("added_tokens")) {
      for (const auto& t : doc["added_tokens"]) {
        // An id outside the vocabulary's 32 bits is an error naming it: get<uint32_t> made 2^40
        // into 0 and -1 into 4294967295, silently unmatched (issue 35, item 12).
        const nlohmann::json& id = t.at("id");
        if (!id.is_number_integer() || id.get<int64_t>() < 0 ||
            id.get<uint64_t>() > 0xFFFFFFFEull) {
          return fail(Status::InvalidArgument(
              fmt::format("added_tokens: id {} is out of range [0, 4294967294]", id.dump())));
        }
        AddedToken token{t.at("content").get<std::string>(), id.get<uint32_t>(),
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
