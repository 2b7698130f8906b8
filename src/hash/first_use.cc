// FirstUse: the shuffle by block id behind the cluster's unbounded figures (see first_use.h).
#include "hash/first_use.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "common/mix64.h"

namespace ltl {
namespace {

constexpr uint32_t kKeysMagic = 0x4b46544cu;    // "LTFK"
constexpr uint32_t kMapMagic = 0x4d46544cu;     // "LTFM"
constexpr uint32_t kAccessMagic = 0x4146544cu;  // "LTFA"
constexpr uint32_t kVersion = 1;
constexpr uint32_t kEndMarker = 0x80000000u;  // a map entry's position flag: the request's end
// The curve's owner states (simulate/lru_curve.cc): unowned is the "no conversation" index.
constexpr int32_t kUnowned = -1;
constexpr int32_t kShared = -2;

template <typename T>
void Put(std::string* out, const T& v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}
template <typename T>
void PutArray(std::string* out, const std::vector<T>& v) {
  if (!v.empty()) out->append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

class Reader {
 public:
  Reader(std::string_view bytes, const char* what) : b_(bytes), what_(what) {}
  template <typename T>
  bool Get(T* v) {
    if (b_.size() - at_ < sizeof(T)) return false;
    std::memcpy(v, b_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  template <typename T>
  bool GetArray(std::vector<T>* v, uint64_t n) {
    if (n > (b_.size() - at_) / sizeof(T)) return false;
    v->resize(n);
    if (n) std::memcpy(v->data(), b_.data() + at_, n * sizeof(T));
    at_ += n * sizeof(T);
    return true;
  }
  bool Header(uint32_t magic) {
    uint32_t m = 0, version = 0;
    return Get(&m) && m == magic && Get(&version) && version == kVersion;
  }
  bool done() const { return at_ == b_.size(); }
  Status Bad() const {
    return Status::Corrupt(std::string("first-use ") + what_ + ": malformed or truncated bytes");
  }

 private:
  std::string_view b_;
  size_t at_ = 0;
  const char* what_;
};

// BlockTokens (simulate/trace.h) from a request's length and block size.
int64_t TokensAt(int64_t input_tokens, uint32_t block_size, uint64_t j) {
  const int64_t bs = block_size;
  const int64_t lo = std::min<int64_t>(static_cast<int64_t>(j) * bs, input_tokens);
  const int64_t hi = std::min<int64_t>(static_cast<int64_t>(j + 1) * bs, input_tokens);
  return hi - lo;
}

struct MapEntry {
  uint64_t block;
  uint32_t record;
  uint32_t pos;  // | kEndMarker for a request's end
};
static_assert(sizeof(MapEntry) == 16);

}  // namespace

std::string EncodeFirstUseKeys(const FirstUseKeys& k) {
  std::string out;
  Put(&out, kKeysMagic);
  Put(&out, kVersion);
  Put(&out, k.first_steady);
  Put(&out, k.first_cold);
  Put(&out, static_cast<uint32_t>(k.has_split));
  Put(&out, static_cast<uint64_t>(k.rank_of_record.size()));
  Put(&out, static_cast<uint64_t>(k.conversation.size()));
  PutArray(&out, k.rank_of_record);
  PutArray(&out, k.conversation);
  PutArray(&out, k.input_tokens);
  PutArray(&out, k.block_size);
  PutArray(&out, k.measured);
  return out;
}

Result<FirstUseKeys> DecodeFirstUseKeys(std::string_view bytes) {
  Reader r(bytes, "keys");
  FirstUseKeys k;
  uint32_t split = 0;
  uint64_t records = 0, ranks = 0;
  if (!r.Header(kKeysMagic) || !r.Get(&k.first_steady) || !r.Get(&k.first_cold) || !r.Get(&split) ||
      !r.Get(&records) || !r.Get(&ranks) || !r.GetArray(&k.rank_of_record, records) ||
      !r.GetArray(&k.conversation, ranks) || !r.GetArray(&k.input_tokens, ranks) ||
      !r.GetArray(&k.block_size, ranks) || !r.GetArray(&k.measured, ranks) || !r.done())
    return r.Bad();
  k.has_split = split != 0;
  for (uint32_t rank : k.rank_of_record)
    if (rank != kFirstUseNoRank && rank >= ranks) return r.Bad();
  return k;
}

std::vector<std::string> FirstUseMap(const std::vector<RequestRecord>& records, uint32_t file_index,
                                     uint32_t partitions) {
  partitions = std::max<uint32_t>(partitions, 1);
  std::vector<std::vector<MapEntry>> parts(partitions);
  for (size_t i = 0; i < records.size(); ++i) {
    const std::vector<uint64_t>& ids = records[i].block_ids;
    const auto rec = static_cast<uint32_t>(i);
    for (size_t j = 0; j < ids.size(); ++j)
      parts[SplitMix64Finalizer(ids[j]) % partitions].push_back(
          {ids[j], rec, static_cast<uint32_t>(j)});
    const uint64_t key = (uint64_t{file_index} << 32) | rec;
    parts[SplitMix64Finalizer(key) % partitions].push_back(
        {0, rec, static_cast<uint32_t>(ids.size()) | kEndMarker});
  }
  std::vector<std::string> out(partitions);
  for (uint32_t p = 0; p < partitions; ++p) {
    std::string& s = out[p];
    s.reserve(32 + parts[p].size() * sizeof(MapEntry));
    Put(&s, kMapMagic);
    Put(&s, kVersion);
    Put(&s, file_index);
    Put(&s, static_cast<uint32_t>(records.size()));
    Put(&s, static_cast<uint64_t>(parts[p].size()));
    PutArray(&s, parts[p]);
    std::vector<MapEntry>().swap(parts[p]);
  }
  return out;
}

Result<FirstUseReduced> FirstUseReduce(const std::vector<std::string_view>& blobs,
                                       const FirstUseKeys& keys) {
  // Headers first: each file's record count places its records in the merged order.
  const size_t files = blobs.size();
  std::vector<uint64_t> offset(files + 1, 0);
  std::vector<int64_t> blob_of_file(files, -1);
  std::vector<std::vector<MapEntry>> entries(files);
  for (size_t b = 0; b < files; ++b) {
    Reader r(blobs[b], "map output");
    uint32_t file = 0, records = 0;
    uint64_t count = 0;
    if (!r.Header(kMapMagic) || !r.Get(&file) || !r.Get(&records) || !r.Get(&count) ||
        !r.GetArray(&entries[b], count) || !r.done())
      return r.Bad();
    if (file >= files || blob_of_file[file] >= 0)
      return Status::Corrupt("first-use reduce: the partition needs one map output of each of " +
                             std::to_string(files) + " files");
    blob_of_file[file] = static_cast<int64_t>(b);
    offset[file + 1] = records;
  }
  for (size_t f = 0; f < files; ++f) offset[f + 1] += offset[f];
  if (offset[files] != keys.rank_of_record.size())
    return Status::Corrupt("first-use reduce: the map outputs hold " +
                           std::to_string(offset[files]) + " records, the trace " +
                           std::to_string(keys.rank_of_record.size()));

  struct Access {
    uint64_t block;
    uint32_t rank;
    uint32_t pos;
  };
  FirstUseReduced out;
  std::vector<Access> acc;
  const size_t ranks = keys.conversation.size();
  for (size_t f = 0; f < files; ++f) {
    std::vector<MapEntry>& es = entries[static_cast<size_t>(blob_of_file[f])];
    const uint64_t records = offset[f + 1] - offset[f];
    for (const MapEntry& e : es) {
      if (e.record >= records)
        return Status::Corrupt("first-use reduce: a map entry names a record past its file's");
      const uint32_t rank = keys.rank_of_record[offset[f] + e.record];
      if (rank == kFirstUseNoRank) continue;  // not replayed
      if (rank >= ranks) return Status::Corrupt("first-use reduce: a rank past the trace");
      if (e.pos & kEndMarker)
        out.first_miss.push_back({rank, e.pos & ~kEndMarker});
      else
        acc.push_back({e.block, rank, e.pos});
    }
    std::vector<MapEntry>().swap(es);
  }
  std::sort(acc.begin(), acc.end(), [](const Access& a, const Access& b) {
    if (a.block != b.block) return a.block < b.block;
    if (a.rank != b.rank) return a.rank < b.rank;
    return a.pos < b.pos;
  });
  // Per block, its accesses in rank order: the rank's state is that left by the earlier ranks;
  // the request's touches update it after its own accesses were judged.
  for (size_t i = 0; i < acc.size();) {
    const uint64_t block = acc[i].block;
    bool seen = false;
    int32_t owner = kUnowned;
    while (i < acc.size() && acc[i].block == block) {
      const uint32_t rank = acc[i].rank;
      const int32_t conv = keys.conversation[rank];
      for (; i < acc.size() && acc[i].block == block && acc[i].rank == rank; ++i) {
        if (!seen)
          out.first_miss.push_back({rank, acc[i].pos});
        else if (keys.has_split && (owner == kShared || (owner != kUnowned && owner != conv)))
          out.across.push_back({rank, acc[i].pos});
      }
      seen = true;
      if (owner == kUnowned)
        owner = conv;
      else if (owner != conv)
        owner = kShared;
    }
  }
  std::vector<Access>().swap(acc);
  auto by_rank = [](const FirstUseAccess& a, const FirstUseAccess& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.pos < b.pos;
  };
  std::sort(out.first_miss.begin(), out.first_miss.end(), by_rank);
  out.first_miss.erase(std::unique(out.first_miss.begin(), out.first_miss.end(),
                                   [](const FirstUseAccess& a, const FirstUseAccess& b) {
                                     return a.rank == b.rank;
                                   }),
                       out.first_miss.end());
  std::sort(out.across.begin(), out.across.end(), by_rank);
  return out;
}

std::string EncodeFirstUseAccesses(const std::vector<FirstUseAccess>& accesses) {
  static_assert(sizeof(FirstUseAccess) == 8);
  std::string out;
  Put(&out, kAccessMagic);
  Put(&out, kVersion);
  Put(&out, static_cast<uint64_t>(accesses.size()));
  PutArray(&out, accesses);
  return out;
}

Result<std::vector<FirstUseAccess>> DecodeFirstUseAccesses(std::string_view bytes) {
  Reader r(bytes, "accesses");
  uint64_t n = 0;
  std::vector<FirstUseAccess> out;
  if (!r.Header(kAccessMagic) || !r.Get(&n) || !r.GetArray(&out, n) || !r.done()) return r.Bad();
  return out;
}

std::vector<FirstUseAccess> MergeFirstMisses(const std::vector<FirstUseAccess>& a,
                                             const std::vector<FirstUseAccess>& b) {
  std::vector<FirstUseAccess> out;
  out.reserve(std::max(a.size(), b.size()));
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].rank < b[j].rank)) {
      out.push_back(a[i++]);
    } else if (i == a.size() || b[j].rank < a[i].rank) {
      out.push_back(b[j++]);
    } else {
      out.push_back({a[i].rank, std::min(a[i].pos, b[j].pos)});
      ++i, ++j;
    }
  }
  return out;
}

