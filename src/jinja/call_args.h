// CallArgs: the evaluated positional and keyword arguments of one call (filter, test, method,
// macro or built-in), with Python-style lookup of an argument by position or name.
// Internal to src/jinja/ (tests/build/internal_headers.cmake).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "jinja/errors.h"
#include "jinja/value.h"

namespace ltl::ct {

struct CallArgs {
  std::vector<Value> pos;
  std::vector<std::pair<std::string_view, Value>> kw;

  const Value* Kw(std::string_view name) const {
    for (const auto& [k, v] : kw) {
      if (k == name) return &v;
    }
    return nullptr;
  }
  // Argument `index` (positional) or `name` (keyword), else nullptr.
  const Value* Get(size_t index, std::string_view name) const {
    if (index < pos.size()) return &pos[index];
    return Kw(name);
  }
  // Fails like Python when more positional arguments than `max` or unknown keywords are given.
  void Check(const char* fn, size_t max, std::initializer_list<std::string_view> names) const {
    if (pos.size() > max) {
      TypeFail(std::string(fn) + "() takes at most " + std::to_string(max) + " argument(s) (" +
               std::to_string(pos.size()) + " given)");
    }
    for (const auto& [k, v] : kw) {
      bool known = false;
      for (std::string_view n : names) known = known || n == k;
      if (!known)
        TypeFail(std::string(fn) + "() got an unexpected keyword argument '" + std::string(k) +
                 "'");
    }
  }
};

}  // namespace ltl::ct
