// AtomicFile implementation: mkstemp in the target directory, flock, fsync, rename. Pending
// temporary paths are tracked in a fixed table so a signal handler can unlink them without
// allocating; the flock tells a live temporary from one a killed run left (RemoveStaleTempFiles).
#include "common/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>

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

namespace {

bool IsTempSuffixChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Whether `name` is ".BASE.tmp-" followed by something; that something goes to *suffix.
bool SplitTempName(std::string_view name, const std::string& base, std::string_view* suffix) {
  if (name.size() < base.size() + 6 || name[0] != '.') return false;
  if (name.substr(1, base.size()) != base) return false;
  if (name.substr(1 + base.size(), 5) != ".tmp-") return false;
  *suffix = name.substr(base.size() + 6);
  return true;
}

bool IsStaleFileName(std::string_view name, const std::vector<std::string>& bases) {
  for (const std::string& base : bases) {
    std::string_view suffix;
    if (!SplitTempName(name, base, &suffix) || suffix.size() != 6) continue;
    bool all = true;
    for (char c : suffix) all = all && IsTempSuffixChar(c);
    if (all) return true;
  }
  return false;
}

bool IsStaleDirName(std::string_view name, const std::string& base) {
  std::string_view suffix;
  if (!SplitTempName(name, base, &suffix) || suffix.empty() || suffix.size() > 10) return false;
  for (char c : suffix)
    if (c < '0' || c > '9') return false;
  return true;
}

bool SameInode(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// Takes the flock of a freshly created temporary `path` open as `fd`, and checks that `path`
// still names it: a concurrent sweep may have found and removed it between its creation and the
// lock. A file system without flock (ENOLCK, EOPNOTSUPP) keeps every temporary: a sweep there
// cannot take a lock either.
bool LockFresh(int fd, const std::string& path) {
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) return false;
  struct stat by_fd {
  }, by_name{};
  return ::fstat(fd, &by_fd) == 0 && ::lstat(path.c_str(), &by_name) == 0 &&
         SameInode(by_fd, by_name);
}

// Opens entry `name` of `dfd` without following a link, checks it is of type `type` and owned by
// this user, and takes its flock. Returns the descriptor holding the lock, or -1 (in use, not
// ours, gone).
int OpenStale(int dfd, const char* name, mode_t type) {
  int fd = ::openat(
      dfd, name,
      O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (type == S_IFDIR ? O_DIRECTORY : 0));
  if (fd < 0) return -1;
  struct stat st {
  }, again{};
  if (::fstat(fd, &st) != 0 || (st.st_mode & S_IFMT) != type || st.st_uid != ::geteuid() ||
      ::flock(fd, LOCK_EX | LOCK_NB) != 0 ||
      ::fstatat(dfd, name, &again, AT_SYMLINK_NOFOLLOW) != 0 || !SameInode(st, again)) {
    ::close(fd);
    return -1;
  }
  return fd;
}

struct DirCloser {
  void operator()(DIR* d) const { ::closedir(d); }
};

// The names of `dir`'s entries that `keep` accepts.
template <typename Keep>
std::vector<std::string> ListEntries(int dfd, Keep keep) {
  std::vector<std::string> names;
  int copy = ::fcntl(dfd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) return names;
  std::unique_ptr<DIR, DirCloser> d(::fdopendir(copy));
  if (!d) {
    ::close(copy);
    return names;
  }
  while (const struct dirent* e = ::readdir(d.get()))
    if (keep(std::string_view(e->d_name))) names.emplace_back(e->d_name);
  return names;
}

}  // namespace

size_t RemoveStaleTempFiles(const std::string& dir, const std::vector<std::string>& bases) {
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return 0;
  size_t removed = 0;
  for (const std::string& name :
       ListEntries(dfd, [&](std::string_view n) { return IsStaleFileName(n, bases); })) {
    int fd = OpenStale(dfd, name.c_str(), S_IFREG);
    if (fd < 0) continue;
    if (::unlinkat(dfd, name.c_str(), 0) == 0) ++removed;
    ::close(fd);
  }
  ::close(dfd);
  return removed;
}

