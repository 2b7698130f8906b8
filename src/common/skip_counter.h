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

  // `reason` is a short fixed phrase ("invalid JSON", "missing hash_ids", ...), never input text.
  void Add(const std::string& reason, uint64_t line) {
    auto& e = by_reason_[reason];
    ++e.count;
    if (e.lines.size() < kExamplesPerReason) e.lines.push_back(line);
    ++total_;
  }
  void Merge(const SkipCounter& other) {
    for (const auto& [reason, e] : other.by_reason_) {
      auto& mine = by_reason_[reason];
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
