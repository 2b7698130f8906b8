// ProgressLine: the "reading FILE  1.2 GB of 3.4 GB (35%) · 180 MB/s · ETA 12 s" line on stderr
// while an input is read. Shown only when stderr is a terminal, not with --quiet, and only once
// reading has taken longer than a delay (1 s), so quick runs and pipes stay clean.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "pipeline/run_setup.h"

namespace ltl::cli {

class ProgressLine {
 public:
  // `enabled` false makes every call a no-op. The delay can be overridden with the environment
  // variable LTL_PROGRESS_DELAY_S (seconds; tests set 0).
  ProgressLine(bool enabled, std::string name);
  ~ProgressLine() { Finish(); }

  // Whether stderr is a terminal and the user did not ask for --quiet.
  static bool Wanted(bool quiet);

  // Bytes consumed so far and the total (0 = unknown, e.g. stdin). Throttled to 5 updates/s.
  void Update(uint64_t bytes, uint64_t total);
  // Erases the line if one was drawn.
  void Finish();

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  std::string name_;
  double delay_s_ = 1.0;
  Clock::time_point start_;
  Clock::time_point last_draw_;
  bool drawn_ = false;
};

// A run's hooks for the command line: a progress line (made in *line when reading starts, unless
// quiet) and warnings printed on their own line.
RunHooks ProgressHooks(bool quiet, std::unique_ptr<ProgressLine>* line);

}  // namespace ltl::cli