size_t RemoveStaleTempDirectories(const std::string& parent, const std::string& base) {
  int pfd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (pfd < 0) return 0;
  size_t removed = 0;
  for (const std::string& name :
       ListEntries(pfd, [&](std::string_view n) { return IsStaleDirName(n, base); })) {
    int fd = OpenStale(pfd, name.c_str(), S_IFDIR);
    if (fd < 0) continue;
    // Only what an export writes: regular files. Anything else (a subdirectory, a link) means the
    // directory is not a temporary of ours as we left it; leave all of it.
    bool flat = true;
    std::vector<std::string> files = ListEntries(fd, [&](std::string_view n) {
      if (n == "." || n == "..") return false;
      struct stat st {};
      std::string s(n);
      if (::fstatat(fd, s.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
        flat = false;
      return true;
    });
    if (flat) {
      for (const std::string& f : files) ::unlinkat(fd, f.c_str(), 0);
      if (::unlinkat(pfd, name.c_str(), AT_REMOVEDIR) == 0) ++removed;
    }
    ::close(fd);
  }
  ::close(pfd);
  return removed;
}

int CreateLockedDirectory(const std::string& path) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    if (::mkdir(path.c_str(), 0755) != 0) return -1;
    int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -1;
    if (LockFresh(fd, path)) return fd;
    ::close(fd);  // swept away before the lock: make it again
  }
  errno = EBUSY;
  return -1;
}

AtomicFile::~AtomicFile() {
  if (!committed_) Abandon();
}

Status AtomicFile::Open(const std::string& path, StaleTemps stale) {
  path_ = path;
  std::string dir = ".";
  std::string base = path;
  if (auto slash = path.rfind('/'); slash != std::string::npos) {
    dir = slash == 0 ? "/" : path.substr(0, slash);
    base = path.substr(slash + 1);
  }
  if (stale == StaleTemps::kRemove) RemoveStaleTempFiles(dir, {base});
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    temp_path_ = dir;
    temp_path_ += "/.";
    temp_path_ += base;
    temp_path_ += ".tmp-XXXXXX";
    fd = ::mkostemp(temp_path_.data(), O_CLOEXEC);
    if (fd < 0) {
      Status st =
          Status::IoError(fmt::format("{}: cannot create output: {}", path, std::strerror(errno)));
      temp_path_.clear();
      return st;
    }
    if (LockFresh(fd, temp_path_)) break;
    ::close(fd);  // a concurrent run's sweep took it before the lock (and removes it): another name
    fd = -1;
    if (attempt == 16) {
      temp_path_.clear();
      return Status::IoError(
          fmt::format("{}: cannot create output: {}", path, std::strerror(EBUSY)));
    }
  }
  ::fchmod(fd, 0644);
  lock_fd_ = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);  // shares the lock; outlives the FILE* (Finish)
  file_ = ::fdopen(fd, "wb");
  if (!file_ || lock_fd_ < 0) {
    if (file_) {
      std::fclose(file_);
      file_ = nullptr;
    } else {
      ::close(fd);
    }
    if (lock_fd_ >= 0) ::close(lock_fd_);
    lock_fd_ = -1;
    ::unlink(temp_path_.c_str());
    temp_path_.clear();
    return Status::IoError(fmt::format("{}: cannot open output", path));
  }
  Register(temp_path_.c_str());
  return Status::Ok();
}

Status AtomicFile::WriteWhenFull(std::string* buf, size_t threshold) {
  if (buf->size() < threshold) return Status::Ok();
  Status st = Write(*buf);
  buf->clear();
  return st;
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
  ::close(lock_fd_);
  lock_fd_ = -1;
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
  if (lock_fd_ >= 0) {
    ::close(lock_fd_);  // after the unlink: never a moment with the temporary unlocked
    lock_fd_ = -1;
  }
}

Status WriteFileAtomically(const std::string& path, std::string_view data, StaleTemps stale) {
  AtomicFile f;
  LTL_RETURN_IF_ERROR(f.Open(path, stale));
  LTL_RETURN_IF_ERROR(f.Write(data));
  return f.Commit();
}

}  // namespace ltl