Result<std::vector<uint32_t>> FirstUseCuts(
    const FirstUseKeys& keys, const std::vector<std::vector<FirstUseAccess>>& first_misses) {
  const size_t ranks = keys.conversation.size();
  std::vector<uint32_t> cut(ranks);
  std::vector<uint8_t> covered(ranks, 0);
  for (size_t i = 0; i < ranks; ++i) {
    // The first block holding no tokens: ceil(L / bs) (0 for no tokens or no block size).
    const int64_t L = keys.input_tokens[i], bs = keys.block_size[i];
    const int64_t zero = L <= 0 || bs <= 0 ? 0 : (L + bs - 1) / bs;
    cut[i] = static_cast<uint32_t>(std::min<int64_t>(zero, std::numeric_limits<uint32_t>::max()));
  }
  for (const auto& part : first_misses)
    for (const FirstUseAccess& m : part) {
      if (m.rank >= ranks) return Status::Corrupt("first-use cuts: a rank past the trace");
      cut[m.rank] = std::min(cut[m.rank], m.pos);
      covered[m.rank] = 1;
    }
  for (size_t i = 0; i < ranks; ++i)
    if (!covered[i] && keys.measured[i])
      return Status::Corrupt("first-use cuts: no partition holds request " + std::to_string(i) +
                             "'s end (a map output is missing)");
  return cut;
}

