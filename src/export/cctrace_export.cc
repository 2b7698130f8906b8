// Cache-trace documents from Anthropic calls (see cctrace_export.h): sessions -> threads ->
// segments -> JSON.
#include "export/cctrace_export.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "common/replay_order.h"
#include "export/cctrace_hash.h"

namespace ltl {
namespace {

using Json = nlohmann::ordered_json;

double Round3(double x) {
  return std::round(x * 1000.0) / 1000.0;
}

struct Instance {  // one sub-agent run
  std::string key;
  std::string type;
  std::vector<const AnthropicCall*> calls;
};

struct Conversation {
  std::string key;                          // session id, or an inferred key
  std::string id;                           // written id (12 chars)
  std::vector<const AnthropicCall*> calls;  // time order
};

// Per-file id numbering, from 1 in order of first appearance.
class IdMap {
 public:
  Json Ids(const std::vector<uint64_t>& hashes) {
    Json a = Json::array();
    for (uint64_t h : hashes) {
      auto [it, inserted] = ids_.emplace(h, static_cast<int64_t>(ids_.size()) + 1);
      a.push_back(it->second);
    }
    return a;
  }
  size_t size() const { return ids_.size(); }

 private:
  std::unordered_map<uint64_t, int64_t> ids_;
};

// A file name from a conversation id: session ids come from the log, so anything but letters,
// digits, '-' and '_' (path separators, dots, control bytes) becomes '_'.
std::string SafeFileStem(std::string_view id) {
  std::string out;
  for (char ch : id) {
    const bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                      (ch >= '0' && ch <= '9') || ch == '-' || ch == '_';
    out.push_back(keep ? ch : '_');
  }
  return out.empty() ? std::string("conversation") : out;
}

size_t PrefixMatch(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  size_t n = std::min(a.size(), b.size()), k = 0;
  while (k < n && a[k] == b[k]) ++k;
  return k;
}

int64_t In(const AnthropicCall& c) {
  return c.usage_in >= 0 ? c.usage_in : c.prompt_tokens;
}
int64_t Out(const AnthropicCall& c) {
  return c.usage_out >= 0 ? c.usage_out : 0;
}

Json Strings(const std::vector<std::string>& v) {
  Json a = Json::array();
  for (const auto& s : v) a.push_back(s);
  return a;
}

// The request records of one context (the parent's requests in a segment, or a sub-agent's).
class ContextWriter {
 public:
  ContextWriter(double start, IdMap* ids) : start_(start), ids_(ids) {}

  Json Request(const AnthropicCall& c) {
    Json r;
    r["t"] = Round3(std::max(0.0, c.time_s - start_));
    r["type"] = c.stream ? "s" : "n";
    r["model"] = c.model;
    r["in"] = In(c);
    r["out"] = Out(c);
    r["hash_ids"] = ids_->Ids(c.hashes);
    Json input = Json::array();
    if (!prev_) {
      input.push_back("text");
    } else if (c.messages_digest == prev_->messages_digest) {
      // a within-turn repeat (e.g. the streaming and non-streaming call of one turn): nothing new
    } else if (!prev_->hashes.empty() &&
               2 * PrefixMatch(prev_->hashes, c.hashes) < prev_->hashes.size()) {
      input = Strings(c.message_types);  // major reset: the whole context is new
    } else {
      input.push_back(prev_->stop == "tool_use" ? "tool_result" : "text");
    }
    r["input_types"] = input;
    r["output_types"] = Strings(c.output_types);
    r["stop"] = c.stop;
    if (c.api_time >= 0) r["api_time"] = Round3(c.api_time);
    if (c.stream && c.ttft >= 0) r["ttft"] = Round3(c.ttft);
    if (prev_ && prev_->api_time >= 0)
      r["think_time"] = Round3(std::max(0.0, c.time_s - (prev_->time_s + prev_->api_time)));
    prev_ = &c;
    return r;
  }

