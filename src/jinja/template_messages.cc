// Request body -> template variables, as vLLM builds them (see template_messages.h and
// docs/SEMANTICS.md). Sources followed, in vllm-project/vllm:
//   vllm/entrypoints/chat_utils.py @ 001eadcf: _parse_chat_message_content(_parts/_part),
//     MM_PARSER_MAP, _postprocess_messages (tool-call arguments json.loads, {} on failure)
//   vllm/renderers/hf.py @ 02e64f58: _detect_content_format, safe_apply_chat_template
//   vllm/entrypoints/openai/chat_completion/protocol.py @ 002032ee: ChatCompletionToolsParam
//     (model_dump of tools), add_generation_prompt=True, documents, chat_template_kwargs
//   vllm/entrypoints/openai/engine/protocol.py @ 040a2cc2: FunctionDefinition (extra="allow")
//   vllm/entrypoints/anthropic/serving.py @ 0001948b: _convert_anthropic_to_openai_request
// and pydantic's TypedDict validation of the messages (unknown keys dropped, tool calls in the
// OpenAI SDK's declaration order id / function{arguments, name} / type).
#include "jinja/template_messages.h"

#include <algorithm>
#include <cstring>

#include "jinja/json.h"
#include "jinja/ops.h"

namespace ltl {

using ct::Arena;
using ct::Dict;
using ct::Kind;
using ct::List;
using ct::SegmentId;
using ct::Value;

namespace {

// --- content format detection (vLLM renderers/hf.py) -------------------------------------------

bool IsVarAccess(const ct::Node* n, const std::string& var) {
  return n && n->kind == ct::NodeKind::kName && n->name == var;
}

bool IsAttrAccess(const ct::Node* n, const std::string& var, const char* key) {
  if (!n) return false;
  if (n->kind == ct::NodeKind::kGetitem) {
    const ct::Node* arg = n->kids[1];
    return IsVarAccess(n->kids[0], var) && arg->kind == ct::NodeKind::kConst &&
           arg->constant.kind == Kind::kString && arg->name == key;
  }
  return n->kind == ct::NodeKind::kGetattr && IsVarAccess(n->kids[0], var) && n->name == key;
}

bool IsVarOrElemsAccess(const ct::Node* n, const std::string& var, const char* key) {
  if (!n) return false;
  if (n->kind == ct::NodeKind::kFilter || n->kind == ct::NodeKind::kTest) {
    return n->kids[0] && IsVarOrElemsAccess(n->kids[0], var, key);
  }
  if (n->kind == ct::NodeKind::kGetitem && n->kids[1]->kind == ct::NodeKind::kSlice) {
    return IsVarOrElemsAccess(n->kids[0], var, key);
  }
  return key ? IsAttrAccess(n, var, key) : IsVarAccess(n, var);
}

}  // namespace

ContentFormat DetectContentFormat(const ChatTemplate& tmpl) {
  const ct::NodePool& pool = tmpl.pool();
  // Names related to `messages` by assignment (BFS over {% set x = messages... %}).
  std::vector<std::string> messages_vars = {"messages"};
  for (size_t q = 0; q < messages_vars.size(); ++q) {
    for (const ct::Node& n : pool.nodes) {
      if (n.kind != ct::NodeKind::kAssign || n.kids[0]->kind != ct::NodeKind::kName) continue;
      if (!IsVarOrElemsAccess(n.kids[1], messages_vars[q], nullptr)) continue;
      const std::string& lhs = n.kids[0]->name;
      if (std::find(messages_vars.begin(), messages_vars.end(), lhs) == messages_vars.end()) {
        messages_vars.push_back(lhs);
      }
    }
  }
  std::vector<std::string> message_vars;
  for (const ct::Node& n : pool.nodes) {
    if (n.kind != ct::NodeKind::kFor || n.kids[0]->kind != ct::NodeKind::kName) continue;
    for (const std::string& v : messages_vars) {
      if (IsVarOrElemsAccess(n.kids[1], v, nullptr)) {
        message_vars.push_back(n.kids[0]->name);
        break;
      }
    }
  }
  for (const ct::Node& n : pool.nodes) {
    if (n.kind != ct::NodeKind::kFor) continue;
    for (const std::string& v : message_vars) {
      if (IsVarOrElemsAccess(n.kids[1], v, "content")) return ContentFormat::kOpenAI;
    }
  }
  return ContentFormat::kString;
}

namespace {

class Builder {
 public:
  Builder(const TemplateMessageOptions& o, ChatTemplateScratch* s) : o_(o), s_(s), a_(&s->arena) {}

