// The "anthropic" provider cache: Claude's prompt caching with cache_control breakpoints, as
// Anthropic's documentation describes it.
// Source: https://platform.claude.com/docs/en/build-with-claude/prompt-caching (read 2026-12-05):
//   - the cached prefix runs tools -> system -> messages up to and including the block that
//     carries cache_control; at most 4 breakpoints per request;
//   - on a request the system checks for hits at the breakpoint and at the content-block
//     boundaries up to 20 blocks before it, and uses the longest;
//   - a minimum cacheable length per model (table below); shorter prefixes are not cached;
//   - TTL 5 minutes, or 1 hour with "ttl": "1h", refreshed each time the entry is read;
//   - automatic caching: a top-level cache_control puts the breakpoint on the last cacheable block;
//   - usage: cache_read_input_tokens, cache_creation_input_tokens, and input_tokens after the last
//     breakpoint.
// Where the page leaves room (docs/SEMANTICS.md, "Provider caches"): blocks are each tool, each
// system block (a string system is one block) and each message content block; a breakpoint whose
// prefix is below the model's minimum is ignored, and with none left the request reads and writes
// 0; entries exist only at qualifying breakpoints; the read is the longest live entry among each
// qualifying breakpoint and the 20 boundaries before it; write = the prefix at the last qualifying
// breakpoint - the read, split 5 m / 1 h by the TTL of the breakpoint that ends each written span;
// after a request every qualifying breakpoint it carries is refreshed with its own TTL, and so is
// the entry it read; more than 4 breakpoints (which the API rejects) keep the first four.
#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <string>
#include <vector>

#include "simulate/provider_cache.h"
#include "simulate/provider_partitions.h"

namespace ltl {

// The minimum cacheable prompt length of a Claude model string ("claude-sonnet-4-5-20250929",
// "claude-3-5-haiku-20241022", "anthropic.claude-3-7-sonnet-20250219-v1:0", "claude-opus-4-1@...").
// Table of the page above (read 2026-12-05); where a gateway's copy disagrees (one lists Sonnet 4.6
// at 2,048) the Anthropic page is followed. Models not in the table: 1,024 (the most common value).
int64_t ClaudeMinimumCacheable(std::string_view model) {
  std::vector<std::string> tokens;
  std::string cur;
  for (char c : model) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!cur.empty()) {
      tokens.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) tokens.push_back(cur);
  auto is_version = [](const std::string& t) {
    return !t.empty() && t.size() <= 2 && std::all_of(t.begin(), t.end(), ::isdigit);
  };
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& f = tokens[i];
    if (f != "opus" && f != "sonnet" && f != "haiku" && f != "fable" && f != "mythos") continue;
    int major = -1, minor = 0;
    if (i + 1 < tokens.size() && is_version(tokens[i + 1])) {  // claude-sonnet-4-5
      major = std::stoi(tokens[i + 1]);
      if (i + 2 < tokens.size() && is_version(tokens[i + 2])) minor = std::stoi(tokens[i + 2]);
    } else if (i >= 1 && is_version(tokens[i - 1])) {  // claude-3-5-haiku
      if (i >= 2 && is_version(tokens[i - 2])) {
        major = std::stoi(tokens[i - 2]);
        minor = std::stoi(tokens[i - 1]);
      } else {
        major = std::stoi(tokens[i - 1]);
      }
    }
    const int v = major * 10 + minor;
    if (f == "fable" || f == "mythos") return major >= 5 ? 512 : 1024;
    if (f == "opus") {
      if (major >= 5) return 512;
      if (v == 45 || v == 46) return 4096;
      if (v == 47) return 2048;
      return 1024;  // Opus 4.8, 4.1, 4, 3
    }
    if (f == "haiku") return v >= 45 ? 4096 : 2048;  // Haiku 4.5; Haiku 3.5, 3
    return 1024;                                     // Sonnet 5, 4.6, 4.5, 4, 3.7, 3.5
  }
  return 1024;
}

namespace {

constexpr uint32_t kMaxBreakpoints = 4;
constexpr uint32_t kLookbackBlocks = 20;

struct Entry {
  double expiry = 0;
  double ttl = 0;
};

class AnthropicReplay final : public ProviderCacheReplay {
 public:
  explicit AnthropicReplay(const ProviderRules& rules) : rules_(rules) {}

