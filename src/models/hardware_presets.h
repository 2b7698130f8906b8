// Named hardware for the time model: GPU dense (no sparsity) tensor peaks at bf16 and fp8, and
// link bandwidths for moving KV blocks from a lower tier into HBM. Every figure names its
// vendor source (docs/SEMANTICS.md, "Time model").
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace ltl {

struct GpuPreset {
  std::string id;  // lower case: h100, h200, b200, mi300x
  std::string name;
  double bf16_tflops = 0;  // dense
  double fp8_tflops = 0;   // dense
  std::string source;
};

struct LinkPreset {
  std::string id;       // pcie-gen5-x16, pcie-gen4-x16, nvme-gen4, nvme-gen5
  double gb_per_s = 0;  // decimal GB/s, one direction
  std::string source;
};

const std::vector<GpuPreset>& GpuPresets();
const std::vector<LinkPreset>& LinkPresets();
Result<GpuPreset> FindGpuPreset(const std::string& id);
// A preset id or a rate with a unit: "50GB/s", "12.5GB/s", "400Gb/s" (bits), "pcie-gen5-x16".
Result<double> ParseBandwidth(const std::string& text);  // bytes per second

}  // namespace ltl
