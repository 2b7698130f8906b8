// libFuzzer target: loading a hashed shard (shard/shard_codec.h). Properties: decoding any bytes
// returns a shard or a Corrupt status naming the shard and a byte offset (never a crash, a hang or
// a huge allocation: every count is checked against the bytes left); a decoded shard encodes to
// bytes that decode to a shard encoding to the same bytes again (the format has one reading). A
// mutated input mostly stops at the CRC-32 check, so each input is also decoded re-sealed: its
// payload under a correct header and checksum, which reaches every field check.
#include <zlib.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_util.h"
#include "shard/shard_codec.h"

namespace {

void CheckDecode(std::string_view bytes) {
  auto shard = ltl::DecodeShard(bytes, "fuzz.ltlshard");
  if (!shard.ok()) {
    const std::string& m = shard.status().message();
    LTL_FUZZ_CHECK(m.rfind("fuzz.ltlshard: offset ", 0) == 0);
    LTL_FUZZ_CHECK(shard.status().code() == ltl::Status::Code::kCorrupt);
    return;
  }
  const std::string once = ltl::EncodeShard(*shard);
  auto again = ltl::DecodeShard(once, "fuzz.ltlshard");
  LTL_FUZZ_CHECK(again.ok());
  LTL_FUZZ_CHECK(ltl::EncodeShard(*again) == once);
  LTL_FUZZ_CHECK(again->input.records.size() == shard->input.records.size());
}

// The header (magic, version 1, flags 0, size, CRC-32) around `payload`.
std::string Seal(std::string_view payload) {
  std::string out(ltl::kShardMagic);
  auto le = [&out](uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  };
  le(ltl::kShardVersion, 4);
  le(0, 4);
  le(payload.size(), 8);
  uLong c = crc32(0L, Z_NULL, 0);
  c = crc32(c, reinterpret_cast<const Bytef*>(payload.data()), static_cast<uInt>(payload.size()));
  le(c, 4);
  out.append(payload);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  CheckDecode(bytes);
  // Seeds are whole shards: re-seal what follows their header, so mutations of the payload get
  // past the checksum.
  constexpr size_t kHeader = 28;
  CheckDecode(Seal(bytes.size() >= kHeader ? bytes.substr(kHeader) : bytes));
  return 0;
}
