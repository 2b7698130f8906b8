// Request assembly for sources that keep messages, system and tools apart (see
// request_assembly.h).
#include "ingest/request_assembly.h"

#include <charconv>
#include <map>
#include <string_view>

#include "jinja/py_json.h"

namespace ltl {
namespace {

using simdjson::dom::element;

void AppendJson(element e, std::string* out) {
  out->append(simdjson::to_string(e));
}

void AppendString(std::string_view s, std::string* out) {
  AppendPyJsonString(s, out);
}

// Text of an OTel part's content or of an AnyValue-unwrapped string.
void AppendTextValue(element v, std::string* out) {
  std::string_view s;
  if (!v.get_string().get(s))
    AppendString(s, out);
  else
    AppendString(simdjson::to_string(v), out);
}

// The tools of an OTel gen_ai.tool.definitions list, as OpenAI function tools.
void AppendOtelTools(element tools, std::string* out) {
  simdjson::dom::array arr;
  if (tools.get_array().get(arr)) return;
  out->append(",\"tools\":[");
  bool first = true;
  for (element t : arr) {
    simdjson::dom::object o;
    if (t.get_object().get(o)) continue;
    if (!first) out->push_back(',');
    first = false;
    element fn;
    if (!o.at_key("function").get(fn)) {  // already OpenAI-shaped
      AppendJson(t, out);
      continue;
    }
    out->append("{\"type\":\"function\",\"function\":{");
    bool any = false;
    for (const char* k : {"name", "description", "parameters"}) {
      element v;
      if (o.at_key(k).get(v)) continue;
      if (any) out->push_back(',');
      any = true;
      AppendString(k, out);
      out->push_back(':');
      AppendJson(v, out);
    }
    out->append("}}");
  }
  out->push_back(']');
}

}  // namespace

void AssembleMessageList(element messages, const element* tools, const element* system,
                         std::string* out) {
  out->assign("{\"messages\":[");
  bool first = true;
  if (system) {
    out->append("{\"role\":\"system\",\"content\":");
    AppendJson(*system, out);
    out->push_back('}');
    first = false;
  }
  simdjson::dom::array arr;
  if (!messages.get_array().get(arr)) {
    for (element m : arr) {
      if (!first) out->push_back(',');
      first = false;
      AppendJson(m, out);
    }
  }
  out->push_back(']');
  if (tools) {
    out->append(",\"tools\":");
    AppendJson(*tools, out);
  }
  out->push_back('}');
}

bool AssembleOtelParts(element messages, const element* system, const element* tools,
                       std::string* out) {
  simdjson::dom::array arr;
  if (messages.get_array().get(arr)) return false;
  out->assign("{\"messages\":[");
  bool first = true;
  simdjson::dom::array sys;
  if (system && !system->get_array().get(sys)) {
    out->append("{\"role\":\"system\",\"content\":");
    std::string text;
    for (element p : sys) {
      element c;
      std::string_view s;
      if (!p.at_key("content").get(c) && !c.get_string().get(s)) text.append(s);
    }
    AppendString(text, out);
    out->push_back('}');
    first = false;
  }
  for (element m : arr) {
    std::string_view role;
    if (m.at_key("role").get_string().get(role)) return false;
    simdjson::dom::array parts;
    if (m.at_key("parts").get_array().get(parts)) return false;
    std::string text, calls;
    std::vector<std::pair<std::string, std::string>> responses;  // (id, result JSON)
    for (element p : parts) {
      std::string_view type;
      if (p.at_key("type").get_string().get(type)) continue;
      element v;
      if (type == "text" || type == "reasoning") {
        std::string_view s;
        if (!p.at_key("content").get_string().get(s)) text.append(s);
      } else if (type == "tool_call") {
        if (!calls.empty()) calls.push_back(',');
        calls.append("{\"type\":\"function\",\"id\":");
        std::string_view id, name;
        AppendString(p.at_key("id").get_string().get(id) ? "" : id, &calls);
        calls.append(",\"function\":{\"name\":");
        AppendString(p.at_key("name").get_string().get(name) ? "" : name, &calls);
        calls.append(",\"arguments\":");
        if (!p.at_key("arguments").get(v))
          AppendTextValue(v, &calls);  // OpenAI sends arguments as a JSON string
        else
          calls.append("\"\"");
        calls.append("}}");
      } else if (type == "tool_call_response") {
        std::string_view id;
        std::string result;
        if (!p.at_key("result").get(v) || !p.at_key("response").get(v))
          AppendTextValue(v, &result);
        else
          result = "\"\"";
        responses.emplace_back(p.at_key("id").get_string().get(id) ? "" : std::string(id), result);
      }
    }
    for (auto& [id, result] : responses) {  // each tool result is its own "tool" message
      if (!first) out->push_back(',');
      first = false;
      out->append("{\"role\":\"tool\",\"tool_call_id\":");
      AppendString(id, out);
      out->append(",\"content\":");
      out->append(result);
      out->push_back('}');
    }
    if (!responses.empty() && text.empty() && calls.empty()) continue;
    if (!first) out->push_back(',');
    first = false;
    out->append("{\"role\":");
    AppendString(role, out);
    out->append(",\"content\":");
    AppendString(text, out);
    if (!calls.empty()) {
      out->append(",\"tool_calls\":[");
      out->append(calls);
      out->push_back(']');
    }
    out->push_back('}');
  }
  out->push_back(']');
  if (tools) AppendOtelTools(*tools, out);
  out->push_back('}');
  return true;
}

bool AssembleOtelFlat(simdjson::dom::array attributes, std::string* out) {
  struct Call {
    std::string id, name, arguments;
  };
  struct Msg {
    std::string role, content, tool_call_id;
    std::map<size_t, Call> calls;
  };
  struct Fn {
    std::string name, description, parameters;
  };
  std::map<size_t, Msg> msgs;
  std::map<size_t, Fn> fns;
  auto index = [](std::string_view s, size_t* n, std::string_view* rest) {
    size_t dot = s.find('.');
    if (dot == std::string_view::npos || dot == 0) return false;
    auto r = std::from_chars(s.data(), s.data() + dot, *n);
    if (r.ec != std::errc() || r.ptr != s.data() + dot || *n > 100000) return false;
    *rest = s.substr(dot + 1);
    return true;
  };
  for (element a : attributes) {
    std::string_view key;
    element v;
    if (a.at_key("key").get_string().get(key) || a.at_key("value").get(v)) continue;
    std::string_view s;
    // AnyValue: strings are what these attributes hold.
    if (v.at_key("stringValue").get_string().get(s)) continue;
    size_t n;
    std::string_view rest;
    if (key.substr(0, 14) == "gen_ai.prompt." && index(key.substr(14), &n, &rest)) {
      Msg& m = msgs[n];
      size_t k;
      std::string_view field;
      if (rest == "role")
        m.role = s;
      else if (rest == "content")
        m.content = s;
      else if (rest == "tool_call_id")
        m.tool_call_id = s;
      else if (rest.substr(0, 11) == "tool_calls." && index(rest.substr(11), &k, &field)) {
        Call& c = m.calls[k];
        if (field == "id")
          c.id = s;
        else if (field == "name")
          c.name = s;
        else if (field == "arguments")
          c.arguments = s;
      }
    } else if (key.substr(0, 22) == "llm.request.functions." && index(key.substr(22), &n, &rest)) {
      Fn& f = fns[n];
      if (rest == "name")
        f.name = s;
      else if (rest == "description")
        f.description = s;
      else if (rest == "parameters")
        f.parameters = s;
    }
  }
  if (msgs.empty()) return false;
  out->assign("{\"messages\":[");
  bool first = true;
  for (auto& [i, m] : msgs) {
    if (!first) out->push_back(',');
    first = false;
    out->append("{\"role\":");
    AppendString(m.role.empty() ? "user" : m.role, out);
    out->append(",\"content\":");
    AppendString(m.content, out);
    if (!m.tool_call_id.empty()) {
      out->append(",\"tool_call_id\":");
      AppendString(m.tool_call_id, out);
    }
    if (!m.calls.empty()) {
      out->append(",\"tool_calls\":[");
      bool fc = true;
      for (auto& [k, c] : m.calls) {
        if (!fc) out->push_back(',');
        fc = false;
        out->append("{\"type\":\"function\",\"id\":");
        AppendString(c.id, out);
        out->append(",\"function\":{\"name\":");
        AppendString(c.name, out);
        out->append(",\"arguments\":");
        AppendString(c.arguments, out);
        out->append("}}");
      }
      out->push_back(']');
    }
    out->push_back('}');
  }
  out->push_back(']');
  if (!fns.empty()) {
    out->append(",\"tools\":[");
    bool ff = true;
    for (auto& [i, f] : fns) {
      if (!ff) out->push_back(',');
      ff = false;
      out->append("{\"type\":\"function\",\"function\":{\"name\":");
      AppendString(f.name, out);
      out->append(",\"description\":");
      AppendString(f.description, out);
      // parameters is a JSON schema written as a string; keep it as the string it was.
      out->append(",\"parameters\":");
      AppendString(f.parameters, out);
      out->append("}}");
    }
    out->push_back(']');
  }
  out->push_back('}');
  return true;
}

}  // namespace ltl
