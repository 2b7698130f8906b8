// Segment map: which byte ranges of a rendered prompt came from which part of the request —
// the tool definitions, a system message, message k with its role, one of its tool calls, a
// tool result, reasoning, documents — and which are template framing (the template's own
// literal text and values it computed without request data). Positions and categories only,
// never text, so a later stage can name where two prompts diverge without leaking either.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ltl {

enum class SegmentKind : uint8_t {
  kFraming,     // template text
  kTools,       // the request's tool definitions (index = tool position)
  kSystem,      // a system / developer message's content (message = position)
  kMessage,     // a user / assistant message's content (message = position)
  kToolCall,    // an assistant tool call (message, index = call position)
  kToolResult,  // a tool message's content (message = position)
  kReasoning,   // reasoning / thinking of an assistant message
  kDocuments,   // RAG documents
  kOther,       // any other request field a template reads (names, ids, ...)
};

enum class SegmentRole : uint8_t { kNone, kSystem, kDeveloper, kUser, kAssistant, kTool, kOther };

struct Segment {
  SegmentKind kind = SegmentKind::kFraming;
  SegmentRole role = SegmentRole::kNone;
  int32_t message = -1;  // index in the template's messages list
  int32_t index = -1;    // tool / tool call / part index
};

struct SegmentSpan {
  size_t offset = 0, length = 0;
  uint32_t segment = 0;  // index into SegmentMap::segments (0 = framing)
};

struct SegmentMap {
  std::vector<Segment> segments = std::vector<Segment>(1);  // [0] is framing
  std::vector<SegmentSpan> spans;  // ordered, adjacent spans of one segment merged
  void Clear() {
    segments.assign(1, Segment{});
    spans.clear();
  }
  uint32_t Add(const Segment& s) {
    segments.push_back(s);
    return static_cast<uint32_t>(segments.size() - 1);
  }
  // The segment of rendered byte `offset` (0 when outside every span).
  uint32_t SegmentAt(size_t offset) const;
};

const char* SegmentKindName(SegmentKind k);
const char* SegmentRoleName(SegmentRole r);

}  // namespace ltl
