// FillPrefixText (see prefix_text_pass.h).
#include "pipeline/prefix_text_pass.h"

#include <unordered_map>
#include <vector>

#include "analyze/prefix_text.h"
#include "ingest/load_input.h"

namespace ltl {

Status FillPrefixText(const std::string& path, InputFormat format, const IngestContext& ctx,
                      uint32_t block_size, size_t n_chars, Leaderboards* lb) {
  std::unordered_map<uint64_t, std::vector<PrefixRow*>> wanted;  // line -> rows to fill
  for (auto* rows : {&lb->by_count, &lb->by_volume})
    for (PrefixRow& r : *rows) wanted[r.first_line].push_back(&r);
  if (wanted.empty() || n_chars == 0) return Status::Ok();

  SkipCounter skips;  // the first pass already counted and reported every skip
  IngestContext again;
  again.name = ctx.name;
  again.block_size = ctx.block_size;
  again.limits = ctx.limits;
  again.gateway = ctx.gateway;
  again.skips = &skips;
  const Tokenizer* tokenizer = ctx.gateway.tokenizer;
  again.gateway.on_prompt = [&](uint64_t line, std::string_view prompt) {
    auto it = wanted.find(line);
    if (it == wanted.end()) return;
    for (PrefixRow* r : it->second)
      r->text = PrefixTextOf(prompt, r->blocks, block_size, n_chars, tokenizer);
  };
  auto loaded = LoadInput(path, format, &again);
  return loaded.ok() ? Status::Ok() : loaded.status();
}

}  // namespace ltl