  // --- helpers ---------------------------------------------------------------------------------

  static const Value* Get(const Value& d, const char* key) {
    if (d.kind != Kind::kDict) return nullptr;
    return d.dict->FindStr(key);
  }
  static bool IsStr(const Value* v) { return v && v->kind == Kind::kString; }
  static bool StrIs(const Value* v, const char* s) { return IsStr(v) && ct::StrEquals(*v, s); }
  Value Str(const char* s) { return Value::Str(std::string_view(s, std::strlen(s))); }
  Dict* NewDict() { return a_->New<Dict>(); }
  List* NewList() { return a_->New<List>(); }
  void Set(Dict* d, const char* key, const Value& v) { d->Set(a_, Str(key), v); }

  // A copy of `v` with every value attributed to `src`.
  Value Retag(const Value& v, SegmentId src) {
    Value out = v;
    switch (v.kind) {
      case Kind::kString:
        if (!v.rope) {
          out.src = src;
          return out;
        }
        {
          std::vector<ct::Piece> pieces;
          ct::AppendPieces(v, &pieces);
          for (ct::Piece& p : pieces) p.src = src;
          return ct::MakeString(a_, pieces.data(), pieces.size());
        }
      case Kind::kList: {
        List* l = NewList();
        l->is_tuple = v.list->is_tuple;
        for (size_t i = 0; i < v.list->size; ++i) l->Push(a_, Retag(v.list->items[i], src));
        out = Value::ListOf(l);
        break;
      }
      case Kind::kDict: {
        Dict* d = NewDict();
        for (size_t i = 0; i < v.dict->size; ++i) {
          d->Set(a_, Retag(v.dict->entries[i].key, src), Retag(v.dict->entries[i].value, src));
        }
        out = Value::DictOf(d);
        break;
      }
      default:
        break;
    }
    out.src = src;
    return out;
  }

  SegmentId NewSegment(SegmentKind kind, SegmentRole role, int message, int index) {
    return s_->segments.Add(Segment{kind, role, message, index});
  }

  static SegmentRole RoleOf(const Value* role) {
    if (StrIs(role, "system")) return SegmentRole::kSystem;
    if (StrIs(role, "developer")) return SegmentRole::kDeveloper;
    if (StrIs(role, "user")) return SegmentRole::kUser;
    if (StrIs(role, "assistant")) return SegmentRole::kAssistant;
    if (StrIs(role, "tool")) return SegmentRole::kTool;
    return SegmentRole::kOther;
  }

  // --- Anthropic -> OpenAI (vLLM anthropic/serving.py) ----------------------------------------

  static std::string_view View(const Value& v) { return std::string_view(v.s, v.size); }

  Value ImageUrlPart(const Value* source) {
    // _convert_image_source_to_url: url sources keep their URL, others become a data URI.
    Dict* part = NewDict();
    Set(part, "type", Str("image_url"));
    Dict* iu = NewDict();
    std::string url;
    if (source && StrIs(Get(*source, "type"), "url")) {
      const Value* u = Get(*source, "url");
      url = IsStr(u) ? std::string(ct::StrView(*u, a_)) : "";
    } else {
      const Value* mt = source ? Get(*source, "media_type") : nullptr;
      const Value* data = source ? Get(*source, "data") : nullptr;
      url = "data:" + (IsStr(mt) ? std::string(ct::StrView(*mt, a_)) : std::string("image/jpeg")) +
            ";base64," + (IsStr(data) ? std::string(ct::StrView(*data, a_)) : std::string());
    }
    Set(iu, "url", ct::NewString(a_, url));
    Set(part, "image_url", Value::DictOf(iu));
    return Value::DictOf(part);
  }

