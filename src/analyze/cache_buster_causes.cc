// Cause rules, would-be prefixes and costs of cache busters (see cache_buster_causes.h).
#include "analyze/cache_buster_causes.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_set>

#include "common/facts_store.h"
#include "common/segment_map.h"
#include "common/units.h"

namespace ltl {
namespace {

constexpr uint8_t K(SegmentKind k) {
  return static_cast<uint8_t>(k);
}

const SegmentFact* At(const PromptFacts& f, size_t i) {
  return i < f.segments.size() ? &f.segments[i] : nullptr;
}

bool KindAt(const PromptFacts& f, size_t i, SegmentKind k) {
  const SegmentFact* s = At(f, i);
  return s && s->kind == K(k);
}

// The segment at the break, or the next one when it is framing (the template's text around a
// part differs with the part: "<think>\n" goes with the reasoning after it).
bool NearKind(const PromptFacts& f, size_t i, SegmentKind k) {
  return KindAt(f, i, k) || (KindAt(f, i, SegmentKind::kFraming) && KindAt(f, i + 1, k));
}

// Whole-block prefix of a request that ended at its last (usually partial) block.
uint64_t FullPrefix(const TraceRequest& r) {
  return r.num_blocks > 0 ? r.num_blocks - 1 : 0;
}

std::vector<uint32_t> Sorted(const std::vector<ToolFact>& t, bool names) {
  std::vector<uint32_t> v;
  v.reserve(t.size());
  for (const ToolFact& f : t) v.push_back(names ? f.name_digest : f.definition_digest);
  std::sort(v.begin(), v.end());
  return v;
}

BusterCause ToolCause(const PromptFacts& c, const PromptFacts& r) {
  const auto nc = Sorted(c.tools, true), nr = Sorted(r.tools, true);
  if (nc != nr) {
    const bool added = !std::includes(nr.begin(), nr.end(), nc.begin(), nc.end());
    const bool removed = !std::includes(nc.begin(), nc.end(), nr.begin(), nr.end());
    if (added && !removed) return BusterCause::kToolsAdded;
    if (removed && !added) return BusterCause::kToolsRemoved;
    return nc.size() >= nr.size() ? BusterCause::kToolsAdded : BusterCause::kToolsRemoved;
  }
  if (Sorted(c.tools, false) == Sorted(r.tools, false)) return BusterCause::kToolsReordered;
  return BusterCause::kToolEdited;
}

bool SameTools(const PromptFacts& c, const PromptFacts& r) {
  if (c.tools.size() != r.tools.size()) return false;
  for (size_t i = 0; i < c.tools.size(); ++i)
    if (c.tools[i].definition_digest != r.tools[i].definition_digest) return false;
  return true;
}

// Cross-conversation breaks that a fix recovers (volatile text, a reordered tool array): the
// request would have shared its reference's segments up to their first natural difference.
// Walks both lists from `d`, treating masked-equal segments and a tools run holding the same
// definitions as equal; returns the request's token where they would still have diverged.
uint64_t WouldShareTokens(const PromptFacts& c, const PromptFacts& r, size_t d, int64_t c_tokens,
                          int64_t r_tokens) {
  size_t i = d, j = d;
  while (i < c.segments.size() && j < r.segments.size()) {
    const SegmentFact& x = c.segments[i];
    const SegmentFact& y = r.segments[j];
    if (x.kind == K(SegmentKind::kTools) && y.kind == K(SegmentKind::kTools)) {
      size_t i2 = i, j2 = j;
      std::vector<uint32_t> a, b;
      while (i2 < c.segments.size() && c.segments[i2].kind == K(SegmentKind::kTools))
        a.push_back(c.segments[i2++].digest);
      while (j2 < r.segments.size() && r.segments[j2].kind == K(SegmentKind::kTools))
        b.push_back(r.segments[j2++].digest);
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      if (a != b) break;
      i = i2;
      j = j2;
      continue;
    }
    if (x.kind != y.kind || x.role != y.role || x.masked_digest != y.masked_digest) {
      // The reference's last segment (its closing framing) is shared up to its own length.
      if (j + 1 == r.segments.size() && x.kind == y.kind && x.kind == K(SegmentKind::kFraming))
        return x.token_start +
               static_cast<uint64_t>(std::max<int64_t>(r_tokens - y.token_start, 0));
      return x.token_start;
    }
    ++i;
    ++j;
  }
  if (j >= r.segments.size()) {
    // The reference ended: the request would have shared all of it.
    const uint64_t end = i < c.segments.size() ? c.segments[i].token_start : c_tokens;
    return end;
  }
  return i < c.segments.size() ? c.segments[i].token_start : static_cast<uint64_t>(c_tokens);
}

std::string SegmentLabel(const SegmentFact& s) {
  const auto kind = static_cast<SegmentKind>(s.kind);
  const auto role = static_cast<SegmentRole>(s.role);
  std::string out = kind == SegmentKind::kSystem ? "system prompt" : SegmentKindName(kind);
  if (kind == SegmentKind::kMessage && role != SegmentRole::kNone)
    out += fmt::format(" ({})", SegmentRoleName(role));
  std::replace(out.begin(), out.end(), '_', ' ');
  return out;
}

// A SegmentLabel as the findings' prose names the place. Most labels read as places ("system
// prompt", "message (user)"); two would repeat or blur the cause beside them ("tools added in the
// tools"). report.json keeps the labels themselves.
std::string SegmentPlace(const std::string& label) {
  if (label.empty()) return "prompt";
  if (label == SegmentKindName(SegmentKind::kTools)) return "tool definitions";
  if (label == SegmentKindName(SegmentKind::kFraming)) return "template's framing text";
  return label;
}

uint64_t Median(std::vector<uint64_t>* v) {
  if (v->empty()) return 0;
  std::nth_element(v->begin(), v->begin() + static_cast<std::ptrdiff_t>(v->size() / 2), v->end());
  return (*v)[v->size() / 2];
}

}  // namespace

const char* BusterCauseName(BusterCause c) {
  switch (c) {
    case BusterCause::kVolatileText:
      return "volatile_text";
    case BusterCause::kToolsAdded:
      return "tools_added";
    case BusterCause::kToolsRemoved:
      return "tools_removed";
    case BusterCause::kToolsReordered:
      return "tools_reordered";
    case BusterCause::kToolEdited:
      return "tool_edited";
    case BusterCause::kSystemEdited:
      return "system_prompt_edited";
    case BusterCause::kHistoryRewritten:
      return "history_rewritten";
    case BusterCause::kReasoningStripped:
      return "reasoning_stripped";
    case BusterCause::kReasoningKept:
      return "reasoning_kept";
    case BusterCause::kCacheControlMoved:
      return "cache_control_moved";
    case BusterCause::kModelSwitched:
      return "model_switched";
    case BusterCause::kTemplateFraming:
      return "template_framing";
    case BusterCause::kNewContentOnly:
      return "new_content_only";
  }
  return "?";
}

const char* BusterCauseLabel(BusterCause c) {
  switch (c) {
    case BusterCause::kVolatileText:
      return "a timestamp-like value (date, time, id, counter)";
    case BusterCause::kToolsAdded:
      return "tools added";
    case BusterCause::kToolsRemoved:
      return "tools removed";
    case BusterCause::kToolsReordered:
      return "the tool array reordered";
    case BusterCause::kToolEdited:
      return "a tool description or schema edited";
    case BusterCause::kSystemEdited:
      return "the system prompt edited";
    case BusterCause::kHistoryRewritten:
      return "earlier history rewritten or truncated";
    case BusterCause::kReasoningStripped:
      return "reasoning stripped from the history";
    case BusterCause::kReasoningKept:
      return "reasoning newly kept in the history";
    case BusterCause::kCacheControlMoved:
      return "the cache_control marker moved";
    case BusterCause::kModelSwitched:
      return "the model switched within a conversation";
    case BusterCause::kTemplateFraming:
      return "the chat template's own text changed";
    case BusterCause::kNewContentOnly:
      return "new content only";
  }
  return "?";
}

const char* BusterCauseAdvice(BusterCause c) {
  switch (c) {
    case BusterCause::kVolatileText:
      return "move it after the conversation or drop it";
    case BusterCause::kToolsAdded:
    case BusterCause::kToolsRemoved:
      return "keep one tool set per conversation";
    case BusterCause::kToolsReordered:
      return "send the tools in a fixed order";
    case BusterCause::kToolEdited:
      return "keep tool descriptions and schemas stable";
    case BusterCause::kSystemEdited:
      return "keep the system prompt fixed within a conversation";
    case BusterCause::kHistoryRewritten:
      return "compact less often, or append a summary instead";
    case BusterCause::kReasoningStripped:
    case BusterCause::kReasoningKept:
      return "keep or drop reasoning consistently across turns";
    case BusterCause::kCacheControlMoved:
      return "the marker itself is not part of the prefix";
    case BusterCause::kModelSwitched:
      return "keep one model per conversation";
    case BusterCause::kTemplateFraming:
      return "check the chat template's request-dependent text";
    case BusterCause::kNewContentOnly:
      return "a natural miss";
  }
  return "";
}

BreakCause ClassifyBreak(const Trace& trace, const std::vector<RequestRecord>& records,
                         size_t request, const Divergence& d) {
  BreakCause out;
  const TraceRequest& tr = trace.requests[request];
  const TraceRequest& ref = trace.requests[d.reference];
  const RequestRecord& cur_rec = records[tr.record];
  const RequestRecord& ref_rec = records[ref.record];
  PromptFacts cur_facts, ref_facts;  // ReadFacts's scratch
  const PromptFacts& cf = ReadFacts(cur_rec.facts, &cur_facts);
  const PromptFacts& rf = ReadFacts(ref_rec.facts, &ref_facts);
  const bool turn = d.reference == d.previous_turn;
  const size_t at = d.segment >= 0 ? static_cast<size_t>(d.segment) : 0;
  const SegmentFact* c = At(cf, at);
  const SegmentFact* r = At(rf, at);
  BusterCause cause = BusterCause::kNewContentOnly;
  const bool in_tools =
      NearKind(cf, at, SegmentKind::kTools) || NearKind(rf, at, SegmentKind::kTools);
  if (turn && cur_rec.model != ref_rec.model) {
    cause = BusterCause::kModelSwitched;
  } else if (in_tools && !SameTools(cf, rf)) {
    cause = ToolCause(cf, rf);
    if (!turn && cause != BusterCause::kToolsReordered) cause = BusterCause::kNewContentOnly;
  } else if (turn && cf.cache_control != rf.cache_control &&
             ((c && cf.cache_control >= 0 && c->item == cf.cache_control) ||
              (r && rf.cache_control >= 0 && r->item == rf.cache_control)) &&
             c && r && c->kind == r->kind && c->masked_digest != r->masked_digest &&
             c->kind != K(SegmentKind::kFraming)) {
    // A template that renders the marker (the fixed layouts never do).
    cause = BusterCause::kCacheControlMoved;
  } else if (NearKind(rf, at, SegmentKind::kReasoning) &&
             !NearKind(cf, at, SegmentKind::kReasoning)) {
    cause = turn ? BusterCause::kReasoningStripped : BusterCause::kNewContentOnly;
  } else if (NearKind(cf, at, SegmentKind::kReasoning) &&
             !NearKind(rf, at, SegmentKind::kReasoning)) {
    cause = turn ? BusterCause::kReasoningKept : BusterCause::kNewContentOnly;
  } else if (c && r && c->kind == r->kind && c->role == r->role &&
             c->masked_digest == r->masked_digest) {
    cause = BusterCause::kVolatileText;
  } else if ((c && c->kind == K(SegmentKind::kSystem)) ||
             (r && r->kind == K(SegmentKind::kSystem))) {
    cause = turn ? BusterCause::kSystemEdited : BusterCause::kNewContentOnly;
  } else if (turn && c && r && c->kind == K(SegmentKind::kFraming) &&
             r->kind == K(SegmentKind::kFraming)) {
    cause = BusterCause::kTemplateFraming;
  } else if (turn) {
    cause = BusterCause::kHistoryRewritten;
  }
  out.cause = cause;
  out.where = d.segment;
  auto near_index = [](const PromptFacts& f, size_t i, SegmentKind k) {
    return static_cast<int32_t>(KindAt(f, i, k) ? i : i + 1);
  };
  if (cause == BusterCause::kReasoningStripped) {
    out.where = near_index(rf, at, SegmentKind::kReasoning);
    out.in_reference = true;
  } else if (cause == BusterCause::kReasoningKept) {
    out.where = near_index(cf, at, SegmentKind::kReasoning);
  } else if ((cause == BusterCause::kToolsAdded || cause == BusterCause::kToolsRemoved ||
              cause == BusterCause::kToolsReordered || cause == BusterCause::kToolEdited) &&
             !KindAt(cf, at, SegmentKind::kTools)) {
    out.where = near_index(cf, at, SegmentKind::kTools);
    if (!KindAt(cf, static_cast<size_t>(out.where), SegmentKind::kTools)) {
      out.where = near_index(rf, at, SegmentKind::kTools);
      out.in_reference = true;
    }
  } else if (!c) {
    out.where = r ? static_cast<int32_t>(at) : -1;
    out.in_reference = true;
  }
  // Would-be shared prefix: a turn would have extended its previous turn (all its whole blocks);
  // across conversations a fix recovers the prefix up to the first natural difference.
  uint64_t m = 0;
  if (cause == BusterCause::kNewContentOnly) {
    m = std::min(FullPrefix(ref), FullPrefix(tr));
  } else if (turn) {
    m = FullPrefix(ref);
  } else {
    const uint64_t tok = WouldShareTokens(cf, rf, at, tr.input_tokens, ref.input_tokens);
    m = std::min<uint64_t>(tok / std::max<uint32_t>(tr.block_size, 1),
                           std::min(FullPrefix(ref), FullPrefix(tr)));
  }
  out.would_share = std::max<uint64_t>(m, d.best_shared);
  return out;
}

CacheBusters AnalyzeCacheBusters(const Trace& trace, const std::vector<RequestRecord>& records,
                                 const std::vector<Divergence>& divergences, size_t first_measured,
                                 int64_t ceiling_hit_tokens, int64_t measured_tokens) {
  CacheBusters b;
  struct Acc {
    CauseCost cost;
    std::unordered_set<int32_t> conversations;
    std::map<std::string, uint64_t> segments;
    std::vector<std::pair<std::string, uint64_t>> offsets, tokens;
  };
  std::vector<Acc> acc(kBusterCauses);
  double facts_bytes = 0;
  for (size_t k = 0; k < kBusterCauses; ++k) acc[k].cost.cause = static_cast<BusterCause>(k);
  auto note = [&](Acc& a, const TraceRequest& tr, const SegmentFact* seg, uint64_t offset,
                  uint64_t token) {
    ++a.cost.requests;
    if (tr.conversation >= 0) a.conversations.insert(tr.conversation);
    if (seg) {
      const std::string label = SegmentLabel(*seg);
      ++a.segments[label];
      a.offsets.emplace_back(label, offset);
    }
    a.tokens.emplace_back("", token);
  };
  PromptFacts scratch;  // ReadFacts's
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& tr = trace.requests[i];
    if (tr.replay_only) continue;
    const RequestRecord& rec = records[tr.record];
    if (SegmentCount(rec.facts) == 0) continue;
    b.present = true;
    ++b.requests;
    facts_bytes += static_cast<double>(PlainFactsBytes(rec.facts));
    const Divergence& d = divergences[i];
    if (d.reference == kNoRequest) continue;
    ++b.compared;
    if (!d.is_break) {
      // A moved marker without a break still counts (it costs nothing here).
      if (d.reference == d.previous_turn) {
        const PromptFacts& rf = records[trace.requests[d.reference].record].facts;
        if (rec.facts.cache_control != rf.cache_control &&
            !(rec.facts.cache_control == -1 || rf.cache_control == -1)) {
          const SegmentFact* seg = nullptr;
          for (const SegmentFact& s : ReadFacts(rec.facts, &scratch).segments)
            if (s.item == rec.facts.cache_control && s.kind != K(SegmentKind::kTools) &&
                s.kind != K(SegmentKind::kFraming)) {
              seg = &s;
              break;
            }
          note(acc[static_cast<size_t>(BusterCause::kCacheControlMoved)], tr, seg, 0,
               seg ? seg->token_start : 0);
        }
      }
      continue;
    }
    ++b.breaks;
    const BreakCause bc = ClassifyBreak(trace, records, i, d);
    Acc& a = acc[static_cast<size_t>(bc.cause)];
    const int64_t lost = static_cast<int64_t>(bc.would_share - d.best_shared) * tr.block_size;
    a.cost.lost_tokens += lost;
    if (i >= first_measured) a.cost.lost_measured_tokens += lost;
    const PromptFacts& where_facts = ReadFacts(
        bc.in_reference ? records[trace.requests[d.reference].record].facts : rec.facts, &scratch);
    const SegmentFact* seg =
        bc.where >= 0 ? At(where_facts, static_cast<size_t>(bc.where)) : nullptr;
    const uint64_t end = static_cast<uint64_t>(d.shared) * tr.block_size;
    const uint64_t offset = seg && end > seg->token_start ? end - seg->token_start : 0;
    note(a, tr, seg, bc.where == d.segment && !bc.in_reference ? d.token_offset : offset, end);
  }
  if (b.requests > 0) b.facts_bytes_per_request = facts_bytes / static_cast<double>(b.requests);
  for (Acc& a : acc) {
    if (a.cost.requests == 0) continue;
    CauseCost c = a.cost;
    c.conversations = a.conversations.size();
    uint64_t best = 0;
    for (const auto& [label, n] : a.segments)
      if (n > best) {
        best = n;
        c.segment = label;
      }
    std::vector<uint64_t> off, tok;
    for (const auto& [label, o] : a.offsets)
      if (label == c.segment) off.push_back(o);
    for (const auto& [label, t] : a.tokens) tok.push_back(t);
    c.token_offset = Median(&off);
    c.prompt_token = Median(&tok);
    if (!IsNatural(c.cause)) b.lost_tokens += c.lost_tokens;
    b.causes.push_back(std::move(c));
  }
  std::stable_sort(b.causes.begin(), b.causes.end(), [](const CauseCost& x, const CauseCost& y) {
    if (IsNatural(x.cause) != IsNatural(y.cause)) return IsNatural(y.cause);
    return x.lost_tokens > y.lost_tokens;
  });
  if (!b.causes.empty() && !IsNatural(b.causes[0].cause) && b.causes[0].lost_tokens > 0) {
    b.has_top = true;
    b.top = b.causes[0].cause;
  }
  SetCacheBusterCeiling(&b, ceiling_hit_tokens, measured_tokens);
  return b;
}

