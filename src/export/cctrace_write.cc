// Atomic directory output for cache traces (see cctrace_write.h).
#include "export/cctrace_write.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/atomic_file.h"

namespace ltl {

Status WriteCctraceDirectory(const std::string& dir, const std::vector<CctraceFile>& files) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec))
      return Status::InvalidArgument(fmt::format("{}: exists and is not a directory", dir));
    // A killed export leaves a temporary beside each file it was writing; they would make the
    // directory look used.
    std::vector<std::string> names;
    names.reserve(files.size());
    for (const CctraceFile& f : files) names.push_back(f.name);
    RemoveStaleTempFiles(dir, names);
    if (!fs::is_empty(dir, ec))
      return Status::InvalidArgument(fmt::format(
          "{}: output directory is not empty (traces of two runs would mix); choose a new one",
          dir));
    for (const CctraceFile& f : files) {
      Status st = WriteFileAtomically((fs::path(dir) / f.name).string(), f.json, StaleTemps::kKeep);
      if (!st.ok()) return st;
    }
    return Status::Ok();
  }
  fs::path target = fs::path(dir).lexically_normal();
  if (target.has_filename() == false) target = target.parent_path();
  const fs::path tmp = target.parent_path() / fmt::format(".{}.tmp-{}", target.filename().string(),
                                                          static_cast<long>(getpid()));
  // Temporary directories of killed exports to the same target (this one's name included, when a
  // process of this pid left one) go first; a concurrent export's is locked and stays.
  const std::string parent = target.parent_path().empty() ? "." : target.parent_path().string();
  RemoveStaleTempDirectories(parent, target.filename().string());
  // The lock is held until the directory is renamed into place or removed.
  const int lock = CreateLockedDirectory(tmp.string());
  if (lock < 0)
    return Status::IoError(
        fmt::format("{}: cannot create directory: {}", tmp.string(), std::strerror(errno)));
  RegisterPendingTempDir(tmp.string());  // an interrupt from here on removes it
  for (const CctraceFile& f : files) {
    Status st = WriteFileAtomically((tmp / f.name).string(), f.json, StaleTemps::kKeep);
    if (!st.ok()) {
      UnregisterPendingTempDir();
      fs::remove_all(tmp, ec);
      ::close(lock);
      return st;
    }
  }
  fs::rename(tmp, target, ec);
  UnregisterPendingTempDir();
  ::close(lock);
  if (ec) {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    return Status::IoError(fmt::format("{}: cannot rename into place: {}", dir, ec.message()));
  }
  return Status::Ok();
}

}  // namespace ltl
