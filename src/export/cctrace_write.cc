// Atomic directory output for cache traces (see cctrace_write.h).
#include "export/cctrace_write.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>

#include "common/atomic_file.h"

namespace ltl {

Status WriteCctraceDirectory(const std::string& dir, const std::vector<CctraceFile>& files) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec))
      return Status::InvalidArgument(fmt::format("{}: exists and is not a directory", dir));
    if (!fs::is_empty(dir, ec))
      return Status::InvalidArgument(fmt::format(
          "{}: output directory is not empty (traces of two runs would mix); choose a new one",
          dir));
    for (const CctraceFile& f : files) {
      Status st = WriteFileAtomically((fs::path(dir) / f.name).string(), f.json);
      if (!st.ok()) return st;
    }
    return Status::Ok();
  }
  fs::path target = fs::path(dir).lexically_normal();
  if (target.has_filename() == false) target = target.parent_path();
  const fs::path tmp = target.parent_path() / fmt::format(".{}.tmp-{}", target.filename().string(),
                                                          static_cast<long>(getpid()));
  fs::remove_all(tmp, ec);
  if (!fs::create_directories(tmp, ec) || ec)
    return Status::IoError(
        fmt::format("{}: cannot create directory: {}", tmp.string(), ec.message()));
  RegisterPendingTempDir(tmp.string());  // an interrupt from here on removes it
  for (const CctraceFile& f : files) {
    Status st = WriteFileAtomically((tmp / f.name).string(), f.json);
    if (!st.ok()) {
      UnregisterPendingTempDir();
      fs::remove_all(tmp, ec);
      return st;
    }
  }
  fs::rename(tmp, target, ec);
  UnregisterPendingTempDir();
  if (ec) {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    return Status::IoError(fmt::format("{}: cannot rename into place: {}", dir, ec.message()));
  }
  return Status::Ok();
}

}  // namespace ltl
