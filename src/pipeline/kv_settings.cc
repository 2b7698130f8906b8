// Resolving the KV-cache settings of a profile run (see kv_settings.h).
#include "pipeline/kv_settings.h"

#include <fmt/format.h>

#include "common/ascii.h"
#include "common/units.h"
#include "models/hardware_presets.h"
#include "models/hf_config.h"
#include "models/kv_models.h"
#include "models/kv_tiers.h"
#include "models/model_compute.h"

namespace ltl {
namespace {

Result<TimeModelRequest> ResolveTimeModel(const KvCacheSettings& a, const TiersRequest& tiers) {
  TimeModelRequest t;
  Result<ComputeShape> shape = Status::NotFound("");
  if (!a.compute_model.empty()) {
    shape = FindComputeShape(a.compute_model);
  } else if (!a.model_config.empty()) {
    shape = ComputeShapeFromHfConfig(a.model_config);
  } else if (!a.model.empty() || !a.kvcache_sim.empty()) {
    shape = FindComputeShape(a.model.empty() ? a.kvcache_sim : a.model);
  } else {
    return t;  // no model: tiers without times
  }
  if (!shape.ok()) return Status::InvalidArgument("time model: " + shape.status().message());
  auto gpu = FindGpuPreset(a.gpu);
  if (!gpu.ok()) return Status::InvalidArgument("--gpu: " + gpu.status().message());
  t.present = true;
  t.compute = *shape;
  t.gpu = gpu->name;
  t.gpu_source = gpu->source;
  t.precision = a.compute_precision;
  t.peak_flops = (a.compute_precision == "fp8" ? gpu->fp8_tflops : gpu->bf16_tflops) * 1e12;
  t.mfu = a.mfu;
  t.decode_tokens_per_s = a.decode_rate;
  t.gpu_hour_price = a.gpu_hour_price;
  const size_t n = tiers.tiers.size();
  t.tier_bytes_per_s.assign(n, 0);
  t.tier_bandwidth_source.assign(n, "");
  for (size_t k = 1; k < n; ++k) {
    const std::string preset = k == 1 ? "pcie-gen5-x16" : "nvme-gen5";
    t.tier_bytes_per_s[k] = *ParseBandwidth(preset);
    t.tier_bandwidth_source[k] = preset + " (default)";
  }
  t.tier_bandwidth_source[0] = "in HBM: no transfer";
  if (!a.tier_bandwidth.empty()) {
    size_t start = 0;
    const std::string& s = a.tier_bandwidth;
    while (start <= s.size()) {
      size_t comma = s.find(',', start);
      if (comma == std::string::npos) comma = s.size();
      const std::string item = s.substr(start, comma - start);
      start = comma + 1;
      const size_t eq = item.find('=');
      if (eq == std::string::npos)
        return Status::InvalidArgument("--tier-bandwidth: '" + item + "': expected NAME=RATE");
      const std::string name = item.substr(0, eq), rate = item.substr(eq + 1);
      size_t k = 0;
      while (k < n && AsciiLowered(tiers.tiers[k].name) != AsciiLowered(name)) ++k;
      if (k == n)
        return Status::InvalidArgument("--tier-bandwidth: no tier named '" + name + "' in --tiers");
      auto bw = ParseBandwidth(rate);
      if (!bw.ok()) return Status::InvalidArgument("--tier-bandwidth: " + bw.status().message());
      t.tier_bytes_per_s[k] = k == 0 ? 0 : *bw;
      t.tier_bandwidth_source[k] = k == 0 ? "in HBM: no transfer" : rate;
    }
  }
  if (n > 1 && tiers.bits_per_token == 0)
    return Status::InvalidArgument(
        "time model: reading lower tiers needs KV bytes per token (--model, --model-config or "
        "--kv-bytes-per-token)");
  return t;
}

}  // namespace

Result<TiersRequest> ResolveTiersArgs(const KvCacheSettings& a, const KvCacheRequest& kv) {
  TiersRequest req;
  if (a.tiers.empty()) {
    if (!a.tier_only_option.empty())
      return Status::InvalidArgument(a.tier_only_option +
                                     " applies to the tiered store: give --tiers too (e.g. "
                                     "--tiers hbm=80GiB,dram=1TiB)");
    return req;
  }
  auto parsed = ParseTierList(a.tiers);
  if (!parsed.ok()) return Status::InvalidArgument("--tiers: " + parsed.status().message());
  req.tiers = *parsed;
  req.inclusive = a.tier_mode == "inclusive";
  if (kv.memory) req.bits_per_token = kv.memory->bits_per_token;
  for (const TierSize& t : req.tiers)
    if (t.bytes > 0 && req.bits_per_token == 0)
      return Status::InvalidArgument("--tiers: tier '" + t.name + "' is sized in bytes (" + t.text +
                                     "): give --model, --model-config or --kv-bytes-per-token, or "
                                     "a size in tokens (e.g. 4M)");
  auto time = ResolveTimeModel(a, req);
  if (!time.ok()) return time.status();
  req.time = *time;
  return req;
}

Result<KvCacheRequest> ResolveKvCacheArgs(const KvCacheSettings& a) {
  KvCacheRequest req;
  req.threads = a.threads;
  std::string model = a.model;
  std::string policies = a.policies;
  if (!a.kvcache_sim.empty()) {
    if (!model.empty() && model != a.kvcache_sim)
      return Status::InvalidArgument("--kvcache-sim " + a.kvcache_sim + " conflicts with --model " +
                                     model);
    model = a.kvcache_sim;
    if (policies.empty()) policies = "fifo,lru,optimal";
  }
  if (!policies.empty()) {
    auto parsed = ParseEvictionList(policies);
    if (!parsed.ok()) return Status::InvalidArgument("--policies: " + parsed.status().message());
    req.policies = *parsed;
  }

  const int sources = !model.empty() + !a.model_config.empty() + (a.kv_bytes_per_token > 0);
  if (sources > 1)
    return Status::InvalidArgument(
        "give only one of --model (or --kvcache-sim), --model-config, --kv-bytes-per-token");
  if (!a.kv_precision.empty() && a.kv_bytes_per_token > 0)
    return Status::InvalidArgument(
        "--kv-precision applies to --model / --model-config; --kv-bytes-per-token is already in "
        "bytes");
  auto precision = ParseKvPrecision(a.kv_precision.empty() ? "bf16" : a.kv_precision);
  if (!precision.ok())
    return Status::InvalidArgument("--kv-precision: " + precision.status().message());

  if (sources == 1) {
    KvMemory m;
    if (!model.empty()) {
      auto found = FindKvModel(model);
      if (!found.ok()) return Status::InvalidArgument("--model: " + found.status().message());
      m.model = found->id;
      m.source = "catalog";
      m.precision = std::string(KvPrecisionName(*precision));
      m.derivation = found->arch.Derivation(*precision);
      m.bits_per_token = KvBitsPerToken(found->arch, *precision);
    } else if (!a.model_config.empty()) {
      auto cfg = KvArchitectureFromHfConfig(a.model_config);
      if (!cfg.ok()) return cfg.status();
      m.model = cfg->name;
      m.source = "config " + a.model_config;
      m.precision = std::string(KvPrecisionName(*precision));
      m.derivation = cfg->arch.Derivation(*precision);
      if (!cfg->note.empty()) m.derivation += " (" + cfg->note + ")";
      m.bits_per_token = KvBitsPerToken(cfg->arch, *precision);
    } else {
      m.model = "custom";
      m.source = "--kv-bytes-per-token";
      m.bits_per_token = a.kv_bytes_per_token * 8;
    }
    if (m.bits_per_token == 0) return Status::InvalidArgument("KV bytes per token came out as 0");
    req.memory = m;
    if (a.cache_gib.empty()) {
      req.gib = DefaultCacheGib();
    } else {
      auto gib = ParseDecimalList(a.cache_gib);
      if (!gib.ok()) return Status::InvalidArgument("--cache-gib: " + gib.status().message());
      for (double g : *gib) {
        if (!(g > 0)) return Status::InvalidArgument("--cache-gib: sizes must be above 0");
        // 2^30 GiB (1 EiB): past it the block count overflowed into a 0-block cache labelled
        // "-0 GiB" (issue 35, item 12).
        if (g > 1073741824.0)
          return Status::InvalidArgument(fmt::format("--cache-gib: {:g}", g) +
                                         " is out of range (0, 1073741824] GiB");
      }
      req.gib = *gib;
    }
  } else if (!a.cache_gib.empty()) {
    return Status::InvalidArgument(
        "--cache-gib needs the KV size per token: give --model, --model-config or "
        "--kv-bytes-per-token");
  }
  return req;
}

}  // namespace ltl