  static bool IsBillingHeader(const Value& text) {
    std::string_view prefix = "x-anthropic-billing-header";
    return text.size >= prefix.size() && !text.rope &&
           View(text).substr(0, prefix.size()) == prefix;
  }

  // Returns the OpenAI-format request (messages, tools, chat_template_kwargs).
  Value AnthropicToOpenAI(const Value& body) {
    Dict* req = NewDict();
    List* msgs = NewList();
    const Value* messages = Get(body, "messages");
    // System: the top-level field and system-role messages, joined with "".
    std::vector<ct::Piece> system;
    auto add_system_blocks = [&](const Value& content) {
      if (content.kind == Kind::kString) {
        ct::AppendPieces(content, &system);
        return;
      }
      if (content.kind != Kind::kList) return;
      for (size_t i = 0; i < content.list->size; ++i) {
        const Value& b = content.list->items[i];
        const Value* text = Get(b, "text");
        if (StrIs(Get(b, "type"), "text") && IsStr(text) && text->size && !IsBillingHeader(*text)) {
          ct::AppendPieces(*text, &system);
        }
      }
    };
    bool has_system = false;
    if (const Value* sys = Get(body, "system"); sys && ct::Truthy(*sys)) {
      add_system_blocks(*sys);
      has_system = true;
    }
    if (messages && messages->kind == Kind::kList) {
      for (size_t i = 0; i < messages->list->size; ++i) {
        const Value& m = messages->list->items[i];
        if (StrIs(Get(m, "role"), "system")) {
          if (const Value* c = Get(m, "content")) add_system_blocks(*c);
          has_system = true;
        }
      }
    }
    if (has_system && !system.empty()) {
      Dict* sm = NewDict();
      Set(sm, "role", Str("system"));
      Set(sm, "content", ct::MakeString(a_, system.data(), system.size()));
      msgs->Push(a_, Value::DictOf(sm));
    }
    if (messages && messages->kind == Kind::kList) {
      for (size_t i = 0; i < messages->list->size; ++i) {
        const Value& m = messages->list->items[i];
        const Value* role = Get(m, "role");
        if (StrIs(role, "system")) continue;
        Dict* om = NewDict();
        Set(om, "role", role ? *role : Value::None());
        const Value* content = Get(m, "content");
        if (content && content->kind == Kind::kString) {
          Set(om, "content", *content);
        } else if (content && content->kind == Kind::kList) {
          ConvertBlocks(*content, StrIs(role, "user"), om, msgs);
        }
        bool has_content = om->FindStr("content") != nullptr;
        if (!(StrIs(role, "user") && !has_content)) msgs->Push(a_, Value::DictOf(om));
      }
    }
    Set(req, "messages", Value::ListOf(msgs));
    if (const Value* tools = Get(body, "tools");
        tools && tools->kind == Kind::kList && tools->list->size) {
      List* out = NewList();
      for (size_t i = 0; i < tools->list->size; ++i) {
        const Value& t = tools->list->items[i];
        Dict* fn = NewDict();
        Set(fn, "name", Get(t, "name") ? *Get(t, "name") : Value::None());
        Set(fn, "description", Get(t, "description") ? *Get(t, "description") : Value::None());
        Set(fn, "parameters", Get(t, "input_schema") ? *Get(t, "input_schema") : Value::None());
        Dict* tool = NewDict();
        Set(tool, "type", Str("function"));
        Set(tool, "function", Value::DictOf(fn));
        out->Push(a_, Value::DictOf(tool));
      }
      Set(req, "tools", Value::ListOf(out));
    }
    if (const Value* kw = Get(body, "chat_template_kwargs")) Set(req, "chat_template_kwargs", *kw);
    return Value::DictOf(req);
  }

