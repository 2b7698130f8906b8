// libFuzzer target: tokenizer.json encoding (src/tokenize/hf_*) on four small configurations built
// here that together use every normalizer, pre-tokenizer and model option: byte-level BPE with a
// GPT-2 split and added tokens with lstrip / rstrip / single_word / normalized; SentencePiece-style
// BPE (Prepend + Replace, byte fallback, fused unknowns); Metaspace with prepend_scheme "first",
// NFKC, Lowercase and Strip; and a Gemma-like literal split with a subword-free character
// vocabulary. The first input byte picks the configuration, the rest is the text (any bytes:
// ill-formed UTF-8 is repaired first). Properties beyond "no crash":
//  - every id is one the configuration defines;
//  - encoding is deterministic (a second encode gives the same ids);
//  - when the tokenizer claims NewlineCutIsExact, encoding through the segment cache cut at every
//    eligible newline gives the same ids as encoding the whole text, both when every segment
//    misses and when every segment hits.
#include <nlohmann/json.hpp>

#include "fuzz/fuzz_util.h"
#include "tokenize/caching_tokenizer.h"
#include "tokenize/tokenizer.h"

namespace {

const char kU[] = "\xE2\x96\x81";  // ▁

std::string ByteChar(int b) {
  static const std::vector<int> map = [] {
    std::vector<int> m(256);
    int n = 256;
    for (int x = 0; x < 256; ++x) {
      const bool direct = (x >= 0x21 && x <= 0x7E) || (x >= 0xA1 && x <= 0xAC) || x >= 0xAE;
      m[x] = direct ? x : n++;
    }
    return m;
  }();
  const int cp = map[b];
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

nlohmann::json Added(const char* content, uint32_t id, bool lstrip, bool rstrip, bool single_word,
                     bool normalized) {
  return {{"content", content},         {"id", id},
          {"lstrip", lstrip},           {"rstrip", rstrip},
          {"single_word", single_word}, {"normalized", normalized},
          {"special", !normalized}};
}

nlohmann::json ByteLevelConfig() {
  nlohmann::json vocab = nlohmann::json::object();
  for (int b = 0; b < 256; ++b) vocab[ByteChar(b)] = b;
  const char* pairs[][2] = {{"h", "e"}, {"l", "l"}, {"he", "ll"}, {"Ġ", "w"},
                            {"Ċ", "Ċ"}, {"Ġ", "Ġ"}, {"e", "l"},   {"o", "r"}};
  nlohmann::json merges = nlohmann::json::array();
  uint32_t id = 256;
  for (auto& p : pairs) {
    vocab[std::string(p[0]) + p[1]] = id++;
    merges.push_back(std::string(p[0]) + " " + p[1]);
  }
  return {
      {"added_tokens",
       {Added("<|im_start|>", 300, false, false, false, false),
        Added("<|im_end|>", 301, false, true, false, false),
        Added("<mask>", 302, true, false, true, false),
        Added("hello", 303, false, false, true, true)}},
      {"normalizer", {{"type", "NFC"}}},
      {"pre_tokenizer",
       {{"type", "Sequence"},
        {"pretokenizers",
         {{{"type", "Digits"}, {"individual_digits", false}},
          {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}}}}},
      {"model", {{"type", "BPE"}, {"ignore_merges", true}, {"vocab", vocab}, {"merges", merges}}}};
}

// Characters a b c ▁ \n, byte tokens <0x00>.. at 10.., merges (▁,a) (a,b) (▁a,b) (b,c).
nlohmann::json CharVocab(nlohmann::json* merges) {
  const std::string u = kU;
  nlohmann::json vocab = {{"<unk>", 0}, {"a", 1},     {"b", 2},  {"c", 3},      {u, 4},
                          {"\n", 5},    {u + "a", 6}, {"ab", 7}, {u + "ab", 8}, {"bc", 9}};
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    vocab[name] = 10 + b;
  }
  *merges = {u + " a", "a b", u + "a b", "b c"};
  return vocab;
}

nlohmann::json SentencePieceConfig() {
  nlohmann::json merges;
  nlohmann::json vocab = CharVocab(&merges);
  return {{"added_tokens", {Added("</s>", 300, false, false, false, false)}},
          {"normalizer",
           {{"type", "Sequence"},
            {"normalizers",
             {{{"type", "Prepend"}, {"prepend", kU}},
              {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", kU}}}}}},
          {"pre_tokenizer", nullptr},
          {"model",
           {{"type", "BPE"},
            {"byte_fallback", true},
            {"fuse_unk", true},
            {"unk_token", "<unk>"},
            {"vocab", vocab},
            {"merges", merges}}}};
}

nlohmann::json MetaspaceConfig() {
  nlohmann::json merges;
  nlohmann::json vocab = CharVocab(&merges);
  return {{"added_tokens", {Added("[x]", 300, true, true, false, true)}},
          {"normalizer",
           {{"type", "Sequence"},
            {"normalizers",
             {{{"type", "NFKC"}},
              {{"type", "Lowercase"}},
              {{"type", "Strip"}, {"strip_left", true}, {"strip_right", true}}}}}},
          {"pre_tokenizer",
           {{"type", "Sequence"},
            {"pretokenizers",
             {{{"type", "Punctuation"}, {"behavior", "Contiguous"}},
              {{"type", "Metaspace"},
               {"replacement", kU},
               {"prepend_scheme", "first"},
               {"split", true}}}}}},
          {"model",
           {{"type", "BPE"},
            {"fuse_unk", false},
            {"unk_token", "<unk>"},
            {"vocab", vocab},
            {"merges", merges}}}};
}

nlohmann::json GemmaLikeConfig() {
  nlohmann::json merges;
  nlohmann::json vocab = CharVocab(&merges);
  return {
      {"added_tokens",
       {Added("\n", 5, false, false, false, false), Added("\n\n", 300, false, false, false, false),
        Added("<start_of_turn>", 301, false, false, false, false)}},
      {"normalizer", {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", kU}}},
      {"pre_tokenizer",
       {{"type", "Split"}, {"pattern", {{"String", " "}}}, {"behavior", "MergedWithPrevious"}}},
      {"model", {{"type", "BPE"}, {"byte_fallback", true}, {"vocab", vocab}, {"merges", merges}}}};
}

struct Config {
  std::unique_ptr<ltl::Tokenizer> tokenizer;
  uint32_t max_id;
};

std::vector<Config>& Configs() {
  static std::vector<Config> configs = [] {
    std::vector<Config> out;
    int n = 0;
    for (const nlohmann::json& j :
         {ByteLevelConfig(), SentencePieceConfig(), MetaspaceConfig(), GemmaLikeConfig()}) {
      nlohmann::json doc = j;
      doc["version"] = "1.0";
      const std::string path = "/tmp/ltl-tokenizer-fuzz-" + std::to_string(getpid()) + "-" +
                               std::to_string(n++) + ".json";
      FILE* f = std::fopen(path.c_str(), "wb");
      const std::string text = doc.dump();
      std::fwrite(text.data(), 1, text.size(), f);
      std::fclose(f);
      auto t = ltl::LoadTokenizer(path, "/unused");
      std::remove(path.c_str());
      if (!t.ok()) {
        std::fprintf(stderr, "config %d: %s\n", n - 1, t.status().message().c_str());
        std::abort();
      }
      uint32_t max_id = 0;
      for (const auto& [k, v] : doc["model"]["vocab"].items())
        max_id = std::max(max_id, v.get<uint32_t>());
      for (const auto& a : doc["added_tokens"]) max_id = std::max(max_id, a["id"].get<uint32_t>());
      out.push_back({std::move(t).value(), max_id});
    }
    return out;
  }();
  return configs;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  auto& configs = Configs();
  const Config& c = configs[data[0] % configs.size()];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  std::vector<uint32_t> ids, again;
  c.tokenizer->Encode(text, &ids);
  for (uint32_t id : ids) LTL_FUZZ_CHECK(id <= c.max_id);
  c.tokenizer->Encode(text, &again);
  LTL_FUZZ_CHECK(ids == again);
  if (c.tokenizer->NewlineCutIsExact()) {
    struct Borrowed final : ltl::Tokenizer {
      const ltl::Tokenizer* t;
      explicit Borrowed(const ltl::Tokenizer* x) : t(x) {}
      const std::string& name() const override { return t->name(); }
      void Encode(std::string_view s, std::vector<uint32_t>* out) const override {
        t->Encode(s, out);
      }
      bool NewlineCutIsExact() const override { return t->NewlineCutIsExact(); }
    };
    // Room for every id of this text (at most one per byte, plus a prepended one), not more: the
    // cache reserves its whole id arena up front, and a fixed 1M-token arena (4 MiB malloc'd,
    // poisoned and freed by ASan on every input) held the target near 800 executions/s.
    ltl::CachingTokenizer cut(std::make_unique<Borrowed>(c.tokenizer.get()), 2 * text.size() + 16,
                              1);
    std::vector<uint32_t> cached;
    cut.Encode(text, &cached);
    LTL_FUZZ_CHECK(cached == ids);
    // Again through the same cache: every segment is now a hit, served from the arena.
    cached.clear();
    cut.Encode(text, &cached);
    LTL_FUZZ_CHECK(cached == ids);
  }
  LTL_FUZZ_CHECK(c.tokenizer->EncodeStatus().ok());
  return 0;
}
