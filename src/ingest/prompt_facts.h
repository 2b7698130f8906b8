// PromptFacts of one gateway request (common/request_record.h): the rendered prompt's segments in
// order, each with its first token after cutting and keyed digests of its text (plain and with
// volatile substrings masked); the body's tool definitions as name and definition digests; where
// the last cache_control marker sits. Digests are salted SipHash, so the facts hold no text and
// are comparable only within one salt. The cache-busters analysis (analyze/cache_busters.h) reads
// them to say where and why two prompts diverge.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/request_record.h"
#include "common/siphash.h"
#include "hash/block_cutter.h"
#include "hash/memo_store.h"
#include "render/render_prompt.h"

namespace ltl {

// `text` with every volatile word replaced by '#' (docs/SEMANTICS.md, "Cache busters"): a word is
// a maximal run of ASCII letters, digits and - : . / _ +; it is volatile when it holds at least two
// digits and no more letters than digits, or at least eight hex digits and nothing but hex digits
// and separators (dates, times, epochs, UUIDs, hex ids, counters).
void MaskVolatile(std::string_view text, std::string* out);

// A JSON value in a form that is the same whenever a client resends it: keys in order, every
// cache_control marker dropped, strings as length-prefixed raw bytes, numbers and literals as
// minified JSON, keys length-prefixed. With `masked` (scratch), every string value is taken with
// its volatile words masked (MaskVolatile).
void AppendCanonical(simdjson::dom::element e, std::string* out, std::string* masked = nullptr);

// One builder per worker thread; the builders of one read share their memo (the constructor with
// `share_memo_with`), as the cutters whose stamps key it do (BlockCutter::Sibling). Agentic logs
// resend their history, so most of a request's segments are byte for byte those of the request it
// continues: given the cutter's TextReuse (hash/block_cutter.h; keys qualified by the caller so
// that several cutters' stamps never meet), the builder takes the digests and code-point counts of
// every segment that lies inside the equal leading bytes at the same offsets, and digests only the
// rest. The facts are the same either way.
class PromptFactsBuilder {
 public:
  explicit PromptFactsBuilder(SipKey key);
  // A builder for another thread that shares `share_memo_with`'s remembered runs.
  PromptFactsBuilder(SipKey key, const PromptFactsBuilder& share_memo_with);
  // Fills *out for `prompt` (rendered from `body`) cut into `tokens` tokens; `approximate` says
  // the cutter counts code points (exact positions) rather than tokenizer ids (estimated).
  // `reuse`: the text was compared with the text remembered under reuse.earlier (0 = none) and is
  // remembered under reuse.stamp (0 = not).
  void Build(const RenderedPrompt& prompt, simdjson::dom::object body, int64_t tokens,
             bool approximate, const TextReuse& reuse, PromptFacts* out);
  void Build(const RenderedPrompt& prompt, simdjson::dom::object body, int64_t tokens,
             bool approximate, PromptFacts* out) {
    Build(prompt, body, tokens, approximate, TextReuse{}, out);
  }
  // Segments whose digests came from a remembered text (for tests and benchmarks).
  uint64_t reused_segments() const { return reused_segments_; }

 private:
  // One run of one segment in text order, with what is costly to recompute.
  struct Run {
    size_t begin, end;
    uint32_t segment;  // index into the prompt's SegmentMap
    uint32_t digest = 0, masked_digest = 0;
    uint64_t code_points = 0;
  };
  // What the memo keeps of a Run (20 bytes instead of 40: the memo holds the runs of every live
  // conversation's last text); only texts shorter than 4 GiB are remembered.
  struct MemoRun {
    uint32_t begin, end;
    uint32_t digest, masked_digest;
    uint32_t code_points;
  };
  // The runs of a text the cutter remembers, kept under the cutter's stamp for it.
  struct RunsMemo {
    std::vector<MemoRun> runs;
    uint64_t stamp = 0;
    void Clear() { runs.clear(); }
    size_t bytes() const { return runs.capacity() * sizeof(MemoRun); }
  };
  uint32_t Digest(std::string_view s) const;
  void SplitRuns(const RenderedPrompt& prompt);
  void FillRuns(std::string_view text, const std::vector<MemoRun>* earlier, size_t common_bytes);

  SipKey key_;
  std::string masked_, scratch_;
  std::vector<Run> runs_;
  std::shared_ptr<MemoStore<RunsMemo>> memo_ =
      std::make_shared<MemoStore<RunsMemo>>(size_t{8} << 20);
  uint64_t reused_segments_ = 0;
};

}  // namespace ltl