void SetCacheBusterCeiling(CacheBusters* b, int64_t ceiling_hit_tokens, int64_t measured_tokens) {
  b->measured_tokens = measured_tokens;
  b->ceiling_hit_tokens = ceiling_hit_tokens;
  for (CauseCost& c : b->causes)
    c.ceiling_points = measured_tokens > 0 ? 100.0 * static_cast<double>(c.lost_measured_tokens) /
                                                 static_cast<double>(measured_tokens)
                                           : 0;
  b->whatif_hit_tokens = ceiling_hit_tokens;
  if (b->has_top) b->whatif_hit_tokens += b->causes[0].lost_measured_tokens;
}

std::vector<std::string> CacheBusterSentences(const CacheBusters& b) {
  std::vector<std::string> out;
  if (!b.present) return out;
  const int64_t reusable = b.ceiling_hit_tokens + [&] {
    int64_t s = 0;
    for (const CauseCost& c : b.causes)
      if (!IsNatural(c.cause)) s += c.lost_measured_tokens;
    return s;
  }();
  for (const CauseCost& c : b.causes) {
    if (IsNatural(c.cause) || c.lost_tokens <= 0) continue;
    const double share = reusable > 0 ? 100.0 * static_cast<double>(c.lost_measured_tokens) /
                                            static_cast<double>(reusable)
                                      : 0;
    // A small cost is still stated as one: "0%" next to thousands of tokens reads as none.
    const std::string share_text = share >= 1      ? fmt::format("{:.0f}%", share)
                                   : share >= 0.05 ? fmt::format("{:.1f}%", share)
                                                   : std::string("<0.1%");
    out.push_back(fmt::format(
        "Cache buster: {} in the {} at token ~{} breaks {} of the reusable volume ({} tokens, "
        "{:.1f} points of the ceiling, {} requests in {} conversations); {}.",
        BusterCauseLabel(c.cause), SegmentPlace(c.segment), c.token_offset, share_text,
        CompactDecimal(static_cast<double>(c.lost_tokens)), c.ceiling_points, c.requests,
        c.conversations, BusterCauseAdvice(c.cause)));
  }
  const SharedBelowBlock& s = b.below_block;
  if (s.requests > 0)
    out.push_back(fmt::format(
        "Shared, but shorter than a block: {} requests share no {}-token block with any earlier "
        "request, yet begin with the same prompt segments as one (median {} tokens, {} in all); "
        "a cache of whole blocks hits none of it, a smaller block size would.",
        s.requests, s.block_size, s.median_tokens, CompactDecimal(static_cast<double>(s.tokens))));
  return out;
}

}  // namespace ltl
