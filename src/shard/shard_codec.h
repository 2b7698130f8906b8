// The shard file format (version 1), little-endian throughout:
//   magic "LTLSHRD\n" (8 bytes) | u32 version | u32 flags (0) | u64 payload size | u32 CRC-32 of
//   the payload (zlib's) | payload
// The payload is the Shard field by field (shard_codec.cc lists the order): strings as u32 length
// + bytes, the records' repeated strings (models, conversation keys, session fields, types) as
// indices into one string table, block ids as u64 each (those a record shares with its reference,
// an earlier record, as a count). Loading checks the magic, version, size and
// checksum first, then every count against the bytes left, so a truncated or corrupt shard is a
// Corrupt status naming the shard and the byte offset, never a crash or a huge allocation.
// Hand-written: the format is ~200 lines and must report offsets; a general serialiser (cereal,
// protobuf) would add a dependency and its own error model for no gain.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "shard/shard.h"

namespace ltl {

inline constexpr std::string_view kShardMagic = "LTLSHRD\n";
// Version 2: records carry their cache-busters facts (segments, tools, cache_control position).
// Version 3: and their provider-cache facts (file index, prompt_cache_key digest, retention,
// automatic caching, Anthropic blocks, observed writes, bad-observation code).
// Version 4: and the --template layout setting (after the salt check), so that shards rendered
// with different layouts are refused together.
// Version 5: and, after the formats flag, the piece index and whether the per-file time steps are
// left to the join of a file's pieces (read/record_boundaries.h).
// Version 6: a record may take its leading block ids and segments, and its tool list, from an
// earlier record of the shard (a count back to it, and how many of each), so a conversation's
// turns no longer repeat the prompt before them (shard_codec.cc's RecordRef).
inline constexpr uint32_t kShardVersion = 6;

std::string EncodeShard(const Shard& shard);
// The same bytes written once into the buffer allocate(size) returns (e.g. a Python bytes
// object's), the size being counted first: no growing buffer and no copies, which cost a page
// fault per 4 KiB each (~15 us on the 2-core VM of docs/PERFORMANCE.md). Returns the size.
size_t EncodeShardTo(const Shard& shard, const std::function<char*(size_t)>& allocate);
// `name` is how messages name the shard (its path). With leave_shared_ids, the ids a record shares
// with its reference are left out of its block_ids and listed in Shard::id_prefixes, for
// InternShard (shard.h), which takes them from the interner: no 64-bit copy of them is made. Such
// a shard is interned (or RestoreSharedIds'd) before anything else reads or encodes its ids.
Result<Shard> DecodeShard(std::string_view bytes, const std::string& name,
                          bool leave_shared_ids = false);

// Writes the shard atomically (temp file + rename); reads one back.
Status WriteShardFile(const std::string& path, const Shard& shard);
Result<Shard> ReadShardFile(const std::string& path, bool leave_shared_ids = false);
// Whether `path` is a regular file starting with the shard magic (false for unreadable files,
// FIFOs and devices, which are never peeked at).
bool IsShardFile(const std::string& path);

}  // namespace ltl