  void ConvertBlocks(const Value& blocks, bool user, Dict* om, List* msgs) {
    List* parts = NewList();
    List* calls = NewList();
    std::vector<ct::Piece> reasoning;
    bool has_reasoning = false;
    for (size_t i = 0; i < blocks.list->size; ++i) {
      const Value& b = blocks.list->items[i];
      const Value* type = Get(b, "type");
      if (StrIs(type, "text")) {
        const Value* text = Get(b, "text");
        if (IsStr(text) && text->size) {
          Dict* p = NewDict();
          Set(p, "type", Str("text"));
          Set(p, "text", *text);
          parts->Push(a_, Value::DictOf(p));
        }
      } else if (StrIs(type, "image")) {
        const Value* source = Get(b, "source");
        if (source && ct::Truthy(*source)) parts->Push(a_, ImageUrlPart(source));
      } else if (StrIs(type, "thinking")) {
        const Value* t = Get(b, "thinking");
        if (t && !t->is_none()) {
          if (IsStr(t)) ct::AppendPieces(*t, &reasoning);
          has_reasoning = true;
        }
      } else if (StrIs(type, "tool_use")) {
        Dict* fn = NewDict();
        const Value* name = Get(b, "name");
        Set(fn, "name", IsStr(name) ? *name : Str(""));
        const Value* input = Get(b, "input");
        // json.dumps(block.input or {}) parsed back by _postprocess_messages: the input itself.
        Set(fn, "arguments", input && ct::Truthy(*input) ? *input : Value::DictOf(NewDict()));
        Dict* call = NewDict();
        const Value* id = Get(b, "id");
        Set(call, "id", IsStr(id) && id->size ? *id : Str("call_0"));
        Set(call, "type", Str("function"));
        Set(call, "function", Value::DictOf(fn));
        calls->Push(a_, Value::DictOf(call));
      } else if (StrIs(type, "tool_result")) {
        if (user) {
          ToolResultMessages(b, msgs);
        } else {
          std::string text = "Tool result: ";
          const Value* c = Get(b, "content");
          if (c && ct::Truthy(*c)) ct::AppendStr(*c, a_, &text);
          Dict* p = NewDict();
          Set(p, "type", Str("text"));
          Set(p, "text", ct::NewString(a_, text));
          parts->Push(a_, Value::DictOf(p));
        }
      }
    }
    if (has_reasoning) Set(om, "reasoning", ct::MakeString(a_, reasoning.data(), reasoning.size()));
    if (calls->size) Set(om, "tool_calls", Value::ListOf(calls));
    if (parts->size) {
      const Value& first = parts->items[0];
      if (parts->size == 1 && StrIs(Get(first, "type"), "text")) {
        Set(om, "content", *Get(first, "text"));
      } else {
        Set(om, "content", Value::ListOf(parts));
      }
    }
  }

  void ToolResultMessages(const Value& b, List* msgs) {
    const Value* c = Get(b, "content");
    std::vector<ct::Piece> text;
    List* images = NewList();
    if (IsStr(c)) {
      ct::AppendPieces(*c, &text);
    } else if (c && c->kind == Kind::kList) {
      bool first = true;
      for (size_t i = 0; i < c->list->size; ++i) {
        const Value& item = c->list->items[i];
        if (item.kind != Kind::kDict) continue;
        const Value* t = Get(item, "type");
        if (StrIs(t, "text")) {
          if (!first) text.push_back(ct::Piece{"\n", 1, ct::kFraming});
          first = false;
          const Value* tx = Get(item, "text");
          if (IsStr(tx)) ct::AppendPieces(*tx, &text);
        } else if (StrIs(t, "image")) {
          const Value* src = Get(item, "source");
          images->Push(a_, ImageUrlPart(src));
        }
      }
    }
    Dict* tm = NewDict();
    Set(tm, "role", Str("tool"));
    const Value* id = Get(b, "tool_use_id");
    Set(tm, "tool_call_id", IsStr(id) ? *id : Str(""));
    Set(tm, "content", ct::MakeString(a_, text.data(), text.size()));
    msgs->Push(a_, Value::DictOf(tm));
    if (images->size) {
      Dict* um = NewDict();
      Set(um, "role", Str("user"));
      Set(um, "content", Value::ListOf(images));
      msgs->Push(a_, Value::DictOf(um));
    }
  }

