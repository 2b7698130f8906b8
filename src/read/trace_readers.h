// Readers for already hashed traces: Mooncake JSONL and Qwen-bailian JSONL. Each valid line becomes
// a RequestRecord; each bad line is skipped and counted by reason with its line number.
#pragma once

#include <functional>
#include <vector>

#include "common/request_record.h"
#include "common/status.h"
#include "read/input_stream.h"
#include "read/read_context.h"

namespace ltl {

constexpr uint32_t kMooncakeDefaultBlockSize = 512;
constexpr uint32_t kBailianDefaultBlockSize = 16;

// Takes a valid record's block ids as soon as the record is read, in record order (it may empty
// the vector). The ingest stage passes one that interns them (hash/block_interner.h, a stage this
// one cannot see), so a trace's ids are never all held at once. Empty = the ids stay in the
// records.
using TakeIds = std::function<void(std::vector<uint64_t>* ids)>;

// Mooncake: {"timestamp": ms, "input_length", "output_length", "hash_ids": [...], "block_size"?}.
Status ReadMooncake(InputStream* in, ReadContext* ctx, std::vector<RequestRecord>* out,
                    const TakeIds& take_ids = {});

// Bailian: {"chat_id", "parent_chat_id" (-1 root), "timestamp": s, "input_length",
// "output_length", "type", "turn", "hash_ids"}. Conversations are parent_chat_id chains; each
// record's `conversation` is set to its root's chat_id.
Status ReadBailian(InputStream* in, ReadContext* ctx, std::vector<RequestRecord>* out,
                   const TakeIds& take_ids = {});

}  // namespace ltl
