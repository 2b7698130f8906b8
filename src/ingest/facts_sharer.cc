// FactsSharer (see facts_sharer.h).
#include "ingest/facts_sharer.h"

#include <algorithm>
#include <functional>
#include <vector>

namespace ltl {
namespace {

// A conversation key's map key, apart from the links' SipHash values (a clash would only make a
// worse hint).
uint64_t ConversationKey(std::string_view conversation) {
  return std::hash<std::string_view>{}(conversation) ^ 0x636f6e766572736full;
}

}  // namespace

void FactsSharer::Share(PromptFacts* f, const ConversationLinks& links,
                        std::string_view conversation) {
  if (f->segments.empty() && f->tools.empty()) return;
  uint32_t parent = FactsStore::kNoEntry;
  auto take = [&](uint64_t key) {
    if (parent != FactsStore::kNoEntry) return;
    auto it = latest_.find(key);
    if (it == latest_.end()) return;
    parent = it->second;
    latest_.erase(it);
  };
  if (links.known)
    for (uint64_t p : links.parents) take(p);
  if (!conversation.empty()) take(ConversationKey(conversation));
  const size_t bytes = f->bytes();
  const uint32_t entry =
      store_->Add(*f, parent, static_cast<uint32_t>(std::min<size_t>(bytes, UINT32_MAX)));
  std::vector<SegmentFact>().swap(f->segments);
  std::vector<ToolFact>().swap(f->tools);
  f->shared = SharedFacts{store_, entry};
  if (links.known) latest_[links.own] = entry;
  if (!conversation.empty()) latest_[ConversationKey(conversation)] = entry;
}

}  // namespace ltl
