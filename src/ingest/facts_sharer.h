// FactsSharer: the read's in-order step hands it each gateway record's cache-buster facts, and it
// moves them into the read's FactsStore (common/facts_store.h), naming as the entry's parent the
// request the record most likely continues: the one whose messages are this one's up to its last
// assistant message (ConversationLinks, as the cutter's memory finds it), else the latest request
// of the same conversation key. The parent is a hint: the store compares the segments and keeps
// only the ones that differ, so the facts read back are the same whatever the hint was. Records
// are handed over in input order on one thread, so the store is the same for any thread count.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <memory>
#include <string_view>

#include "common/facts_store.h"
#include "common/request_record.h"
#include "ingest/gateway_row.h"

namespace ltl {

class FactsSharer {
 public:
  // Moves f's lists into the store (f keeps its cache_control and points at its entry); a record
  // without facts is left as it is.
  void Share(PromptFacts* f, const ConversationLinks& links, std::string_view conversation);
  const FactsStore& store() const { return *store_; }

 private:
  std::shared_ptr<FactsStore> store_ = std::make_shared<FactsStore>();
  // The latest entry under each key (a request's own link, a conversation key); a key is dropped
  // once a request continues it, so the map holds about one key per live conversation.
  absl::flat_hash_map<uint64_t, uint32_t> latest_;
};

}  // namespace ltl
