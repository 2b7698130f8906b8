// libFuzzer target: the request-body renderer (OpenAI chat and Anthropic Messages bodies, every
// layout). Properties beyond "no crash":
//  - rendering is deterministic: a second render of the same body into a used RenderedPrompt gives
//    the same text, spans, tool span and flags;
//  - the Python-style JSON writer is faithful: the body written by AppendPyJson parses again as
//    JSON, and rendering that re-parsed body gives the same prompt (cache_control keys, which the
//    writer drops on purpose, are absent from both renders' JSON parts);
//  - spans lie inside the text.
#include <simdjson.h>

#include "fuzz/fuzz_util.h"
#include "jinja/py_json.h"
#include "render/layout.h"
#include "render/render_prompt.h"

namespace {

bool Same(const ltl::RenderedPrompt& a, const ltl::RenderedPrompt& b) {
  return a.text == b.text && a.layout == b.layout && a.anthropic_body == b.anthropic_body &&
         a.conversation_spans == b.conversation_spans && a.tools_begin == b.tools_begin &&
         a.tools_end == b.tools_end && a.has_image == b.has_image && a.has_file == b.has_file;
}

// True when any object in `e` has the key (simdjson's depth limit bounds the recursion).
bool HasKey(simdjson::dom::element e, std::string_view key) {
  simdjson::dom::object obj;
  simdjson::dom::array arr;
  if (!e.get_object().get(obj)) {
    for (auto field : obj)
      if (field.key == key || HasKey(field.value, key)) return true;
  } else if (!e.get_array().get(arr)) {
    for (auto item : arr)
      if (HasKey(item, key)) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  constexpr size_t kLayouts = sizeof ltl::kAllLayouts / sizeof ltl::kAllLayouts[0];
  constexpr const char* kModels[] = {
      "", "gpt-4o", "qwen3-coder", "llama-3.1-8b", "claude-sonnet-4", "glm-4.6", "deepseek-v3"};
  const ltl::Layout layout = ltl::kAllLayouts[data[0] % kLayouts];  // every layout
  const char* model = kModels[(data[0] / kLayouts) % 7];
  simdjson::padded_string json(reinterpret_cast<const char*>(data) + 1, size - 1);
  simdjson::dom::parser parser;
  simdjson::dom::element body;
  if (parser.parse(json).get(body)) return 0;

  ltl::RenderedPrompt first, second;
  const char* r1 = ltl::RenderPrompt(body, layout, model, &first);
  second.text = "previous prompt";
  second.conversation_spans.emplace_back(0, 3);
  second.has_image = true;
  const char* r2 = ltl::RenderPrompt(body, layout, model, &second);
  LTL_FUZZ_CHECK((r1 == nullptr) == (r2 == nullptr));
  if (r1) return 0;
  LTL_FUZZ_CHECK(Same(first, second));
  for (auto [b, e] : first.conversation_spans) LTL_FUZZ_CHECK(b < e && e <= first.text.size());
  LTL_FUZZ_CHECK(first.tools_begin <= first.tools_end && first.tools_end <= first.text.size());

  std::string rewritten;
  ltl::AppendPyJson(body, ltl::PyJsonStyle{}, &rewritten);
  simdjson::dom::parser parser2;
  simdjson::dom::element body2;
  LTL_FUZZ_CHECK(!parser2.parse(rewritten).get(body2));
  if (HasKey(body, "cache_control")) return 0;  // dropped keys may change what is rendered
  ltl::RenderedPrompt third;
  LTL_FUZZ_CHECK(ltl::RenderPrompt(body2, layout, model, &third) == nullptr);
  LTL_FUZZ_CHECK(Same(first, third));
  return 0;
}
