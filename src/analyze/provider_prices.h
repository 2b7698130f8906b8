// Prices of hosted models per million tokens (input, cache read, cache writes with a 5-minute and
// a 1-hour TTL, output), each with the page it was read from and the date: the table the provider
// cache section prices a log with (analyze/provider_cache_section.h). `--prices FILE` (JSON)
// overrides or adds models; the format is in docs/FORMATS.md ("Price files").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ltl {

struct ModelPrice {
  std::string model;  // a model-name key: matches a model string containing it (longest wins)
  double input = 0, cached_read = 0, cache_write_5m = 0, cache_write_1h = 0, output = 0;  // $/MTok
  std::string source;                                                                     // page
  std::string date;  // the date the page was read (YYYY-MM-DD)
};

struct PriceTable {
  std::vector<ModelPrice> models;
  // The price of a model string ("claude-sonnet-4-5-20250929", "anthropic.claude-3-5-haiku-..."),
  // or nullptr when no key matches: the longest key contained in the normalised string (lower
  // case, '.' and '_' as '-').
  const ModelPrice* Find(std::string_view model) const;
};

// The built-in table (provider_prices.cc cites each page and date).
PriceTable DefaultPriceTable();

// Merges a --prices file's JSON text into *table (a model already there is replaced). Errors name
// `file` and the JSON path of the problem ("prices.json: $.models.gpt-4o.input: not a number").
Status MergePriceFile(std::string_view file, std::string_view json, PriceTable* table);

}  // namespace ltl