  // --- vLLM chat_utils: OpenAI messages -> conversation ----------------------------------------

  bool Fail(std::string* reason, const char* why) {
    *reason = why;
    return false;
  }

  // One content part -> text (string format) or a dict (openai format); false = skipped.
  bool Part(const Value& part, SegmentId src, Value* out, std::string* reason, bool* error) {
    bool openai = o_.content_format == ContentFormat::kOpenAI;
    auto text_out = [&](const Value& text) {
      Value t = Retag(text, src);
      if (!openai) {
        *out = t;
      } else {
        Dict* d = NewDict();
        Set(d, "type", Str("text"));
        Set(d, "text", t);
        *out = Value::DictOf(d);
      }
      return true;
    };
    if (part.kind == Kind::kString) return text_out(part);
    if (part.kind != Kind::kDict) {
      *error = true;
      *reason = "content part is not an object";
      return false;
    }
    const Value* type = Get(part, "type");
    const Value* uuid = Get(part, "uuid");
    const char* modality = nullptr;
    bool typed = IsStr(type) && !(uuid && !uuid->is_none());
    std::string_view t = typed ? ct::StrView(*type, a_) : std::string_view();
    if (typed) {
      if (t == "text" || t == "input_text" || t == "output_text" || t == "refusal" ||
          t == "thinking") {
        const Value* text = Get(part, t == "refusal"    ? "refusal"
                                      : t == "thinking" ? "thinking"
                                                        : "text");
        if (!text || text->is_none()) return false;  // skipped with a warning by vLLM
        if (!IsStr(text)) {
          *error = true;
          *reason = "content part text is not a string";
          return false;
        }
        return text_out(*text);
      }
      if (t == "image_url" || t == "input_image" || t == "image_pil" || t == "image_embeds") {
        modality = "image";
      } else if (t == "audio_url" || t == "input_audio" || t == "audio_embeds") {
        modality = "audio";
      } else if (t == "video_url") {
        modality = "video";
      } else if (t == "tool_reference") {
        const Value* name = Get(part, "name");
        Value n = name ? Retag(*name, src) : Value::None();
        if (!openai) {
          *out = n;
          return true;
        }
        Dict* d = NewDict();
        Set(d, "type", Str("tool_reference"));
        Set(d, "name", n);
        *out = Value::DictOf(d);
        return true;
      } else if (t == "prompt_embeds") {
        *error = true;
        *reason = "prompt_embeds content parts need --enable-prompt-embeds";
        return false;
      } else {
        *error = true;
        *reason = "unsupported chat content part type";
        return false;
      }
    } else if (type && !type->is_none() && !IsStr(type)) {
      *error = true;
      *reason = "invalid 'type' field in content part";
      return false;
    } else {
      if (Get(part, "image_url") || Get(part, "image_pil") || Get(part, "image_embeds")) {
        modality = "image";
      } else if (Get(part, "audio_embeds") || Get(part, "audio_url") ||
                 (Get(part, "input_audio") && !Get(part, "input_audio")->is_none())) {
        modality = "audio";
      } else if (Get(part, "video_url")) {
        modality = "video";
      } else if (Get(part, "prompt_embeds")) {
        *error = true;
        *reason = "prompt_embeds content parts need --enable-prompt-embeds";
        return false;
      } else if (Get(part, "tool_reference")) {
        return false;
      } else {
        *error = true;
        *reason = "missing 'type' field in content part";
        return false;
      }
    }
    // Media: a {"type": modality} dict for openai-format templates; string-format templates get
    // the model's own placeholder from its multimodal processor, which is not modelled here.
    if (!openai) return false;
    Dict* d = NewDict();
    Set(d, "type", Value::Str(modality, src));
    *out = Value::DictOf(d);
    return true;
  }