 private:
  double start_;
  IdMap* ids_;
  const AnthropicCall* prev_ = nullptr;
};

void AddModel(std::vector<std::string>* models, const std::string& m) {
  if (m.empty()) return;
  if (std::find(models->begin(), models->end(), m) == models->end()) models->push_back(m);
}

struct Segment {
  double start = 0;
  std::vector<const AnthropicCall*> parent;
  std::vector<const Instance*> subagents;
  uint64_t calls = 0;  // all calls, sub-agents' included
};

Json SubagentJson(const Instance& in, const Conversation& conv, double seg_start, IdMap* ids,
                  const std::string& salt, std::vector<std::string>* file_models, int64_t* sub_in,
                  int64_t* sub_out, uint64_t* indexed) {
  const AnthropicCall& first = *in.calls.front();
  const AnthropicCall& last = *in.calls.back();
  Json s;
  s["t"] = Round3(std::max(0.0, first.time_s - seg_start));
  s["type"] = "subagent";
  s["agent_id"] = SaltedHexId(salt, "agent\n" + conv.key + "\n" + in.key, 8);
  s["subagent_type"] = in.type;
  double end = last.time_s + std::max(0.0, last.api_time);
  s["duration_ms"] = static_cast<int64_t>(std::llround((end - first.time_s) * 1000.0));
  int64_t total = 0, tool_uses = 0;
  std::vector<std::string> models;
  for (const AnthropicCall* c : in.calls) {
    total += In(*c) + Out(*c);
    tool_uses += c->tool_uses;
    AddModel(&models, c->model);
    AddModel(file_models, c->model);
    *sub_in += In(*c);
    *sub_out += Out(*c);
  }
  s["total_tokens"] = total;
  s["tool_use_count"] = tool_uses;
  s["status"] = last.stop == "end_turn" ? "completed" : "failed";
  s["models"] = Strings(models);
  s["tool_tokens"] = first.tool_tokens;
  s["system_tokens"] = first.system_tokens;
  ContextWriter w(first.time_s, ids);
  Json reqs = Json::array();
  for (const AnthropicCall* c : in.calls) {
    reqs.push_back(w.Request(*c));
    if (!c->hashes.empty()) ++*indexed;
  }
  s["requests"] = reqs;
  return s;
}

std::string SegmentJson(const Conversation& conv, const Segment& seg, const std::string& id,
                        const CctraceExportOptions& o, CctraceExportStats* stats) {
  IdMap ids;
  std::vector<std::string> models;
  for (const AnthropicCall* c : seg.parent) AddModel(&models, c->model);
  const AnthropicCall* head = !seg.parent.empty()      ? seg.parent.front()
                              : !seg.subagents.empty() ? seg.subagents.front()->calls.front()
                                                       : nullptr;
  Json doc;
  doc["id"] = id;
  doc["models"] = Json::array();
  doc["block_size"] = o.block_size;
  doc["hash_id_scope"] = "local";  // AIPerf's WekaTrace requires it (see the totals below)
  doc["tool_tokens"] = head ? head->tool_tokens : 0;
  doc["system_tokens"] = head ? head->system_tokens : 0;

  Json reqs = Json::array();
  ContextWriter parent(seg.start, &ids);
  int64_t par_in = 0, par_out = 0, sub_in = 0, sub_out = 0;
  uint64_t indexed = 0, written_subagents = 0;
  size_t next_sub = 0;
  auto flush_subagents = [&](double before, bool all) {
    while (next_sub < seg.subagents.size() &&
           (all || seg.subagents[next_sub]->calls.front()->time_s <= before)) {
      const Instance& in = *seg.subagents[next_sub++];
      if (!o.include_subagents) continue;
      reqs.push_back(
          SubagentJson(in, conv, seg.start, &ids, o.salt, &models, &sub_in, &sub_out, &indexed));
      ++written_subagents;
      stats->subagent_requests_written += in.calls.size();
    }
  };
  for (const AnthropicCall* c : seg.parent) {
    flush_subagents(c->time_s, false);
    reqs.push_back(parent.Request(*c));
    par_in += In(*c);
    par_out += Out(*c);
    if (!c->hashes.empty()) ++indexed;
  }
  flush_subagents(0, true);
  doc["models"] = Strings(models);
  doc["requests"] = std::move(reqs);
  // AIPerf's weka_trace loader validates every file against WekaTrace (extra="forbid"): no key
  // outside its fields, `hash_id_scope` required ("local": ids numbered per file, as here). How
  // the file was built therefore goes under `totals` (an opaque dict there), not a top-level
  // `_analysis`.
  Json totals = Json::object();
  if (written_subagents > 0) {
    totals["parent_tokens"] = Json{{"input", par_in}, {"output", par_out}};
    totals["subagent_tokens"] = Json{{"input", sub_in}, {"output", sub_out}};
    totals["combined_tokens"] = Json{{"input", par_in + sub_in}, {"output", par_out + sub_out}};
    totals["subagent_count"] = written_subagents;
  }
  totals["analysis"] =
      Json{{"indexed", indexed}, {"total", seg.calls}, {"unique_blocks", ids.size()}};
  doc["totals"] = std::move(totals);
  return doc.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

// Splits one session into the main thread and sub-agent instances.
void SplitThreads(const Conversation& conv, std::vector<const AnthropicCall*>* parent,
                  std::vector<Instance>* instances) {
  std::unordered_map<uint64_t, std::string> prompts;  // Task/Agent prompt digest -> subagent_type
  std::map<std::string, size_t> by_key;
  bool have_main = false;
  uint64_t main_thread = 0, main_first = 0;
  for (const AnthropicCall* c : conv.calls) {
    std::string type;
    bool matched = false;
    for (uint64_t d : c->first_user_text_digests) {
      auto it = prompts.find(d);
      if (it != prompts.end()) {
        matched = true;
        type = it->second.empty() ? "general-purpose" : it->second;
        break;
      }
    }
    const std::string key =
        fmt::format("{:016x}:{:016x}", c->first_message_digest, c->thread_digest);
    bool is_parent = false;
    if (!matched && !by_key.count(key)) {
      if (!have_main) {
        have_main = true;
        main_thread = c->thread_digest;
        main_first = c->first_message_digest;
        is_parent = true;
      } else {
        is_parent = c->thread_digest == main_thread || c->first_message_digest == main_first;
      }
      if (is_parent) main_thread = c->thread_digest;  // the main thread's tools may change
    }
    if (is_parent) {
      parent->push_back(c);
    } else {
      auto [it, inserted] = by_key.emplace(key, instances->size());
      if (inserted) {
        Instance in;
        in.key = key;
        in.type = matched ? type : "unknown";
        instances->push_back(std::move(in));
      }
      (*instances)[it->second].calls.push_back(c);
    }
    for (const TaskSpawn& s : c->spawns) prompts[s.prompt_digest] = s.subagent_type;
  }
}

}  // namespace

void BuildCctraceFiles(std::vector<AnthropicCall> calls, const CctraceExportOptions& options,
                       std::vector<CctraceFile>* files, CctraceExportStats* stats) {
  // Time order (common/replay_order.h); an untimed call takes the time it replays at.
  const ReplayOrder replay = OrderForReplay(calls);
  for (size_t i = 0; i < calls.size(); ++i) calls[i].time_s = replay.time_s[i];
  stats->untimed += replay.untimed;
  const std::vector<uint32_t>& order = replay.order;

  // Sessions, in order of their first call.
  std::vector<Conversation> convs;
  std::unordered_map<std::string, size_t> by_key;
  for (size_t i : order) {
    const AnthropicCall& c = calls[i];
    std::string key;
    if (!c.session.empty()) {
      key = "s:" + c.session;
    } else {
      key = fmt::format("i:{:016x}:{:016x}", c.thread_digest, c.first_message_digest);
      ++stats->without_session;
    }
    auto [it, inserted] = by_key.emplace(key, convs.size());
    if (inserted) {
      Conversation conv;
      conv.key = key;
      conv.id = !c.session.empty() ? c.session.substr(0, 12) : SaltedHexId(options.salt, key, 12);
      convs.push_back(std::move(conv));
    }
    convs[it->second].calls.push_back(&c);
  }

  std::set<std::string> names;
  for (const Conversation& conv : convs) {
    ++stats->conversations;
    std::vector<const AnthropicCall*> parent;
    std::vector<Instance> instances;
    SplitThreads(conv, &parent, &instances);
    stats->parent_requests += parent.size();
    stats->subagents += instances.size();
    for (const auto& in : instances) stats->subagent_requests += in.calls.size();

    // Segments of the main thread, split at long gaps.
    std::vector<Segment> segs;
    for (const AnthropicCall* c : parent) {
      if (segs.empty() ||
          (options.split_at_gap_s > 0 &&
           c->time_s - segs.back().parent.back()->time_s > options.split_at_gap_s)) {
        segs.emplace_back();
        segs.back().start = c->time_s;
      }
      segs.back().parent.push_back(c);
      ++segs.back().calls;
    }
    if (segs.empty()) {  // only sub-agent calls were logged
      segs.emplace_back();
      segs.back().start = instances.front().calls.front()->time_s;
    }
    std::vector<const Instance*> by_time;
    for (const auto& in : instances) by_time.push_back(&in);
    std::stable_sort(by_time.begin(), by_time.end(), [](const Instance* a, const Instance* b) {
      return a->calls.front()->time_s < b->calls.front()->time_s;
    });
    for (const Instance* in : by_time) {
      size_t k = 0;  // the last segment starting at or before the spawn
      while (k + 1 < segs.size() && segs[k + 1].start <= in->calls.front()->time_s) ++k;
      segs[k].subagents.push_back(in);
      segs[k].calls += in->calls.size();
    }
    for (size_t k = 0; k < segs.size(); ++k) {
      std::string id = segs.size() > 1 ? fmt::format("{}_s{}", conv.id, k + 1) : conv.id;
      const std::string stem = SafeFileStem(id);
      std::string name = stem + ".json";
      for (int n = 2; names.count(name); ++n) name = fmt::format("{}~{}.json", stem, n);
      names.insert(name);
      files->push_back({name, SegmentJson(conv, segs[k], id, options, stats)});
      ++stats->files;
    }
  }
}

}  // namespace ltl
