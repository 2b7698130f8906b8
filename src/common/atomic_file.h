// AtomicFile: outputs are written to a temporary file beside the target and renamed into place,
// so an interrupted or failed run leaves the previous file intact and no partial file behind.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "common/status.h"

namespace ltl {

class AtomicFile {
 public:
  AtomicFile() = default;
  ~AtomicFile();  // removes the temporary file unless Commit() succeeded
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  Status Open(const std::string& path);
  Status Write(std::string_view data);
  Status Commit();   // Finish() then Publish()
  Status Finish();   // flush, fsync and close the temporary file (it is complete, not yet visible)
  Status Publish();  // rename the finished temporary over the target
  void Abandon();    // remove the temporary file now

  const std::string& temp_path() const { return temp_path_; }

 private:
  std::string path_;
  std::string temp_path_;
  std::FILE* file_ = nullptr;
  bool finished_ = false;
  bool committed_ = false;
};

// Writes a whole file atomically.
Status WriteFileAtomically(const std::string& path, std::string_view data);

// Removes every temporary output file still open, and the pending temporary directory with the
// files in it (called from the SIGINT/SIGTERM handler path; async-signal-safe).
void RemovePendingTempFiles();

// A directory output (cache-trace export) is built in a temporary directory and renamed into place.
// While it exists it is registered here (one at a time), so an interrupt removes it and its files
// (flat: no subdirectories). Unregister once it has been renamed or removed.
void RegisterPendingTempDir(const std::string& path);
void UnregisterPendingTempDir();

// Installs SIGINT, SIGTERM and SIGHUP handlers that remove pending temporary outputs, then let the
// signal end the process as it would have (exit status 128 + signal number in a shell). Targets
// written before the signal keep their previous content.
void InstallInterruptCleanup();

}  // namespace ltl
