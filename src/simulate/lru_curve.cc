// One-pass LRU curve (see lru_curve.h for the method).
#include "simulate/lru_curve.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/huge_pages.h"
#include "hash/block_sampler.h"
#include "simulate/fenwick.h"

namespace ltl {
namespace {

// Log-spaced stack-distance bins for the sample groups' error estimate: distances 0..31 one bin
// each, then 16 bins per doubling (each at most 1/16 of its distance wide).
constexpr size_t kDistanceBins = 32 + 27 * 16;
size_t DistanceBin(uint32_t d) {
  if (d < 32) return d;
  const int e = 31 - __builtin_clz(d);  // >= 5
  return 32 + static_cast<size_t>(e - 5) * 16 + ((d >> (e - 4)) & 15);
}
// The first distance of bin k (k = kDistanceBins: one past the largest distance).
uint64_t BinStart(size_t k) {
  if (k < 32) return k;
  const size_t e = 5 + (k - 32) / 16, sub = (k - 32) % 16;
  return uint64_t{16 + sub} << (e - 4);
}
// 97.5% quantile of Student's t with kSampleGroups - 1 = 31 degrees of freedom.
constexpr double kT31 = 2.040;
static_assert(kSampleGroups == 32, "kT31 is the t quantile for 32 groups");

constexpr uint32_t kNever = std::numeric_limits<uint32_t>::max();
constexpr int32_t kOwnerNone = -1;
constexpr int32_t kOwnerMany = -2;

// Last-touch slots of every block. Live slots are bits in a bitmap; a Fenwick tree counts live
// slots per 64-slot word, so it is 64 times smaller than the slot range and stays in cache. A
// block's stack distance is the number of live slots after its own. The slot range is 8x the number
// of blocks (a bit each), so compaction runs once every 7N or more touches; it renumbers each
// block's slot to its rank among live slots with one sequential pass over the blocks (no slot ->
// block table). Per distinct block: 4 bytes of last slot, 1 byte of bitmap, ~1 byte of tree and
// counts.
class StackDistances {
 public:
  explicit StackDistances(uint32_t num_blocks)
      : slots_(SlotRange(num_blocks)),
        bits_(slots_ / 64, 0),
        live_before_(slots_ / 64, 0),
        tree_(slots_ / 64) {
    ResizeHuge(&last_, num_blocks, kNever);  // the largest of them (common/huge_pages.h)
  }

  uint32_t LastSlot(uint32_t b) const { return last_[b]; }

  // Number of distinct blocks touched since b's last touch; kNever if b was never touched.
  uint32_t Distance(uint32_t b) const {
    uint32_t s = last_[b];
    if (s == kNever) return kNever;
    size_t w = s / 64;
    uint64_t upto = bits_[w] & (~uint64_t{0} >> (63 - s % 64));  // live slots <= s in its word
    int64_t at_or_before = (w ? tree_.Prefix(w - 1) : 0) + __builtin_popcountll(upto);
    return static_cast<uint32_t>(live_ - at_or_before);
  }

  void Touch(uint32_t b) {
    uint32_t s = last_[b];
    if (s != kNever) {
      bits_[s / 64] &= ~(uint64_t{1} << (s % 64));  // slot s is dead: Compact skips it
      last_[b] = kNever;
      Pend(&removed_, s / 64, -1);
    } else {
      ++live_;
    }
    if (next_ == slots_) Compact();
    last_[b] = static_cast<uint32_t>(next_);
    bits_[next_ / 64] |= uint64_t{1} << (next_ % 64);
    Pend(&added_, next_ / 64, +1);
    ++next_;
  }

  // Applies the coalesced tree updates; call after a request's touches, before the next query.
  void Flush() {
    Apply(&removed_);
    Apply(&added_);
  }

 private:
  struct Pending {
    size_t word = 0;
    int32_t delta = 0;
  };
  // 8 slots per block, 64-aligned, below kNever (slot numbers are 32-bit).
  static size_t SlotRange(uint32_t num_blocks) {
    const size_t want = (8 * static_cast<size_t>(num_blocks) + 127) / 64 * 64;
    return std::min<size_t>(want, (size_t{kNever} - 64) / 64 * 64);
  }
  // Consecutive touches mostly hit the same words (history resent in order): coalesce them.
  void Pend(Pending* p, size_t word, int32_t delta) {
    if (p->delta != 0 && p->word != word) Apply(p);
    p->word = word;
    p->delta += delta;
  }
  void Apply(Pending* p) {
    if (p->delta != 0) tree_.Add(p->word, p->delta);
    p->delta = 0;
  }

