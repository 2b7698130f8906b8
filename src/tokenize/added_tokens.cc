// Added-token search in linear time (issue 35, item 11: the former trie walk from every position
// took 12 s for a 32 KB token on 32 KB of text). An Aho-Corasick automaton over the reversed
// contents, run from the text's end: after reading text[s] its state is the longest reversed
// token prefix that ends the reversed text read so far, so the tokens that START at s are that
// state and its failure chain; the longest of them is precomputed per state. One right-to-left
// pass lists the longest token at every start, then the left-to-right greedy pass of find_matches
// takes them in order. Hand-written: Debian packages no C or C++ Aho-Corasick library with
// leftmost-longest results (python3-ahocorasick is Python, librust-aho-corasick Rust; Hyperscan /
// Vectorscan report match ends, not leftmost-longest matches, and would be a new dependency for
// about a hundred lines).
#include "tokenize/added_tokens.h"

#include <algorithm>
#include <deque>

#include "tokenize/unicode_props.h"

namespace ltl {

void AddedTokenMatcher::Add(AddedToken token) {
  if (token.content.empty()) return;
  finished_ = false;
  uint32_t node = 0;
  for (auto c = token.content.rbegin(); c != token.content.rend(); ++c) {
    const uint64_t key = (static_cast<uint64_t>(node) << 8) | static_cast<uint8_t>(*c);
    auto it = edges_.find(key);
    if (it == edges_.end()) {
      const auto child = static_cast<uint32_t>(terminal_.size());
      terminal_.push_back(-1);
      depth_.push_back(depth_[node] + 1);
      edges_.emplace(key, child);
      if (node == 0) root_[static_cast<uint8_t>(*c)] = child;
      node = child;
    } else {
      node = it->second;
    }
  }
  if (terminal_[node] >= 0) return;  // the same content twice: the first one is kept
  terminal_[node] = static_cast<int32_t>(tokens_.size());
  tokens_.push_back(std::move(token));
}

uint32_t AddedTokenMatcher::Child(uint32_t node, uint8_t byte) const {
  if (node == 0) return root_[byte] ? root_[byte] : kNone;
  auto it = edges_.find((static_cast<uint64_t>(node) << 8) | byte);
  return it == edges_.end() ? kNone : it->second;
}

void AddedTokenMatcher::Finish() {
  const size_t nodes = terminal_.size();
  std::vector<std::vector<std::pair<uint8_t, uint32_t>>> children(nodes);
  for (const auto& [key, child] : edges_)
    children[key >> 8].emplace_back(static_cast<uint8_t>(key & 0xFF), child);
  fail_.assign(nodes, 0);
  longest_.assign(nodes, kNone);
  std::deque<uint32_t> queue{0};  // breadth first: a node's failure target is shallower
  while (!queue.empty()) {
    const uint32_t u = queue.front();
    queue.pop_front();
    for (const auto& [byte, c] : children[u]) {
      uint32_t f = 0;
      if (u != 0) {
        for (uint32_t g = fail_[u];; g = fail_[g]) {
          const uint32_t next = Child(g, byte);
          if (next != kNone) {
            f = next;
            break;
          }
          if (g == 0) break;
        }
      }
      fail_[c] = f;
      longest_[c] = terminal_[c] >= 0 ? c : longest_[f];
      queue.push_back(c);
    }
  }
  finished_ = true;
}

void AddedTokenMatcher::SplitText(std::string_view text, std::vector<Split>* out) const {
  if (!finished_) {
    AddedTokenMatcher copy = *this;
    copy.Finish();
    copy.SplitText(text, out);
    return;
  }
  out->clear();
  // Right to left: the longest token starting at each position (descending positions).
  std::vector<Match> starts;
  uint32_t state = 0;
  for (size_t s = text.size(); s-- > 0;) {
    const auto byte = static_cast<uint8_t>(text[s]);
    for (;;) {
      const uint32_t next = Child(state, byte);
      if (next != kNone) {
        state = next;
        break;
      }
      if (state == 0) break;
      state = fail_[state];
    }
    if (state != 0 && longest_[state] != kNone) starts.push_back({s, longest_[state]});
  }
  size_t start_offset = 0;
  size_t i = 0;  // where the automaton resumes: after the last match, kept or not
  for (auto m = starts.rbegin(); m != starts.rend(); ++m) {
    if (m->begin < i) continue;
    const AddedToken& t = tokens_[static_cast<size_t>(terminal_[m->node])];
    size_t start = m->begin, stop = m->begin + depth_[m->node];
    i = stop;
    if (t.single_word) {
      size_t n = 0;
      const bool word_before = start > 0 && IsRegexWordChar(DecodeUtf8Before(text, start, &n));
      const bool word_after = stop < text.size() && IsRegexWordChar(DecodeUtf8At(text, stop, &n));
      if (word_before || word_after) continue;
    }
    if (t.lstrip) {
      size_t b = start, n = 0;
      while (b > 0 && IsUnicodeWhiteSpace(DecodeUtf8Before(text, b, &n))) b -= n;
      start = std::max(b, start_offset);
    }
    if (t.rstrip) {
      size_t n = 0;
      while (stop < text.size() && IsUnicodeWhiteSpace(DecodeUtf8At(text, stop, &n))) stop += n;
    }
    if (start_offset < start) out->push_back({start_offset, start, kNoRank});
    out->push_back({start, stop, t.id});
    start_offset = stop;
  }
  if (start_offset < text.size()) out->push_back({start_offset, text.size(), kNoRank});
}

bool AddedTokenMatcher::NewlineCutIsExact() const {
  auto follower = [](char c) { return c > 0x20 && c < 0x7F && c != '/'; };
  return std::none_of(tokens_.begin(), tokens_.end(), [&](const AddedToken& t) {
    const std::string& s = t.content;
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      if (s[i] == '\n' && follower(s[i + 1])) return true;  // could match across the cut
    }
    // lstrip would take the '\n' before a token starting right after the cut; single_word would
    // see the byte after the cut next to a token ending with the '\n'.
    return (t.lstrip && follower(s.front())) || (t.single_word && s.back() == '\n');
  });
}

}  // namespace ltl
