// Prefill compute of a model: the matrix parameters one token passes through (dense, or a MoE
// layer's routed top-k plus shared experts) and attention's context-length term, read from a
// Hugging Face config.json or the built-in catalog (the same reader over each catalog model's
// config values). FLOPs follow Kaplan et al. 2020 (2 FLOPs per parameter per token) and PaLM
// (Chowdhery et al. 2022, app. B: attention adds 2 x heads x (qk + v dims) per query-key pair per
// layer); causal prefill means the token at position p attends to p keys (docs/SEMANTICS.md).
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace ltl {

struct ComputeShape {
  std::string name;
  std::string source;           // where the values come from
  double active_params = 0;     // matrix parameters per token, embeddings and LM head excluded
  double total_params = 0;      // all matrix parameters (every expert), embeddings excluded
  uint32_t attn_layers = 0;     // full-context attention layers
  uint32_t window_layers = 0;   // sliding-window attention layers
  uint64_t window = 0;          // their window (keys)
  uint64_t sparse_topk = 0;     // > 0: sparse attention reads at most this many keys per query
  uint32_t heads = 0;           // query heads
  uint32_t qk_dim = 0;          // per head: query/key width
  uint32_t v_dim = 0;           // per head: value width
  uint32_t indexer_layers = 0;  // sparse attention's indexer (scores every key)
  uint32_t indexer_heads = 0;
  uint32_t indexer_dim = 0;

  // FLOPs to prefill prompt positions [from, to) (0-based) with keys [0, to) in the cache:
  // 2 x active_params per token plus the attention and indexer terms.
  double PrefillFlops(uint64_t from, uint64_t to) const;
  // The attention term alone for one query at position p (p + 1 keys).
  double AttentionFlopsAt(uint64_t p) const;
};

Result<ComputeShape> ComputeShapeFromHfConfigText(const std::string& text, const std::string& path);
Result<ComputeShape> ComputeShapeFromHfConfig(const std::string& path);
// Catalog ids as kv_models (FindKvModel); NotFound when the catalog has no compute values.
Result<ComputeShape> FindComputeShape(const std::string& id);

}  // namespace ltl