  // Renumbers live slots 0..live-1 in touch order (each block's slot becomes its rank among the
  // live slots) and rebuilds the bitmap and the tree.
  void Compact() {
    Flush();
    const size_t words = (next_ + 63) / 64;
    uint32_t live = 0;
    for (size_t w = 0; w < words; ++w) {
      live_before_[w] = live;
      live += static_cast<uint32_t>(__builtin_popcountll(bits_[w]));
    }
    for (uint32_t& s : last_) {
      if (s == kNever) continue;
      const size_t w = s / 64;
      const uint64_t below = bits_[w] & ((uint64_t{1} << (s % 64)) - 1);
      s = live_before_[w] + static_cast<uint32_t>(__builtin_popcountll(below));
    }
    std::fill(bits_.begin(), bits_.end(), 0);
    std::fill(bits_.begin(), bits_.begin() + live / 64, ~uint64_t{0});
    if (live % 64) bits_[live / 64] = (uint64_t{1} << (live % 64)) - 1;
    tree_.Reset(bits_.size());
    for (size_t w = 0; w < bits_.size(); ++w)
      if (bits_[w]) tree_.Add(w, __builtin_popcountll(bits_[w]));
    next_ = live;
  }

  std::vector<uint32_t> last_;
  size_t slots_;
  std::vector<uint64_t> bits_;
  std::vector<uint32_t> live_before_;  // Compact's scratch: live slots before each word
  Fenwick tree_;
  Pending removed_, added_;
  size_t next_ = 0;
  int64_t live_ = 0;
};

}  // namespace

LruCurve LruCurve::Compute(const Trace& trace, const ReplayOptions& options) {
  return ComputeFrom(trace, options, FirstMeasuredIndex(trace, options));
}

LruCurve LruCurve::ComputeFrom(const Trace& trace, const ReplayOptions& options,
                               size_t first_measured) {
  return Run(trace, options, first_measured, nullptr, nullptr);
}

LruCurve LruCurve::ComputeWithTiers(const Trace& trace, const ReplayOptions& options,
                                    size_t first_measured, const TierHierarchies& tiers,
                                    TierSplit* split) {
  return Run(trace, options, first_measured, &tiers, split);
}

LruCurve LruCurve::Run(const Trace& trace, const ReplayOptions& options, size_t first_measured,
                       const TierHierarchies* tiers, TierSplit* split) {
  LruCurve c;
  const size_t num_t = split && tiers ? tiers->tiers() : 0;
  const size_t num_h = num_t ? tiers->cumulative_blocks.size() : 0;
  if (split) {
    *split = TierSplit{};
    split->hierarchies = num_h;
    split->tiers = num_t;
    split->total.assign(num_h * num_t, 0);
  }
  c.has_split_ = trace.num_conversations > 0;
  // The three arrays per block are the run's largest: huge pages (common/huge_pages.h) fault
  // them in 2 MiB at a time (issue 30).
  std::vector<int64_t> total, across;
  std::vector<int32_t> owner;
  ResizeHuge(&total, static_cast<size_t>(trace.num_blocks) + 1, int64_t{0});
  ResizeHuge(&across, c.has_split_ ? total.size() : 0, int64_t{0});
  ResizeHuge(&owner, c.has_split_ ? size_t{trace.num_blocks} : 0, kOwnerNone);
  StackDistances sd(trace.num_blocks);
  std::vector<uint32_t> dist;
  const bool sampled = trace.sampled();
  c.rate_ = trace.sample_rate;
  if (sampled) {
    c.group_bins_.assign(kSampleGroups * kDistanceBins, 0);
    c.group_kept_tokens_.assign(kSampleGroups, 0);
  }

  const size_t n = trace.requests.size();
  uint64_t max_d = 0;
  BlockCursor cursor(trace);
  for (size_t i = 0; i < n; ++i) {
    const TraceRequest& r = trace.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    const uint32_t k = r.num_blocks;
    if (i >= first_measured && !r.replay_only) {
      c.measured_tokens_ += r.input_tokens;
      ++c.measured_requests_;
      if (sampled)  // the tokens the kept blocks stand for, hit or not: the ratio's denominator
        for (uint32_t j = 0; j < k; ++j) {
          const int64_t tok = TraceBlockTokens(trace, r, j, ids[j]);
          c.kept_tokens_ += tok;
          c.group_kept_tokens_[trace.group[ids[j]]] += tok;
        }
      uint32_t* by_tier = nullptr;  // this request's row of the split
      if (num_h) {
        split->request.push_back(static_cast<uint32_t>(i));
        split->by_request.resize(split->by_request.size() + num_h * num_t, 0);
        by_tier = split->by_request.data() + split->by_request.size() - num_h * num_t;
      }
      uint32_t running = 0;
      uint32_t d = 0, prev_slot = kNever;
      for (uint32_t j = 0; j < k; ++j) {
        // A block whose last touch sits right beside the previous block's needs no tree query:
        // its distance differs by exactly one (history resent in order touches runs of slots).
        uint32_t slot = sd.LastSlot(ids[j]);
        if (slot == kNever) break;
        if (prev_slot != kNever && slot + 1 == prev_slot)
          ++d;
        else if (prev_slot != kNever && slot == prev_slot + 1)
          --d;
        else
          d = sd.Distance(ids[j]);
        prev_slot = slot;
        running = std::max(running, d);
        int64_t tok = TraceBlockTokens(trace, r, j, ids[j]);
        if (tok == 0) break;
        total[running] += tok;
        if (sampled)
          c.group_bins_[trace.group[ids[j]] * kDistanceBins + DistanceBin(running)] += tok;
        if (c.has_split_) {
          int32_t o = owner[ids[j]];
          if (o == kOwnerMany || (o != kOwnerNone && o != r.conversation)) across[running] += tok;
        }
        max_d = std::max<uint64_t>(max_d, running);
        for (size_t h = 0; h < num_h; ++h) {
          // Held somewhere in hierarchy h iff the whole leading run is: running < its total.
          const std::vector<uint64_t>& cum = tiers->cumulative_blocks[h];
          if (running >= cum.back()) continue;
          size_t t = 0;
          while (d >= cum[t]) ++t;  // d <= running < cum.back(): stops at the last tier
          by_tier[h * num_t + t] += static_cast<uint32_t>(tok);
          split->total[h * num_t + t] += tok;
        }
      }
    }
    if (options.order == EvictOrder::kTailFirst) {
      for (uint32_t j = k; j-- > 0;) sd.Touch(ids[j]);
    } else {
      for (uint32_t j = 0; j < k; ++j) sd.Touch(ids[j]);
    }
    sd.Flush();
    if (c.has_split_) {
      for (uint32_t j = 0; j < k; ++j) {
        int32_t& o = owner[ids[j]];
        if (o == kOwnerNone)
          o = r.conversation;
        else if (o != r.conversation)
          o = kOwnerMany;
      }
    }
  }
  for (size_t d = 1; d < total.size(); ++d) total[d] += total[d - 1];
  for (size_t d = 1; d < across.size(); ++d) across[d] += across[d - 1];
  c.total_ = std::move(total);
  c.across_ = std::move(across);
  c.max_distance_ = max_d;
  return c;
}

LruCurve LruCurve::ComputeCeiling(const Trace& trace, const ReplayOptions& options) {
  // Run's pass at an unbounded capacity: every hit lands in one histogram cell (total_ and
  // across_ of size 1), the sample groups' hits in their first distance bin (ErrorPoints at
  // kUnboundedCapacity sums all bins). Owners are updated as Run updates them.
  LruCurve c;
  c.ceiling_only_ = true;
  c.has_split_ = trace.num_conversations > 0;
  const size_t first_measured = FirstMeasuredIndex(trace, options);
  std::vector<uint64_t> seen((static_cast<size_t>(trace.num_blocks) + 63) / 64, 0);
  std::vector<int32_t> owner(c.has_split_ ? size_t{trace.num_blocks} : 0, kOwnerNone);
  const bool sampled = trace.sampled();
  c.rate_ = trace.sample_rate;
  if (sampled) {
    c.group_bins_.assign(kSampleGroups * kDistanceBins, 0);
    c.group_kept_tokens_.assign(kSampleGroups, 0);
  }
  const auto was_seen = [&](uint32_t b) { return (seen[b / 64] >> (b % 64)) & 1; };
  int64_t total = 0, across = 0;
  const size_t n = trace.requests.size();
  BlockCursor cursor(trace);
  for (size_t i = 0; i < n; ++i) {
    const TraceRequest& r = trace.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    const uint32_t k = r.num_blocks;
    if (i >= first_measured && !r.replay_only) {
      c.measured_tokens_ += r.input_tokens;
      ++c.measured_requests_;
      if (sampled)
        for (uint32_t j = 0; j < k; ++j) {
          const int64_t tok = TraceBlockTokens(trace, r, j, ids[j]);
          c.kept_tokens_ += tok;
          c.group_kept_tokens_[trace.group[ids[j]]] += tok;
        }
      for (uint32_t j = 0; j < k; ++j) {
        if (!was_seen(ids[j])) break;
        const int64_t tok = TraceBlockTokens(trace, r, j, ids[j]);
        if (tok == 0) break;
        total += tok;
        if (sampled) c.group_bins_[trace.group[ids[j]] * kDistanceBins] += tok;
        if (c.has_split_) {
          const int32_t o = owner[ids[j]];
          if (o == kOwnerMany || (o != kOwnerNone && o != r.conversation)) across += tok;
        }
      }
    }
    for (uint32_t j = 0; j < k; ++j) seen[ids[j] / 64] |= uint64_t{1} << (ids[j] % 64);
    if (c.has_split_) {
      for (uint32_t j = 0; j < k; ++j) {
        int32_t& o = owner[ids[j]];
        if (o == kOwnerNone)
          o = r.conversation;
        else if (o != r.conversation)
          o = kOwnerMany;
      }
    }
  }
  c.total_.assign(1, total);
  if (c.has_split_) c.across_.assign(1, across);
  return c;
}

uint64_t LruCurve::SampledCapacity(uint64_t capacity_blocks) const {
  if (rate_ >= 1) return capacity_blocks;
  const double c = std::ceil(static_cast<double>(capacity_blocks) * rate_);
  return c >= 1.8e19 ? kUnboundedCapacity : static_cast<uint64_t>(c);
}

int64_t LruCurve::Scale(int64_t sampled_tokens) const {
  if (group_bins_.empty()) return sampled_tokens;
  if (kept_tokens_ <= 0 || rate_ <= 0) return 0;
  // Misses scaled by 1/R (Horvitz-Thompson on the kept blocks' missed tokens) off the exact
  // measured tokens: lru_curve.h says why misses and not hits.
  const double missed = static_cast<double>(kept_tokens_ - sampled_tokens) / rate_;
  const double hit = static_cast<double>(measured_tokens_) - missed;
  return hit <= 0 ? 0 : static_cast<int64_t>(std::llround(hit));
}

int64_t LruCurve::ScaleAcross(int64_t sampled_across, int64_t sampled_hit,
                              int64_t scaled_hit) const {
  if (group_bins_.empty()) return sampled_across;
  if (sampled_hit <= 0) return 0;
  // The across-conversation share of the kept hits, applied to the estimated hits.
  return static_cast<int64_t>(
      std::llround(static_cast<double>(scaled_hit) * static_cast<double>(sampled_across) /
                   static_cast<double>(sampled_hit)));
}

HitTokens LruCurve::Clamped(HitTokens h) const {
  // A scaled estimate can pass the measured tokens (every kept block hit, more kept than R of
  // them): no cache serves more than was asked.
  h.hit = std::min(h.hit, measured_tokens_);
  h.across = std::min(h.across, h.hit);
  return h;
}

HitTokens LruCurve::At(uint64_t capacity_blocks) const {
  HitTokens h;
  const uint64_t cs = SampledCapacity(capacity_blocks);
  if (cs == 0 || total_.empty()) return h;
  uint64_t d = std::min<uint64_t>(cs - 1, total_.size() - 1);
  h.hit = Scale(total_[d]);
  if (has_split_) h.across = ScaleAcross(across_[d], total_[d], h.hit);
  return Clamped(h);
}

HitTokens LruCurve::Unbounded() const {
  HitTokens h;
  if (total_.empty()) return h;
  h.hit = Scale(total_.back());
  if (has_split_) h.across = ScaleAcross(across_.back(), total_.back(), h.hit);
  return Clamped(h);
}

uint64_t LruCurve::saturation_blocks() const {
  // The smallest C with ceil(C * R) > max_distance_: floor(max_distance_ / R) + 1.
  if (rate_ >= 1) return max_distance_ + 1;
  return static_cast<uint64_t>(std::floor(static_cast<double>(max_distance_) / rate_)) + 1;
}

double LruCurve::ErrorPoints(uint64_t capacity_blocks) const {
  if (group_bins_.empty() || measured_tokens_ <= 0 || rate_ <= 0 || rate_ >= 1) return 0;
  const uint64_t cs =
      capacity_blocks == kUnboundedCapacity ? kUnboundedCapacity : SampledCapacity(capacity_blocks);
  // Group g is a sample at rate R / G: its estimate of the hit rate is one minus its missed
  // tokens scaled by G / R over the measured tokens (a group with no kept tokens estimates nothing
  // and is left out).
  double est[kSampleGroups];
  unsigned n = 0;
  double mean = 0;
  for (unsigned g = 0; g < kSampleGroups; ++g) {
    if (group_kept_tokens_[g] <= 0) continue;
    int64_t hit = 0;
    for (size_t k = 0; k < kDistanceBins && BinStart(k + 1) <= cs; ++k)
      hit += group_bins_[g * kDistanceBins + k];
    // The group's own estimate, by the estimator Scale uses, at the group's rate R / G.
    est[n] = 1.0 - static_cast<double>(group_kept_tokens_[g] - hit) * kSampleGroups /
                       (rate_ * static_cast<double>(measured_tokens_));
    mean += est[n++];
  }
  if (n < 2) return 100.0;  // nothing to measure the spread with: the whole range
  mean /= n;
  double ss = 0;
  for (unsigned g = 0; g < n; ++g) ss += (est[g] - mean) * (est[g] - mean);
  const double se = std::sqrt(ss / (n * (n - 1.0)));
  const double selection = 100.0 * kT31 * se;
  if (cs == kUnboundedCapacity || measured_tokens_ <= 0) return selection;
  // The distortion of stack distances: a block at true distance D has ~Binomial(D, R) kept blocks
  // above it, so capacity C is read at ceil(C * R) +- 1.96 sqrt(C * R) (95%); the curve's own
  // change over that range is added to the selection term in quadrature.
  const double spread = 1.96 * std::sqrt(static_cast<double>(cs));
  const auto rate_at = [&](double sampled_capacity) {
    if (sampled_capacity < 1 || total_.empty()) return 0.0;
    const uint64_t d =
        std::min<uint64_t>(static_cast<uint64_t>(sampled_capacity) - 1, total_.size() - 1);
    return 100.0 * static_cast<double>(Scale(total_[d])) / static_cast<double>(measured_tokens_);
  };
  const double here = rate_at(static_cast<double>(cs));
  const double blur = std::max(std::fabs(rate_at(static_cast<double>(cs) + spread) - here),
                               std::fabs(here - rate_at(static_cast<double>(cs) - spread)));
  return std::sqrt(selection * selection + blur * blur);
}

std::vector<CurvePoint> LruCurve::Dense(size_t max_points) const {
  std::vector<CurvePoint> all;
  int64_t prev = 0;
  for (size_t d = 0; d < total_.size(); ++d) {
    if (total_[d] != prev) {
      // The smallest capacity whose sampled capacity reaches d + 1: floor(d / R) + 1.
      const uint64_t cap =
          rate_ >= 1 ? d + 1
                     : static_cast<uint64_t>(std::floor(static_cast<double>(d) / rate_)) + 1;
      all.push_back({cap, At(cap)});
      prev = total_[d];
    }
  }
  if (all.size() <= max_points || max_points < 2) return all;
  // Keep the first point at or past each of max_points log-spaced capacities, plus the last.
  std::vector<CurvePoint> out;
  double lo = std::log(static_cast<double>(all.front().capacity_blocks));
  double hi = std::log(static_cast<double>(all.back().capacity_blocks));
  double step = (hi - lo) / static_cast<double>(max_points - 1);
  double next = lo;
  for (size_t i = 0; i + 1 < all.size(); ++i) {
    if (std::log(static_cast<double>(all[i].capacity_blocks)) + 1e-12 >= next) {
      out.push_back(all[i]);
      next = std::log(static_cast<double>(all[i].capacity_blocks)) + step;
    }
  }
  out.push_back(all.back());
  return out;
}

}  // namespace ltl
