// CachingTokenizer: a Tokenizer wrapper that remembers the ids of text segments by content hash.
// A conversation resends its whole history every turn, so most prompt text has been tokenized
// before; the wrapper cuts each text into segments at newline boundaries where the wrapped
// tokenizer guarantees that cutting does not change the ids (Tokenizer::NewlineCutIsExact), so
// the result equals whole-text encoding exactly. Tokenizers without that guarantee pass through.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <atomic>
#include <memory>
#include <mutex>

#include "tokenize/tokenizer.h"

namespace ltl {

class CachingTokenizer final : public Tokenizer {
 public:
  // `max_cached_tokens` bounds the memory (4 bytes per token plus the index); when full, the
  // cache starts over.
  explicit CachingTokenizer(std::unique_ptr<Tokenizer> base, size_t max_cached_tokens = 64 << 20,
                            size_t min_segment_bytes = 256);

  const std::string& name() const override { return base_->name(); }
  void Encode(std::string_view text, std::vector<uint32_t>* out) const override;
  bool NewlineCutIsExact() const override { return base_->NewlineCutIsExact(); }
  Status EncodeStatus() const override { return base_->EncodeStatus(); }

  struct Stats {
    uint64_t segments = 0;
    uint64_t hits = 0;
    uint64_t hit_bytes = 0;
    uint64_t miss_bytes = 0;
  };
  Stats stats() const;

 private:
  struct Key {
    uint64_t a;
    uint64_t b;
    bool operator==(const Key& o) const { return a == o.a && b == o.b; }
    template <typename H>
    friend H AbslHashValue(H h, const Key& k) {
      return H::combine(std::move(h), k.a);
    }
  };
  struct Entry {
    uint64_t offset;  // into ids_
    uint32_t count;
  };
  void EncodeSegment(std::string_view segment, std::vector<uint32_t>* out) const;

  std::unique_ptr<Tokenizer> base_;
  size_t max_tokens_;
  size_t min_segment_;
  mutable std::mutex mu_;
  mutable absl::flat_hash_map<Key, Entry> index_;
  mutable std::vector<uint32_t> ids_;
  mutable Stats stats_;
};

// Offsets at which CachingTokenizer may cut `text`: after a '\n' followed by an ASCII byte that is
// not whitespace and not '/', at least `min_bytes` after the previous cut. Exposed for tests.
std::vector<size_t> NewlineCuts(std::string_view text, size_t min_bytes);

}  // namespace ltl