  bool Message(const Value& m, int index, List* out, std::string* reason) {
    if (m.kind != Kind::kDict) return Fail(reason, "message is not an object");
    const Value* role = Get(m, "role");
    if (!IsStr(role)) return Fail(reason, "message without a role");
    SegmentRole srole = RoleOf(role);
    SegmentKind kind = srole == SegmentRole::kSystem || srole == SegmentRole::kDeveloper
                           ? SegmentKind::kSystem
                       : srole == SegmentRole::kTool ? SegmentKind::kToolResult
                                                     : SegmentKind::kMessage;
    SegmentId seg = NewSegment(kind, srole, index, -1);
    Dict* r = NewDict();
    Set(r, "role", Retag(*role, seg));
    const Value* content = Get(m, "content");
    bool openai = o_.content_format == ContentFormat::kOpenAI;
    // content: None -> no parts; a string -> one text part; a list -> its parts.
    std::vector<Value> parts;
    bool error = false;
    auto add_part = [&](const Value& p) {
      Value v;
      if (Part(p, seg, &v, reason, &error)) parts.push_back(v);
    };
    if (content && content->kind == Kind::kString) {
      add_part(*content);
    } else if (content && content->kind == Kind::kList) {
      for (size_t i = 0; i < content->list->size && !error; ++i) add_part(content->list->items[i]);
    } else if (content && !content->is_none()) {
      return Fail(reason, "message content is neither a string, a list nor null");
    }
    if (error) return false;
    if (openai) {
      List* l = NewList();
      for (const Value& p : parts) l->Push(a_, p);
      Set(r, "content", Value::ListOf(l));
    } else {
      std::vector<ct::Piece> pieces;
      for (size_t i = 0; i < parts.size(); ++i) {
        if (i) pieces.push_back(ct::Piece{"\n", 1, seg});
        ct::AppendPieces(parts[i], &pieces);
      }
      Set(r, "content", ct::MakeString(a_, pieces.data(), pieces.size()));
    }
    if (srole == SegmentRole::kAssistant) {
      const Value* calls = Get(m, "tool_calls");
      if (calls && !calls->is_none()) {
        if (calls->kind != Kind::kList) return Fail(reason, "tool_calls is not a list");
        // An empty list is dropped (_postprocess_messages), keeping templates on the plain path.
        if (calls->list->size) {
          List* l = NewList();
          for (size_t j = 0; j < calls->list->size; ++j) {
            Value call;
            if (!ToolCall(calls->list->items[j], index, static_cast<int>(j), &call, reason))
              return false;
            l->Push(a_, call);
          }
          Set(r, "tool_calls", Value::ListOf(l));
        }
      }
      const Value* reasoning = Get(m, "reasoning");
      if (reasoning && !reasoning->is_none()) {
        SegmentId rs = NewSegment(SegmentKind::kReasoning, srole, index, -1);
        Value rv = Retag(*reasoning, rs);
        Set(r, "reasoning", rv);
        Set(r, "reasoning_content", rv);
      }
    }
    if (srole == SegmentRole::kTool) {
      if (const Value* id = Get(m, "tool_call_id")) Set(r, "tool_call_id", Retag(*id, seg));
      // Tool content given as text parts becomes one string ("\n"-joined); other lists stay.
      const Value* c = r->FindStr("content");
      if (c && c->kind == Kind::kList) {
        bool all_text = true;
        for (size_t i = 0; i < c->list->size; ++i) {
          const Value& it = c->list->items[i];
          all_text = all_text && it.kind == Kind::kDict && StrIs(Get(it, "type"), "text");
        }
        if (all_text) {
          std::vector<ct::Piece> pieces;
          for (size_t i = 0; i < c->list->size; ++i) {
            if (i) pieces.push_back(ct::Piece{"\n", 1, seg});
            const Value* tx = Get(c->list->items[i], "text");
            if (IsStr(tx)) ct::AppendPieces(*tx, &pieces);
          }
          Set(r, "content", ct::MakeString(a_, pieces.data(), pieces.size()));
        }
      }
    }
    if (const Value* name = Get(m, "name"); IsStr(name)) Set(r, "name", Retag(*name, seg));
    if (const Value* task = Get(m, "task"); IsStr(task)) Set(r, "task", Retag(*task, seg));
    if (srole == SegmentRole::kDeveloper) {
      const Value* tools = Get(m, "tools");
      Set(r, "tools", tools ? Retag(*tools, seg) : Value::None());
    }
    out->Push(a_, Value::DictOf(r));
    return true;
  }

