// A label -> count map as a report.json object in linear time (nlohmann's ordered_json searches its
// keys linearly on every insertion, which made 200,000 model names take minutes). The empty label
// is written as "unknown" (merged with a label of that name).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace ltl {

inline nlohmann::ordered_json CountsJson(const std::map<std::string, uint64_t>& counts) {
  using Json = nlohmann::ordered_json;
  Json::object_t object;
  uint64_t unknown = 0;
  bool has_unknown = false;
  for (const auto& [label, n] : counts) {
    if (label.empty() || label == "unknown") {
      unknown += n;
      has_unknown = true;
      continue;
    }
    object.emplace_back(label, Json(n));  // keys are unique: they come from a std::map
  }
  if (has_unknown) object.emplace_back("unknown", Json(unknown));
  return Json(std::move(object));
}

}  // namespace ltl
