// The built-in price table and --prices files (see provider_prices.h).
#include "analyze/provider_prices.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <cctype>

namespace ltl {
namespace {

std::string Normalise(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.push_back(l == '.' || l == '_' ? '-' : l);
  }
  return out;
}

// Anthropic: https://platform.claude.com/docs/en/about-claude/pricing (read 2026-12-05), "Model
// pricing": base input, 5m cache writes, 1h cache writes, cache hits and refreshes, output.
constexpr const char* kAnthropicPage = "https://platform.claude.com/docs/en/about-claude/pricing";
// OpenAI: https://developers.openai.com/api/docs/pricing (read 2026-12-05, standard tier): input,
// cached input, output. OpenAI charges no cache writes: they are priced as input.
constexpr const char* kOpenAiPage = "https://developers.openai.com/api/docs/pricing";
constexpr const char* kRead = "2026-12-05";

ModelPrice Claude(const char* key, double in, double w5, double w1, double hit, double out) {
  return {key, in, hit, w5, w1, out, kAnthropicPage, kRead};
}
ModelPrice OpenAi(const char* key, double in, double cached, double out) {
  return {key, in, cached, in, in, out, kOpenAiPage, kRead};
}

}  // namespace

PriceTable DefaultPriceTable() {
  PriceTable t;
  t.models = {
      Claude("claude-fable-5", 10, 12.5, 20, 1, 50),
      Claude("claude-mythos-5", 10, 12.5, 20, 1, 50),
      Claude("claude-opus-5", 5, 6.25, 10, 0.5, 25),
      Claude("claude-opus-4-8", 5, 6.25, 10, 0.5, 25),
      Claude("claude-opus-4-7", 5, 6.25, 10, 0.5, 25),
      Claude("claude-opus-4-6", 5, 6.25, 10, 0.5, 25),
      Claude("claude-opus-4-5", 5, 6.25, 10, 0.5, 25),
      Claude("claude-opus-4-1", 15, 18.75, 30, 1.5, 75),
      Claude("claude-opus-4", 15, 18.75, 30, 1.5, 75),
      Claude("claude-sonnet-5", 3, 3.75, 6, 0.3, 15),
      Claude("claude-sonnet-4", 3, 3.75, 6, 0.3, 15),  // 4, 4.5, 4.6: the same prices
      Claude("claude-3-7-sonnet", 3, 3.75, 6, 0.3, 15),
      Claude("claude-3-5-sonnet", 3, 3.75, 6, 0.3, 15),
      Claude("claude-haiku-4-5", 1, 1.25, 2, 0.1, 5),
      Claude("claude-3-5-haiku", 0.8, 1, 1.6, 0.08, 4),
      Claude("claude-3-haiku", 0.25, 0.3, 0.5, 0.03, 1.25),
      OpenAi("gpt-5-4", 2.5, 0.25, 15),
      OpenAi("gpt-5-2", 1.75, 0.175, 14),
      OpenAi("gpt-5-mini", 0.25, 0.025, 2),
      OpenAi("gpt-5-nano", 0.05, 0.005, 0.4),
      OpenAi("gpt-5", 1.25, 0.125, 10),
      OpenAi("gpt-4-1-mini", 0.4, 0.1, 1.6),
      OpenAi("gpt-4-1-nano", 0.1, 0.025, 0.4),
      OpenAi("gpt-4-1", 2, 0.5, 8),
      OpenAi("gpt-4o-mini", 0.15, 0.075, 0.6),
      OpenAi("gpt-4o", 2.5, 1.25, 10),
  };
  return t;
}

const ModelPrice* PriceTable::Find(std::string_view model) const {
  const std::string m = Normalise(model);
  const ModelPrice* best = nullptr;
  for (const ModelPrice& p : models) {
    const std::string key = Normalise(p.model);
    if (!key.empty() && m.find(key) != std::string::npos &&
        (!best || key.size() > Normalise(best->model).size()))
      best = &p;
  }
  return best;
}

Status MergePriceFile(std::string_view file, std::string_view json, PriceTable* table) {
  simdjson::dom::parser parser;
  simdjson::padded_string text(json);
  simdjson::dom::element root;
  auto fail = [&](const std::string& path, const std::string& what) {
    return Status::InvalidArgument(fmt::format("{}: {}: {}", file, path, what));
  };
  if (auto err = parser.parse(text).get(root))
    return fail("$", std::string("not valid JSON (") + simdjson::error_message(err) + ")");
  simdjson::dom::object top;
  if (root.get_object().get(top)) return fail("$", "not a JSON object");
  std::string_view date, source;
  if (top.at_key("date").get_string().get(date)) date = "";
  if (top.at_key("source").get_string().get(source)) source = "";
  simdjson::dom::object models;
  if (top.at_key("models").get_object().get(models))
    return fail("$.models", "missing or not an object of model -> prices");
  for (auto [key, value] : models) {
    const std::string path = fmt::format("$.models[\"{}\"]", key);
    simdjson::dom::object o;
    if (value.get_object().get(o)) return fail(path, "not an object");
    ModelPrice p;
    p.model = std::string(key);
    p.source = source.empty() ? std::string(file) : std::string(source);
    p.date = std::string(date);
    struct Field {
      const char* name;
      double* out;
      bool required;
    } fields[] = {{"input", &p.input, true},
                  {"cached_read", &p.cached_read, true},
                  {"cache_write_5m", &p.cache_write_5m, false},
                  {"cache_write_1h", &p.cache_write_1h, false},
                  {"output", &p.output, true}};
    bool has_w5 = false, has_w1 = false;
    for (Field& f : fields) {
      simdjson::dom::element v;
      if (o.at_key(f.name).get(v)) {
        if (f.required) return fail(path + "." + f.name, "missing");
        continue;
      }
      double x;
      if (v.get_double().get(x)) {
        int64_t i;
        if (v.get_int64().get(i)) return fail(path + "." + f.name, "not a number");
        x = static_cast<double>(i);
      }
      if (!(x >= 0) || x > 1e6) return fail(path + "." + f.name, "not a price in [0, 1e6] $/MTok");
      *f.out = x;
      if (f.out == &p.cache_write_5m) has_w5 = true;
      if (f.out == &p.cache_write_1h) has_w1 = true;
    }
    if (!has_w5) p.cache_write_5m = p.input;  // a provider without write surcharges
    if (!has_w1) p.cache_write_1h = p.cache_write_5m;
    bool replaced = false;
    for (ModelPrice& m : table->models)
      if (Normalise(m.model) == Normalise(p.model)) {
        m = p;
        replaced = true;
      }
    if (!replaced) table->models.push_back(std::move(p));
  }
  return Status::Ok();
}

}  // namespace ltl
