// HashShard / MergeShards (see shard.h).
#include "shard/shard.h"

#include <fmt/format.h>

#include "common/safe_label.h"
#include "hash/salt_file.h"
#include "ingest/merge_inputs.h"
#include "tokenize/tokenizer.h"

namespace ltl {

uint64_t SaltCheck(const SipKey& key) {
  // Any fixed message: the digest tells keys apart without revealing one.
  uint64_t d = SipHash24(key, std::string_view("llmtrafficlens shard salt check"));
  return d == 0 ? 1 : d;
}

Result<Shard> HashShard(const std::string& path, InputFormat format, IngestContext* ctx) {
  IngestContext c = *ctx;
  c.interner = nullptr;  // the shard keeps the ids as hashed
  c.gateway.defer_post_pass = true;
  auto loaded = LoadInput(path, format, &c);
  if (!loaded.ok()) return loaded.status();
  Shard s;
  s.input = std::move(loaded).value();
  if (s.input.format == InputFormat::kCctrace)
    return Status::InvalidArgument(fmt::format(
        "{}: a cache trace (cctrace) is profiled directly, not through a shard", c.name));
  if (s.input.gateway) {
    auto salt = LoadOrCreateSalt(c.gateway.salt_file);  // the file the reader just used
    if (!salt.ok()) return salt.status();
    s.salt_check = SaltCheck(salt->key);
    if (c.gateway.tokenizer) s.tokenizer = c.gateway.tokenizer->name();
    s.template_name = c.gateway.template_name;
  }
  s.origin = path;
  return s;
}

namespace {

std::string OriginOf(const Shard& s) {
  if (!s.origin.empty()) return s.origin;
  return s.input.files.empty() ? "shard" : s.input.files.front().name;
}

// The block size of a shard's records (0 = no record has one).
uint32_t BlockSizeOf(const Shard& s) {
  for (const RequestRecord& r : s.input.records)
    if (r.block_size) return r.block_size;
  return 0;
}

}  // namespace

Result<LoadedInput> MergeShards(std::vector<Shard> shards, BlockInterner* interner) {
  std::vector<LoadedInput> parts;
  parts.reserve(shards.size());
  if (shards.empty()) return Status::InvalidArgument("no shard");
  // What every shard must agree with (copied: the loop moves each shard's input away). Messages
  // name the two shards' files (issue 35, item 16): two shards of one log differ only there.
  const bool first_gateway = shards.front().input.gateway;
  const uint64_t first_salt = shards.front().salt_check;
  const std::string first_tokenizer = shards.front().tokenizer;
  const std::string first_estimate = shards.front().input.counting_estimate;
  const std::string first_template = shards.front().template_name;
  const InputFormat first_format = shards.front().input.format;
  const std::string first_name = OriginOf(shards.front());
  uint32_t block_size = 0;  // of the first shard that has records
  std::string block_size_name;
  for (Shard& s : shards) {
    const std::string name = OriginOf(s);
    if (s.input.gateway && first_gateway && s.salt_check != first_salt)
      return Status::InvalidArgument(fmt::format(
          "{}: hashed with another salt than {}: its block ids cannot match; hash every file "
          "with the same --salt-file",
          name, first_name));
    if (s.input.gateway && first_gateway &&
        (s.tokenizer != first_tokenizer || s.input.counting_estimate != first_estimate))
      return Status::InvalidArgument(fmt::format(
          "{}: cut with other settings than {} ({} vs {}): hash every file with the same "
          "--tokenizer, --model-dir and --chat-template",
          name, first_name, s.input.counting_estimate, first_estimate));
    if (s.input.gateway && first_gateway && !s.template_name.empty() && !first_template.empty() &&
        s.template_name != first_template)
      return Status::InvalidArgument(fmt::format(
          "{}: rendered with --template {}, {} with --template {}: the same request renders to "
          "other text, so its block ids cannot match; hash every file with the same --template",
          name, SafeLabel(s.template_name), first_name, SafeLabel(first_template)));
    // Inputs of different kinds (a hashed trace beside a gateway log) are refused by MergeInputs
    // with their own message; the block size is compared between inputs of one kind.
    const bool same_kind =
        s.input.gateway == first_gateway && (first_gateway || s.input.format == first_format);
    if (const uint32_t b = BlockSizeOf(s); same_kind && b) {
      if (block_size == 0) {
        block_size = b;
        block_size_name = name;
      } else if (b != block_size) {
        return Status::InvalidArgument(fmt::format(
            "{}: cut into blocks of {} tokens, {} into blocks of {}: block ids of different "
            "sizes cannot match; hash every file with the same --block-size",
            name, b, block_size_name, block_size));
      }
    }
    if (interner)
      for (RequestRecord& r : s.input.records) {
        interner->Add(r.block_ids);
        std::vector<uint64_t>().swap(r.block_ids);
      }
    parts.push_back(std::move(s.input));
  }
  return MergeInputs(std::move(parts));
}

}  // namespace ltl
