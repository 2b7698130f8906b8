// ProviderFactsBuilder (see provider_facts.h).
#include "ingest/provider_facts.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/segment_map.h"
#include "ingest/prompt_facts.h"

namespace ltl {
namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

// The breakpoint a content block (or a message, or the body) carries: 0 none, 1 "5m", 2 "1h".
// Anthropic's documented values for "ttl" are "5m" (the default) and "1h".
uint8_t BreakpointOf(object o) {
  element cc;
  if (o.at_key("cache_control").get(cc) || cc.is_null()) return 0;
  object cco;
  std::string_view ttl;
  if (!cc.get_object().get(cco) && !cco.at_key("ttl").get_string().get(ttl) && ttl == "1h")
    return 2;
  return 1;
}
uint8_t BreakpointOf(element e) {
  object o;
  if (e.get_object().get(o)) return 0;
  return BreakpointOf(o);
}

// Which part of the body a block belongs to, to find its tokens among the prompt's segments.
enum class Group : uint8_t { kTool, kSystem, kMessage };

struct BodyBlock {
  element value;
  Group group;
  uint32_t index;      // tool or message position (0 for the system)
  uint8_t breakpoint;  // its own cache_control
  uint8_t role = 0;    // first block of a message: its role's first byte, folded into the digest
  double weight = 1;   // canonical JSON bytes, to split a group's tokens among its blocks
};

void AddContent(element content, Group group, uint32_t index, uint8_t message_breakpoint,
                uint8_t role, std::vector<BodyBlock>* out) {
  array list;
  const size_t first = out->size();
  if (!content.get_array().get(list)) {
    for (element b : list) out->push_back({b, group, index, BreakpointOf(b)});
  } else {
    out->push_back({content, group, index, 0});
  }
  if (out->size() == first) return;  // an empty content list: no block
  // A marker on the message itself (some clients put it there) marks its last block.
  if (message_breakpoint != 0 && out->back().breakpoint == 0)
    out->back().breakpoint = message_breakpoint;
  (*out)[first].role = role;
}

}  // namespace

ProviderFactsBuilder::ProviderFactsBuilder(SipKey key)
    : key_{key.k0 ^ 0x70726f7669646572ull, key.k1 ^ 0x63616368656b6579ull} {}

