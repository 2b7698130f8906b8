// The KV memory of a profile as the report pages need it: bytes per token and the model name when
// --model (or --model-config / --kv-bytes-per-token) was given, so sizes can be shown in GiB too.
#pragma once

#include <string>

#include "analyze/profile.h"

namespace ltl {

// KV cache bytes per token, or 0 when no model was given.
inline double KvBytesPerToken(const Profile& p) {
  return p.kv_cache.present && p.kv_cache.has_memory ? p.kv_cache.memory.bytes_per_token() : 0.0;
}
// The model (catalog id, config name or "custom"); meaningful when KvBytesPerToken(p) > 0.
inline const std::string& KvModel(const Profile& p) {
  return p.kv_cache.memory.model;
}

}  // namespace ltl
