// ProgressLine (see progress_line.h).
#include "cli/progress_line.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cli/commands.h"

namespace ltl::cli {
namespace {

std::string Bytes(double b) {
  if (b >= 1e9) return fmt::format("{:.2f} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.1f} MB", b / 1e6);
  return fmt::format("{:.0f} kB", b / 1e3);
}

std::string Eta(double s) {
  const int64_t t = std::llround(s);
  if (t < 60) return fmt::format("{} s", t);
  if (t < 3600) return fmt::format("{} min {:02} s", t / 60, t % 60);
  return fmt::format("{} h {:02} min", t / 3600, (t % 3600) / 60);
}

}  // namespace

ProgressLine::ProgressLine(bool enabled, std::string name)
    : enabled_(enabled), name_(std::move(name)), start_(Clock::now()) {
  if (const char* env = std::getenv("LTL_PROGRESS_DELAY_S")) {
    char* end = nullptr;
    double v = std::strtod(env, &end);
    if (end != env && v >= 0) delay_s_ = v;
  }
}

bool ProgressLine::Wanted(bool quiet) {
  return !quiet && ::isatty(STDERR_FILENO) == 1;
}

void ProgressLine::Update(uint64_t bytes, uint64_t total) {
  if (!enabled_) return;
  const auto now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < delay_s_) return;
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(200)) return;
  const double rate = elapsed > 0 ? static_cast<double>(bytes) / elapsed : 0.0;
  std::string line = fmt::format("reading {}  {}", name_, Bytes(static_cast<double>(bytes)));
  if (total > 0 && bytes <= total) {
    line += fmt::format(" of {} ({:.0f}%)", Bytes(static_cast<double>(total)),
                        100.0 * static_cast<double>(bytes) / static_cast<double>(total));
  }
  if (rate > 0) line += fmt::format(" · {}/s", Bytes(rate));
  if (total > 0 && bytes <= total && rate > 0)
    line += " · ETA " + Eta(static_cast<double>(total - bytes) / rate);
  // \r returns to the start of the line, ESC[K erases what a longer previous line left.
  std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
  last_draw_ = now;
}

void ProgressLine::Finish() {
  if (!drawn_) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

RunHooks ProgressHooks(bool quiet, std::unique_ptr<ProgressLine>* line) {
  RunHooks hooks;
  hooks.read_start = [quiet, line](const std::string& name) {
    *line = std::make_unique<ProgressLine>(ProgressLine::Wanted(quiet), name);
  };
  hooks.progress = [line](uint64_t bytes, uint64_t total) {
    if (*line) (*line)->Update(bytes, total);
  };
  hooks.read_done = [line] {
    if (*line) (*line)->Finish();
  };
  hooks.warn = [line](const std::string& m) {
    if (*line) (*line)->Finish();  // a warning takes its own line, the progress line after it
    PrintWarning(m);
  };
  return hooks;
}

}  // namespace ltl::cli