  ProviderPrediction Next(const ProviderRequest& r) override {
    ProviderPrediction out;
    const uint32_t partition = rules_.partition ? partitions_.Of(r.model, 0) : 0;
    const int64_t minimum = rules_.minimum ? ClaudeMinimumCacheable(r.model) : 0;
    const uint32_t n = r.num_boundaries;
    // The breakpoints this request carries, in prefix order, and which of them qualify.
    breakpoints_.clear();
    uint32_t marked = 0;
    for (uint32_t j = 0; j < n; ++j) {
      Breakpoint b = r.boundaries[j].breakpoint;
      if (j + 1 == n && r.automatic != Breakpoint::kNone && b == Breakpoint::kNone) b = r.automatic;
      if (!rules_.breakpoints) b = b == Breakpoint::kNone ? Breakpoint::k5m : b;
      if (b == Breakpoint::kNone) continue;
      if (rules_.breakpoints && rules_.cap && ++marked > kMaxBreakpoints) break;
      if (r.boundaries[j].tokens < minimum || r.boundaries[j].tokens <= 0) continue;
      breakpoints_.push_back({j, b});
    }
    if (breakpoints_.empty()) return out;
    // The read: the longest live entry at a qualifying breakpoint or the boundaries before it.
    int64_t read = 0;
    uint64_t read_key = 0;
    uint32_t scanned_to = 0;  // boundaries [0, scanned_to) already looked at
    for (const Mark& m : breakpoints_) {
      uint32_t from = rules_.lookback && m.index >= kLookbackBlocks ? m.index - kLookbackBlocks : 0;
      if (!rules_.lookback) from = std::max(from, scanned_to);
      for (uint32_t j = from; j <= m.index; ++j) {
        if (r.boundaries[j].tokens <= read) continue;
        const uint64_t key = Key(partition, r.boundaries[j].prefix);
        auto it = entries_.find(key);
        if (it == entries_.end() || (rules_.ttl && r.time_s > it->second.expiry)) continue;
        read = r.boundaries[j].tokens;
        read_key = key;
      }
      scanned_to = m.index + 1;
    }
    out.read = read;
    // The write: from the end of the read to the last qualifying breakpoint, each span with the
    // TTL of the breakpoint that ends it.
    int64_t covered = read;
    for (const Mark& m : breakpoints_) {
      const int64_t end = r.boundaries[m.index].tokens;
      if (end <= covered) continue;
      (m.ttl == Breakpoint::k1h ? out.write_1h : out.write_5m) += end - covered;
      covered = end;
    }
    // Refresh: the entry read, then every qualifying breakpoint with its own TTL.
    if (read > 0) {
      Entry& e = entries_[read_key];
      Refresh(&e, e.ttl, r.time_s);
    }
    for (const Mark& m : breakpoints_) {
      Entry& e = entries_[Key(partition, r.boundaries[m.index].prefix)];
      Refresh(&e, TtlOf(m.ttl), r.time_s);
    }
    return out;
  }

 private:
  struct Mark {
    uint32_t index;
    Breakpoint ttl;
  };

  static uint64_t Key(uint32_t partition, uint64_t prefix) {
    // Folding the partition into the keyed prefix digest: partitions are few, digests are keyed
    // 64-bit hashes, so a collision is as unlikely as one between block ids.
    return prefix ^ (0x9e3779b97f4a7c15ull * (static_cast<uint64_t>(partition) + 1));
  }
  double TtlOf(Breakpoint b) const {
    if (b == Breakpoint::k1h) return kHourTtlSeconds;
    return rules_.short_ttl_s > 0 ? rules_.short_ttl_s : kShortTtlSeconds;
  }
  void Refresh(Entry* e, double ttl, double now) const {
    e->ttl = std::max(e->ttl, ttl);
    const double until = rules_.ttl ? now + ttl : std::numeric_limits<double>::infinity();
    e->expiry = std::max(e->expiry, until);
  }

  ProviderRules rules_;
  ProviderPartitions partitions_;
  absl::flat_hash_map<uint64_t, Entry> entries_;
  std::vector<Mark> breakpoints_;
};

class AnthropicPromptCache final : public ProviderCacheModel {
 public:
  std::string_view name() const override { return "anthropic"; }
  std::string_view summary() const override {
    return "cache_control breakpoints (at most 4), 20-block look-back, minimum length per model, "
           "5 min or 1 h TTL refreshed on read";
  }
  std::string_view source() const override {
    return "https://platform.claude.com/docs/en/build-with-claude/prompt-caching (read "
           "2026-12-05)";
  }
  bool uses_boundaries() const override { return true; }
  int64_t MinimumTokens(std::string_view model) const override {
    return ClaudeMinimumCacheable(model);
  }
  std::vector<std::string_view> RuleOrder() const override {
    return {"partition", "minimum", "breakpoints", "cap", "lookback", "ttl"};
  }
  std::unique_ptr<ProviderCacheReplay> Start(const ProviderRules& rules) const override {
    return std::make_unique<AnthropicReplay>(rules);
  }
};

}  // namespace

const ProviderCacheModel& AnthropicProviderCache() {
  static const AnthropicPromptCache model;
  return model;
}

}  // namespace ltl