  // A tool call as pydantic validates it (id, function{arguments, name}, type; other keys
  // dropped), with string arguments parsed as JSON ({} when they do not parse).
  bool ToolCall(const Value& c, int message, int j, Value* out, std::string* reason) {
    if (c.kind != Kind::kDict) return Fail(reason, "tool call is not an object");
    SegmentId seg = NewSegment(SegmentKind::kToolCall, SegmentRole::kAssistant, message, j);
    Dict* call = NewDict();
    if (const Value* id = Get(c, "id")) Set(call, "id", Retag(*id, seg));
    const Value* fn = Get(c, "function");
    if (!fn || fn->kind != Kind::kDict) return Fail(reason, "tool call without a function");
    Dict* f = NewDict();
    const Value* args = Get(*fn, "arguments");
    Value parsed;
    if (IsStr(args)) {
      if (!ct::LoadJson(ct::StrView(*args, a_), seg, a_, &parsed))
        parsed = Value::DictOf(NewDict());
    } else if (args && (args->kind == Kind::kDict || args->kind == Kind::kList)) {
      parsed = Retag(*args, seg);
    } else {
      parsed = Value::DictOf(NewDict());
    }
    parsed.src = seg;
    Set(f, "arguments", parsed);
    if (const Value* name = Get(*fn, "name")) Set(f, "name", Retag(*name, seg));
    Value fv = Value::DictOf(f);
    fv.src = seg;
    Set(call, "function", fv);
    if (const Value* type = Get(c, "type")) Set(call, "type", Retag(*type, seg));
    *out = Value::DictOf(call);
    out->src = seg;
    return true;
  }

  // tools as ChatCompletionToolsParam.model_dump(): type, function{name, description,
  // parameters, [defer_loading], extra keys in request order}, [defer_loading].
  Value Tool(const Value& t, int index) {
    SegmentId seg = NewSegment(SegmentKind::kTools, SegmentRole::kNone, -1, index);
    Dict* tool = NewDict();
    const Value* type = Get(t, "type");
    Set(tool, "type", type ? Retag(*type, seg) : Value::Str("function", seg));
    const Value* fn = Get(t, "function");
    Dict* f = NewDict();
    auto field = [&](const char* k) {
      const Value* v = fn ? Get(*fn, k) : nullptr;
      Set(f, k, v ? Retag(*v, seg) : Value::None());
    };
    field("name");
    field("description");
    field("parameters");
    const Value* defer = fn ? Get(*fn, "defer_loading") : nullptr;
    const Value* tool_defer = Get(t, "defer_loading");
    if (defer && !defer->is_none()) {
      Set(f, "defer_loading", Retag(*defer, seg));
    } else if (tool_defer && !tool_defer->is_none()) {
      Set(f, "defer_loading", Retag(*tool_defer, seg));
    }
    if (fn && fn->kind == Kind::kDict) {
      for (size_t i = 0; i < fn->dict->size; ++i) {
        const ct::DictEntry& e = fn->dict->entries[i];
        if (StrIs(&e.key, "name") || StrIs(&e.key, "description") || StrIs(&e.key, "parameters") ||
            StrIs(&e.key, "defer_loading")) {
          continue;
        }
        f->Set(a_, Retag(e.key, seg), Retag(e.value, seg));
      }
    }
    Value fv = Value::DictOf(f);
    fv.src = seg;
    Set(tool, "function", fv);
    if (tool_defer && !tool_defer->is_none()) Set(tool, "defer_loading", Retag(*tool_defer, seg));
    Value tv = Value::DictOf(tool);
    tv.src = seg;
    return tv;
  }

