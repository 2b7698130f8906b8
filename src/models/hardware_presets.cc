// Hardware presets (see hardware_presets.h). Datasheets quote tensor peaks "with sparsity";
// the dense figure is half of it.
#include "models/hardware_presets.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "common/ascii.h"

namespace ltl {

// Where each figure was confirmed (all matched; none corrected):
// - H100 SXM: NVIDIA's H100 datasheet table as reproduced at archive-lib.hpctech.co.jp/gpuproduct/
//   nvidia-h100.html (BF16 1,979 / FP8 3,958 TFLOPS "shown with sparsity, 1/2 lower without"); the
//   exact dense 989.4 / 1,978.9 (the Hopper whitepaper's table) at glennklockwood.com/garden/
//   processors/h100. The whitepaper itself is not stored.
// - H200 SXM: lzwjava.github.io/nvidia-h200-gpu-specs-en (FP8 3,958 TFLOPS with sparsity, identical
//   to H100; same GH100 compute). NVIDIA's H200 datasheet itself is not stored.
// - B200 (HGX): the NVIDIA GB200 NVL72 / HGX B200 specification table as reproduced at
//   zdszero.github.io/Computer/Artificial_Intelligence/Hardware.html (HGX B200 per GPU: FP16/BF16
//   4.5 PFLOPS, FP8 9 PFLOPS with sparsity; 72 PFLOPS FP8 per 8 GPUs) and
//   glennklockwood.com/garden/processors/B200 (HGX B200 at 1,000 W: BF16 2,250 dense / 4,500
//   sparse, FP8 4,500 / 9,000).
// - MI300X: github.com/alpharomercoma/MI300X-vs-H200 METHODOLOGY.md @ 6077fdc7 (BF16 dense 1307.4,
//   FP8 dense 2614.9 TFLOP/s, quoting AMD's specification). AMD's datasheet itself is not stored.
const std::vector<GpuPreset>& GpuPresets() {
  static const std::vector<GpuPreset> gpus = {
      {"h100", "NVIDIA H100 SXM", 989.4, 1978.9,
       "NVIDIA H100 Tensor Core GPU datasheet: BF16 1,979 / FP8 3,958 TFLOPS with sparsity; dense "
       "989.4 / 1,978.9 in the NVIDIA H100 (Hopper) architecture whitepaper"},
      {"h200", "NVIDIA H200 SXM", 989.4, 1978.9,
       "NVIDIA H200 Tensor Core GPU datasheet: BF16 1,979 / FP8 3,958 TFLOPS with sparsity "
       "(same compute as H100, more and faster HBM)"},
      {"b200", "NVIDIA B200 (HGX B200)", 2250, 4500,
       "NVIDIA HGX B200 datasheet: 8 GPUs FP16/BF16 36 PFLOPS, FP8 72 PFLOPS with sparsity"},
      {"mi300x", "AMD Instinct MI300X", 1307.4, 2614.9,
       "AMD Instinct MI300X datasheet: BF16 1,307.4 / FP8 2,614.9 TFLOPS dense"},
  };
  return gpus;
}

const std::vector<LinkPreset>& LinkPresets() {
  // PCIe: 32 GT/s (Gen5) or 16 GT/s (Gen4) per lane x lanes x 128/130 encoding / 8 bits
  // (arithmetic from the PCIe line rates; 63.0 and 31.5 GB/s). SSDs: Samsung 9100 PRO 14,700 MB/s
  // read confirmed at news.warptechlab.com/news/215686385, Samsung 990 PRO 7,450 MB/s at
  // gamebastion.com/n/samsung-s-new-flagship-ssds-are-even-more/209329 (The Verge's launch report);
  // Crucial T705 14.5 GB/s: not confirmed from a stored source.
  static const std::vector<LinkPreset> links = {
      {"pcie-gen5-x16", 63.0, "PCIe 5.0: 32 GT/s x 16 lanes x 128b/130b = 63.0 GB/s per direction"},
      {"pcie-gen4-x16", 31.5, "PCIe 4.0: 16 GT/s x 16 lanes x 128b/130b = 31.5 GB/s per direction"},
      {"nvme-gen5", 14.0,
       "PCIe 5.0 x4 NVMe SSD sequential read (Samsung 9100 PRO: 14.7 GB/s; Crucial T705: 14.5 "
       "GB/s), "
       "rounded down"},
      {"nvme-gen4", 7.0,
       "PCIe 4.0 x4 NVMe SSD sequential read (Samsung 990 PRO: 7.45 GB/s), rounded down"},
  };
  return links;
}

Result<GpuPreset> FindGpuPreset(const std::string& id) {
  const std::string key = AsciiLowered(id);
  std::string known;
  for (const GpuPreset& g : GpuPresets()) {
    if (g.id == key) return g;
    known += (known.empty() ? "" : ", ") + g.id;
  }
  return Status::NotFound(fmt::format("unknown GPU '{}' (known: {})", id, known));
}

Result<double> ParseBandwidth(const std::string& text) {
  const std::string t = AsciiLowered(text);
  for (const LinkPreset& l : LinkPresets())
    if (l.id == t) return l.gb_per_s * 1e9;
  struct Unit {
    const char* suffix;
    double bytes;
  };
  static constexpr Unit kUnits[] = {
      {"gb/s", 1e9}, {"mb/s", 1e6}, {"tb/s", 1e12}, {"gib/s", 1073741824.0}, {"mib/s", 1048576.0}};
  for (const Unit& u : kUnits) {
    const std::string_view suffix = u.suffix;
    if (t.size() <= suffix.size() || !t.ends_with(suffix)) continue;
    // "Gb/s" (bits) and "GB/s" (bytes) differ only in case.
    const bool bits = text[text.size() - suffix.size() + (suffix[1] == 'i' ? 2 : 1)] == 'b';
    double v = 0;
    const char* end = text.data() + text.size() - suffix.size();
    auto [p, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || p != end || !std::isfinite(v) || !(v > 0)) break;
    return v * u.bytes / (bits ? 8.0 : 1.0);
  }
  std::string presets;
  for (const LinkPreset& l : LinkPresets()) presets += (presets.empty() ? "" : ", ") + l.id;
  return Status::InvalidArgument(fmt::format(
      "bad bandwidth '{}' (a rate such as 50GB/s or 400Gb/s, or a preset: {})", text, presets));
}

}  // namespace ltl
