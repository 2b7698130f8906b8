// CachingTokenizer: segmenting at exact newline cuts, a 128-bit content key per segment, one
// shared id arena guarded by a mutex (tokenization of misses happens outside the lock).
#include "tokenize/caching_tokenizer.h"

#include <algorithm>
#include <cstring>
#include <functional>

namespace ltl {
namespace {

bool IsCutFollower(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u > 0x20 && u < 0x7F && c != '/';
}

}  // namespace

std::vector<size_t> NewlineCuts(std::string_view text, size_t min_bytes) {
  std::vector<size_t> cuts;
  if (min_bytes == 0) min_bytes = 1;
  const char* p = text.data();
  size_t search = min_bytes - 1;  // a '\n' at index i gives the cut i + 1
  while (search < text.size()) {
    const void* nl = std::memchr(p + search, '\n', text.size() - search);
    if (!nl) break;
    const size_t cut = static_cast<size_t>(static_cast<const char*>(nl) - p) + 1;
    if (cut < text.size() && IsCutFollower(text[cut])) {
      cuts.push_back(cut);
      search = cut + min_bytes - 1;
    } else {
      search = cut;
    }
  }
  return cuts;
}

CachingTokenizer::CachingTokenizer(std::unique_ptr<Tokenizer> base, size_t max_cached_tokens,
                                   size_t min_segment_bytes)
    : base_(std::move(base)),
      max_tokens_(max_cached_tokens),
      min_segment_(min_segment_bytes == 0 ? 1 : min_segment_bytes) {
  // The whole arena's address space up front (pages are only touched as ids arrive): growing it by
  // doubling copied every id cached so far and faulted the new pages in under the lock, ~4% of a
  // worker's time on the agentic bench (perf: page faults and memmove in EncodeSegment).
  ids_.reserve(std::min(max_tokens_, size_t{1} << 28));
}

CachingTokenizer::Stats CachingTokenizer::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void CachingTokenizer::EncodeSegment(std::string_view segment, std::vector<uint32_t>* out) const {
  // Two independent 64-bit hashes (absl's, seeded per process, and libstdc++'s) plus the length.
  const Key key{absl::HashOf(segment) ^ segment.size(),
                std::hash<std::string_view>{}(segment) + segment.size() * 0x9E3779B97F4A7C15ull};
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.segments;
    auto it = index_.find(key);
    if (it != index_.end()) {
      ++stats_.hits;
      stats_.hit_bytes += segment.size();
      out->insert(out->end(), ids_.begin() + static_cast<ptrdiff_t>(it->second.offset),
                  ids_.begin() + static_cast<ptrdiff_t>(it->second.offset + it->second.count));
      return;
    }
  }
  const size_t first = out->size();
  base_->Encode(segment, out);
  const size_t count = out->size() - first;
  std::lock_guard<std::mutex> lock(mu_);
  stats_.miss_bytes += segment.size();
  if (ids_.size() + count > max_tokens_) {  // full: start over rather than grow without bound
    index_.clear();
    ids_.clear();
  }
  if (count > max_tokens_) return;
  auto [it, inserted] = index_.try_emplace(key, Entry{ids_.size(), static_cast<uint32_t>(count)});
  if (inserted) ids_.insert(ids_.end(), out->begin() + static_cast<ptrdiff_t>(first), out->end());
}

void CachingTokenizer::Encode(std::string_view text, std::vector<uint32_t>* out) const {
  if (!base_->NewlineCutIsExact()) {
    base_->Encode(text, out);
    return;
  }
  size_t begin = 0;
  for (size_t cut : NewlineCuts(text, min_segment_)) {
    EncodeSegment(text.substr(begin, cut - begin), out);
    begin = cut;
  }
  EncodeSegment(text.substr(begin), out);
}

}  // namespace ltl