FirstUseFigures FirstUseAcross(const std::vector<FirstUseAccess>& across, const FirstUseKeys& keys,
                               const std::vector<uint32_t>& cuts) {
  FirstUseFigures f;
  for (const FirstUseAccess& a : across) {
    if (a.rank >= cuts.size() || !keys.measured[a.rank] || a.pos >= cuts[a.rank]) continue;
    const int64_t tok = TokensAt(keys.input_tokens[a.rank], keys.block_size[a.rank], a.pos);
    if (a.rank >= keys.first_steady) f.steady_across += tok;
    if (a.rank >= keys.first_cold) f.cold_across += tok;
  }
  return f;
}

FirstUseFigures FirstUseFiguresOf(const FirstUseKeys& keys, const std::vector<uint32_t>& cuts,
                                  const std::vector<FirstUseFigures>& across_sums) {
  FirstUseFigures f;
  for (size_t i = 0; i < cuts.size() && i < keys.conversation.size(); ++i) {
    if (!keys.measured[i] || cuts[i] == 0) continue;
    // HitTokenCount (simulate/trace.h): the first `cut` blocks' tokens.
    const int64_t hit =
        std::min<int64_t>(static_cast<int64_t>(cuts[i]) * keys.block_size[i], keys.input_tokens[i]);
    if (i >= keys.first_steady) f.steady_hit += hit;
    if (i >= keys.first_cold) f.cold_hit += hit;
  }
  for (const FirstUseFigures& a : across_sums) {
    f.steady_across += a.steady_across;
    f.cold_across += a.cold_across;
  }
  return f;
}

}  // namespace ltl
