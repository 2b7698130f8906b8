// Which --model-dir NAME=DIR serves a request: NAME against the request's model name (the log's
// model field, else the body's "model"), ignoring ASCII case and any provider or organisation
// prefix on either side ("Qwen3-8B" serves "Qwen/Qwen3-8B" and "hosted_vllm/qwen/qwen3-8b").
// An empty NAME serves every request.
#pragma once

#include <string_view>

#include "common/ascii.h"

namespace ltl {

inline std::string_view ModelBaseName(std::string_view name) {
  size_t slash = name.rfind('/');
  return slash == std::string_view::npos ? name : name.substr(slash + 1);
}

inline bool ModelNameMatches(std::string_view want, std::string_view model) {
  if (want.empty()) return true;
  std::string_view a = ModelBaseName(want);
  return !a.empty() && EqualsIgnoreAsciiCase(a, ModelBaseName(model));
}

}  // namespace ltl
