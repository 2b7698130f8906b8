// AtomicFile implementation: mkstemp in the target directory, fsync, rename. Pending temporary
// paths are tracked in a fixed table so a signal handler can unlink them without allocating.
#include "common/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>

namespace ltl {
namespace {

constexpr size_t kMaxPending = 64;
std::array<std::atomic<const char*>, kMaxPending> g_pending{};

void Register(const char* p) {
  for (auto& slot : g_pending) {
    const char* expected = nullptr;
    if (slot.compare_exchange_strong(expected, p)) return;
  }
}
void Unregister(const char* p) {
  for (auto& slot : g_pending) {
    const char* expected = p;
    if (slot.compare_exchange_strong(expected, nullptr)) return;
  }
}

// The pending temporary directory: a fixed buffer, published by an atomic flag, so the handler
// reads it without allocating.
char g_pending_dir[4096];
std::atomic<bool> g_pending_dir_set{false};

// Unlinks the entries of directory `dir` and the directory itself with system calls only
// (getdents64 over a stack buffer; opendir/readdir may allocate, which a signal handler must not).
void RemoveFlatDirectory(const char* dir) {
  int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    alignas(8) char buf[4096];
    for (;;) {
      ssize_t n = ::getdents64(fd, buf, sizeof buf);
      if (n <= 0) break;
      for (ssize_t off = 0; off < n;) {
        auto* d = reinterpret_cast<struct dirent64*>(buf + off);
        off += d->d_reclen;
        const char* name = d->d_name;
        if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
        ::unlinkat(fd, name, 0);
      }
    }
    ::close(fd);
  }
  ::rmdir(dir);
}

}  // namespace

void RemovePendingTempFiles() {
  for (auto& slot : g_pending) {
    const char* p = slot.exchange(nullptr);
    if (p) ::unlink(p);  // async-signal-safe
  }
  if (g_pending_dir_set.exchange(false)) RemoveFlatDirectory(g_pending_dir);
}

void RegisterPendingTempDir(const std::string& path) {
  if (path.size() >= sizeof g_pending_dir) return;  // too long to track: best effort
  g_pending_dir_set.store(false);
  std::memcpy(g_pending_dir, path.c_str(), path.size() + 1);
  g_pending_dir_set.store(true);
}

void UnregisterPendingTempDir() {
  g_pending_dir_set.store(false);
}

namespace {

void OnInterrupt(int sig) {
  RemovePendingTempFiles();
  // Restore the default action and re-raise, so the parent sees death by this signal.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);
}

}  // namespace

void InstallInterruptCleanup() {
  struct sigaction sa {};
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    // A signal ignored by the parent (nohup, `trap '' INT`) stays ignored.
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
  }
}

AtomicFile::~AtomicFile() {
  if (!committed_) Abandon();
}

Status AtomicFile::Open(const std::string& path) {
  path_ = path;
  std::string dir = ".";
  std::string base = path;
  if (auto slash = path.rfind('/'); slash != std::string::npos) {
    dir = slash == 0 ? "/" : path.substr(0, slash);
    base = path.substr(slash + 1);
  }
  temp_path_ = dir + "/." + base + ".tmp-XXXXXX";
  int fd = ::mkstemp(temp_path_.data());
  if (fd < 0) {
    Status st =
        Status::IoError(fmt::format("{}: cannot create output: {}", path, std::strerror(errno)));
    temp_path_.clear();
    return st;
  }
  ::fchmod(fd, 0644);
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    ::close(fd);
    ::unlink(temp_path_.c_str());
    temp_path_.clear();
    return Status::IoError(fmt::format("{}: cannot open output", path));
  }
  Register(temp_path_.c_str());
  return Status::Ok();
}

Status AtomicFile::Write(std::string_view data) {
  if (!file_) return Status::IoError(fmt::format("{}: output not open", path_));
  if (!data.empty() && std::fwrite(data.data(), 1, data.size(), file_) != data.size())
    return Status::IoError(fmt::format("{}: write failed: {}", path_, std::strerror(errno)));
  return Status::Ok();
}

Status AtomicFile::Commit() {
  LTL_RETURN_IF_ERROR(Finish());
  return Publish();
}

Status AtomicFile::Finish() {
  if (!file_) return Status::IoError(fmt::format("{}: output not open", path_));
  bool ok = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
  ok = (std::fclose(file_) == 0) && ok;
  file_ = nullptr;
  if (!ok) {
    Status st =
        Status::IoError(fmt::format("{}: cannot write output: {}", path_, std::strerror(errno)));
    Abandon();
    return st;
  }
  finished_ = true;
  return Status::Ok();
}

Status AtomicFile::Publish() {
  if (!finished_) return Status::IoError(fmt::format("{}: output not finished", path_));
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    Status st =
        Status::IoError(fmt::format("{}: cannot write output: {}", path_, std::strerror(errno)));
    Abandon();
    return st;
  }
  Unregister(temp_path_.c_str());
  temp_path_.clear();
  committed_ = true;
  return Status::Ok();
}

void AtomicFile::Abandon() {
  if (file_) {
    std::fclose(file_);
    file_ = nullptr;
  }
  if (!temp_path_.empty()) {
    Unregister(temp_path_.c_str());
    ::unlink(temp_path_.c_str());
    temp_path_.clear();
  }
}

Status WriteFileAtomically(const std::string& path, std::string_view data) {
  AtomicFile f;
  LTL_RETURN_IF_ERROR(f.Open(path));
  LTL_RETURN_IF_ERROR(f.Write(data));
  return f.Commit();
}

}  // namespace ltl