  bool Build(const Value& req, simdjson::dom::element special, int64_t now, ChatTemplateInput* in,
             std::string* reason) {
    const Value* messages = Get(req, "messages");
    if (!messages || messages->kind != Kind::kList)
      return Fail(reason, "body has no messages list");
    List* conv = NewList();
    for (size_t i = 0; i < messages->list->size; ++i) {
      if (!Message(messages->list->items[i], static_cast<int>(conv->size), conv, reason))
        return false;
    }
    // Special tokens first, so request kwargs can override them (transformers' template_kwargs =
    // {**special_tokens_map, **kwargs}).
    simdjson::dom::object sp;
    if (special.get(sp) == simdjson::SUCCESS) {
      for (auto field : sp)
        in->Set(std::string(field.key), ct::FromDom(field.value, ct::kFraming, a_));
    }
    const Value* kwargs = Get(req, "chat_template_kwargs");
    if (kwargs && kwargs->kind == Kind::kDict) {
      for (size_t i = 0; i < kwargs->dict->size; ++i) {
        const ct::DictEntry& e = kwargs->dict->entries[i];
        if (e.key.kind != Kind::kString) continue;
        std::string k(ct::StrView(e.key, a_));
        if (k == "messages" || k == "tools" || k == "documents" || k == "add_generation_prompt" ||
            k == "chat_template" || k == "tokenize") {
          continue;
        }
        in->Set(k, Retag(e.value, ct::kFraming));
      }
    }
    in->Set("messages", Value::ListOf(conv));
    const Value* tools = Get(req, "tools");
    if (tools && tools->kind == Kind::kList && tools->list->size) {
      List* l = NewList();
      for (size_t i = 0; i < tools->list->size; ++i)
        l->Push(a_, Tool(tools->list->items[i], static_cast<int>(i)));
      in->Set("tools", Value::ListOf(l));
    } else {
      in->Set("tools", Value::None());
    }
    const Value* docs = Get(req, "documents");
    if (docs && !docs->is_none()) {
      SegmentId seg = NewSegment(SegmentKind::kDocuments, SegmentRole::kNone, -1, -1);
      in->Set("documents", Retag(*docs, seg));
    } else {
      in->Set("documents", Value::None());
    }
    in->Set("add_generation_prompt", Value::Bool(o_.add_generation_prompt));
    in->now_unix_seconds = now;
    return true;
  }

 private:
  const TemplateMessageOptions& o_;
  ChatTemplateScratch* s_;
  Arena* a_;
};

}  // namespace

bool IsAnthropicMessagesBody(simdjson::dom::element body) {
  if (body["system"].error() == simdjson::SUCCESS) return true;
  simdjson::dom::array tools;
  if (body["tools"].get(tools) == simdjson::SUCCESS) {
    for (auto t : tools) {
      if (t["input_schema"].error() == simdjson::SUCCESS) return true;
    }
  }
  simdjson::dom::array messages;
  if (body["messages"].get(messages) != simdjson::SUCCESS) return false;
  for (auto m : messages) {
    simdjson::dom::array content;
    if (m["content"].get(content) != simdjson::SUCCESS) continue;
    for (auto b : content) {
      std::string_view type;
      if (b["type"].get(type) != simdjson::SUCCESS) continue;
      if (type == "tool_use" || type == "tool_result" || type == "thinking" ||
          type == "redacted_thinking" || type == "document" || type == "image") {
        return true;
      }
    }
  }
  return false;
}

bool BuildTemplateInput(simdjson::dom::element body, simdjson::dom::element special_tokens,
                        const TemplateMessageOptions& options, int64_t now_unix_seconds,
                        ChatTemplateScratch* scratch, ChatTemplateInput* input,
                        std::string* reason) {
  if (!body.is_object()) {
    *reason = "body is not a JSON object";
    return false;
  }
  Builder b(options, scratch);
  Value req = ct::FromDom(body, ct::kFraming, &scratch->arena);
  if (IsAnthropicMessagesBody(body)) req = b.AnthropicToOpenAI(req);
  return b.Build(req, special_tokens, now_unix_seconds, input, reason);
}

}  // namespace ltl
