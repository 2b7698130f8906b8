// SkipCounter: bad input rows are skipped, never silently. Each skip is counted by reason, and the
// first few locations per reason are kept so the report and the terminal can say where they are.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ltl {

class SkipCounter {
 public:
  static constexpr size_t kExamplesPerReason = 5;
  // Distinct reasons kept; further ones (templates raise many different messages) are counted
  // together under kOtherReasons, so the report stays bounded.
  static constexpr size_t kMaxReasons = 256;
  static constexpr const char* kOtherReasons = "(other reasons)";

  // `reason` is a short fixed phrase ("invalid JSON", "missing hash_ids", ...), never input text.
  void Add(const std::string& reason, uint64_t line) {
    auto it = by_reason_.find(reason);
    if (it == by_reason_.end())
      it = by_reason_.try_emplace(by_reason_.size() >= kMaxReasons ? kOtherReasons : reason).first;
    auto& e = it->second;
    ++e.count;
    if (e.lines.size() < kExamplesPerReason) e.lines.push_back(line);
    ++total_;
  }
  void Merge(const SkipCounter& other) {
    for (const auto& [reason, e] : other.by_reason_) {
      auto it = by_reason_.find(reason);
      if (it == by_reason_.end())
        it =
            by_reason_.try_emplace(by_reason_.size() >= kMaxReasons ? kOtherReasons : reason).first;
      auto& mine = it->second;
      mine.count += e.count;
      for (uint64_t l : e.lines)
        if (mine.lines.size() < kExamplesPerReason) mine.lines.push_back(l);
      total_ += e.count;
    }
  }

  struct Entry {
    uint64_t count = 0;
    std::vector<uint64_t> lines;  // first few 1-based line/row numbers
  };
  uint64_t total() const { return total_; }
  const std::map<std::string, Entry>& by_reason() const { return by_reason_; }

 private:
  std::map<std::string, Entry> by_reason_;
  uint64_t total_ = 0;
};

}  // namespace ltl