void ProviderFactsBuilder::Build(object body, const PromptFacts& facts, int64_t cut_tokens,
                                 int64_t prompt_tokens, ProviderFacts* out) {
  out->cache_key = 0;
  out->retention_24h = false;
  out->automatic = 0;
  out->blocks.clear();

  std::string_view s;
  if (!body.at_key("prompt_cache_key").get_string().get(s) && !s.empty())
    out->cache_key = SipHash24(key_, s) | 1;
  out->retention_24h = !body.at_key("prompt_cache_retention").get_string().get(s) && s == "24h";
  out->automatic = BreakpointOf(body);
  // Without a marker anywhere, a breakpoint cache stores nothing: no blocks needed.
  if (facts.cache_control == -1 && out->automatic == 0) return;

  // The body's blocks in Anthropic's prefix order: tools, system, messages.
  std::vector<BodyBlock> blocks;
  array list;
  if (!body.at_key("tools").get_array().get(list)) {
    uint32_t i = 0;
    for (element t : list) blocks.push_back({t, Group::kTool, i++, BreakpointOf(t)});
  }
  element system;
  if (!body.at_key("system").get(system) && !system.is_null())
    AddContent(system, Group::kSystem, 0, 0, 's', &blocks);
  if (!body.at_key("messages").get_array().get(list)) {
    uint32_t i = 0;
    for (element m : list) {
      object mo;
      element content;
      std::string_view role;
      if (!m.get_object().get(mo) && !mo.at_key("content").get(content) && !content.is_null()) {
        if (mo.at_key("role").get_string().get(role)) role = {};
        AddContent(content, Group::kMessage, i, BreakpointOf(m),
                   role.empty() ? '?' : static_cast<uint8_t>(role.front()), &blocks);
      }
      ++i;
    }
  }
  if (blocks.empty()) return;

  // Each group's first token among the segments (tools by tool position, the top-level system,
  // messages by position): the segment map of the renderer that cut the prompt.
  auto key_of = [](Group g, uint32_t index) { return (static_cast<uint64_t>(g) << 32) | index; };
  std::vector<std::pair<uint64_t, uint32_t>> starts;  // (group key, first token), rendered order
  for (const SegmentFact& f : facts.segments) {
    uint64_t k;
    const auto kind = static_cast<SegmentKind>(f.kind);
    if (kind == SegmentKind::kFraming) continue;
    if (kind == SegmentKind::kTools)
      k = key_of(Group::kTool, f.item);
    else if (f.item == 0xffff)
      k = kind == SegmentKind::kSystem ? key_of(Group::kSystem, 0) : UINT64_MAX;
    else
      k = key_of(Group::kMessage, f.item);
    if (k == UINT64_MAX) continue;
    if (starts.empty() || starts.back().first != k) starts.emplace_back(k, f.token_start);
  }
  // Digests and weights; each group's share of the prompt is the span from its first token to the
  // next group's (its framing included). A body whose groups the segments do not all show in
  // prefix order (a template that reorders or drops parts) falls back to splitting the whole
  // prompt by the blocks' canonical JSON bytes.
  uint64_t h = SipHash24(key_, "provider blocks");
  double total_weight = 0;
  for (BodyBlock& b : blocks) {
    scratch_.assign(reinterpret_cast<const char*>(&h), sizeof h);
    scratch_.push_back(static_cast<char>('0' + static_cast<int>(b.group)));
    scratch_.push_back(static_cast<char>(b.role));
    const size_t before = scratch_.size();
    AppendCanonical(b.value, &scratch_);
    b.weight = static_cast<double>(std::max<size_t>(1, scratch_.size() - before));
    total_weight += b.weight;
    h = SipHash24(key_, scratch_);
    out->blocks.push_back({h, 0, b.breakpoint});
  }
  std::vector<double> ends(blocks.size(), 0);
  bool by_segments = !starts.empty();
  size_t at = 0;  // position in `starts`
  for (size_t i = 0; i < blocks.size() && by_segments;) {
    const uint64_t k = key_of(blocks[i].group, blocks[i].index);
    while (at < starts.size() && starts[at].first != k) ++at;
    if (at == starts.size()) {
      by_segments = false;
      break;
    }
    const double begin = starts[at].second;
    const double end =
        at + 1 < starts.size() ? starts[at + 1].second : static_cast<double>(cut_tokens);
    size_t j = i;
    double w = 0;
    while (j < blocks.size() && key_of(blocks[j].group, blocks[j].index) == k)
      w += blocks[j++].weight;
    double cum = 0;
    for (size_t q = i; q < j; ++q) {
      cum += blocks[q].weight;
      ends[q] = begin + (end - begin) * cum / w;
    }
    i = j;
  }
  if (!by_segments) {
    double cum = 0;
    for (size_t q = 0; q < blocks.size(); ++q) {
      cum += blocks[q].weight;
      ends[q] = static_cast<double>(cut_tokens) * cum / total_weight;
    }
  }
  const double scale =
      cut_tokens > 0 ? static_cast<double>(prompt_tokens) / static_cast<double>(cut_tokens) : 0.0;
  uint32_t previous = 0;
  for (size_t q = 0; q < blocks.size(); ++q) {
    double t = std::llround(ends[q] * scale);
    t = std::clamp(t, static_cast<double>(previous), static_cast<double>(prompt_tokens));
    if (q + 1 == blocks.size()) t = static_cast<double>(prompt_tokens);  // the last ends the prompt
    previous = static_cast<uint32_t>(std::min<double>(t, UINT32_MAX));
    out->blocks[q].tokens = previous;
  }
}

}  // namespace ltl
