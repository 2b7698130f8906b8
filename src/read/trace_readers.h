// Readers for already hashed traces: Mooncake JSONL and Qwen-bailian JSONL. Each valid line becomes
// a RequestRecord; each bad line is skipped and counted by reason with its line number.
#pragma once

#include <vector>

#include "common/request_record.h"
#include "common/status.h"
#include "read/input_stream.h"
#include "read/read_context.h"

namespace ltl {

constexpr uint32_t kMooncakeDefaultBlockSize = 512;
constexpr uint32_t kBailianDefaultBlockSize = 16;

// Mooncake: {"timestamp": ms, "input_length", "output_length", "hash_ids": [...], "block_size"?}.
Status ReadMooncake(InputStream* in, ReadContext* ctx, std::vector<RequestRecord>* out);

// Bailian: {"chat_id", "parent_chat_id" (-1 root), "timestamp": s, "input_length",
// "output_length", "type", "turn", "hash_ids"}. Conversations are parent_chat_id chains; each
// record's `conversation` is set to its root's chat_id.
Status ReadBailian(InputStream* in, ReadContext* ctx, std::vector<RequestRecord>* out);

}  // namespace ltl
