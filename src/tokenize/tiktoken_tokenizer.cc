// tiktoken encode_ordinary: regex pre-tokenization, a whole-piece rank lookup, byte-pair merging of
// the pieces that are not a single token; and the .tiktoken ranks file reader.
#include "tokenize/tiktoken_tokenizer.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <charconv>

#include "tokenize/bpe_merge.h"
#include "tokenize/file_bytes.h"
#include "tokenize/utf8.h"

namespace ltl {

const char kCl100kPattern[] =
    R"re((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re";
const char kO200kPattern[] =
    R"re([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)re";
const char kGpt2Pattern[] =
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)re";

const char kQwen2Pattern[] =
    R"re((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re";

bool IsNewlineCutSafePattern(std::string_view pattern) {
  return pattern == kCl100kPattern || pattern == kO200kPattern || pattern == kGpt2Pattern ||
         pattern == kQwen2Pattern;
}

bool TiktokenTokenizer::NewlineCutIsExact() const {
  return IsNewlineCutSafePattern(regex_->source());
}

Status TiktokenTokenizer::EncodeStatus() const {
  const SplitRegex::LimitHits hits = regex_->limit_hits();
  if (hits.count == 0) return Status::Ok();
  return Status::Limit(
      fmt::format("{}: the split pattern exceeded PCRE2's {} on {} piece(s) (the longest {} bytes)",
                  name_, hits.what, hits.count, hits.longest_subject));
}

void TiktokenTokenizer::EncodePiece(std::string_view piece, std::vector<uint32_t>* out) const {
  const uint32_t whole = ranks_.Find(piece);
  if (whole != kNoRank) {
    out->push_back(whole);
    return;
  }
  thread_local MergeScratch scratch;
  auto& sym = scratch.symbols;
  sym.resize(piece.size());
  for (uint32_t i = 0; i < piece.size(); ++i) {
    sym[i] = {i, i + 1, ranks_.ByteRank(static_cast<uint8_t>(piece[i])),
              static_cast<int32_t>(i) - 1, i + 1 < piece.size() ? static_cast<int32_t>(i + 1) : -1};
  }
  MergeByRank(
      scratch,
      [&](const MergeSymbol& l, const MergeSymbol& r, uint32_t* id) {
        const uint32_t rank = ranks_.Find(piece.substr(l.begin, r.end - l.begin));
        *id = rank;
        return rank;
      },
      out);
}

void TiktokenTokenizer::Encode(std::string_view text, std::vector<uint32_t>* out) const {
  std::string repaired;
  text = ValidUtf8View(text, &repaired);
  SplitRegex::Matcher matcher(*regex_);
  size_t pos = 0, begin = 0, end = 0;
  while (matcher.Find(text, pos, &begin, &end)) {
    if (end == begin) {  // an empty match yields no token; step over one character
      pos = end + 1;
      while (pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) ++pos;
      continue;
    }
    EncodePiece(text.substr(begin, end - begin), out);
    pos = end;
  }
}

Result<RankTable> ReadTiktokenRanks(const std::string& path) {
  auto bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  return ParseTiktokenRanks(*bytes, path);
}

Result<RankTable> ParseTiktokenRanks(std::string_view data, const std::string& path) {
  RankTable table;
  table.Reserve(data.size() / 12 + 16, data.size() * 3 / 4);
  std::string decoded;
  size_t pos = 0;
  uint64_t line_no = 0;
  while (pos < data.size()) {
    size_t nl = data.find('\n', pos);
    if (nl == std::string_view::npos) nl = data.size();
    std::string_view line = data.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const size_t space = line.find(' ');
    auto bad = [&](const char* what) {
      return Status::Corrupt(fmt::format("{}:{}: {}", path, line_no, what));
    };
    if (space == std::string_view::npos) return bad("expected '<base64 token> <rank>'");
    std::string_view b64 = line.substr(0, space);
    std::string_view rank_text = line.substr(space + 1);
    uint32_t rank = 0;
    auto [end, ec] = std::from_chars(rank_text.data(), rank_text.data() + rank_text.size(), rank);
    if (ec != std::errc() || end != rank_text.data() + rank_text.size() || rank == kNoRank) {
      return bad("rank is not an unsigned 32-bit number");
    }
    if (b64.empty() || b64.size() % 4 != 0) return bad("token is not base64");
    decoded.resize(b64.size() / 4 * 3);
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(decoded.data()),
                                  reinterpret_cast<const unsigned char*>(b64.data()),
                                  static_cast<int>(b64.size()));
    if (n < 0) return bad("token is not base64");
    size_t len = static_cast<size_t>(n);
    if (b64.back() == '=') --len;
    if (b64[b64.size() - 2] == '=') --len;
    if (len == 0) return bad("empty token");
    if (!table.Insert(std::string_view(decoded.data(), len), rank)) return bad("duplicate token");
  }
  if (table.size() == 0) return Status::Corrupt(fmt::format("{}: no ranks", path));
  if (!table.HasAllBytes()) {
    return Status::Corrupt(
        fmt::format("{}: not a byte-level vocabulary (some single bytes have no rank)", path));
  }
  return table;
}

Result<std::unique_ptr<Tokenizer>> LoadTiktokenFile(const std::string& path, std::string name,
                                                    std::string_view pattern,
                                                    std::string_view expected_sha256) {
  auto bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  if (!expected_sha256.empty() && Sha256Hex(*bytes) != expected_sha256) {
    return Status::Corrupt(fmt::format(
        "{}: SHA-256 differs from the published {} vocabulary; re-run scripts/fetch-vocab.sh", path,
        name));
  }
  auto ranks = ParseTiktokenRanks(*bytes, path);
  if (!ranks.ok()) return ranks.status();
  auto regex = SplitRegex::Compile(pattern);
  if (!regex.ok()) return regex.status();
  return std::unique_ptr<Tokenizer>(
      new TiktokenTokenizer(std::move(name), std::move(ranks).value(), std::move(regex).value()));
}

}  // namespace ltl
