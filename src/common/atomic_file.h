// AtomicFile: outputs are written to a temporary file beside the target and renamed into place,
// so an interrupted or failed run leaves the previous file intact and no partial file behind.
// A temporary is held under flock(2) from its creation until it is renamed or removed, so the
// temporaries a killed run (SIGKILL, power loss) left behind are told apart from a concurrent
// run's live ones and removed by the next run that writes the same output.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ltl {

// Whether Open() first removes stale temporaries of the same target (see RemoveStaleTempFiles).
// kKeep is for files written into a directory this run has just created.
enum class StaleTemps { kRemove, kKeep };

class AtomicFile {
 public:
  AtomicFile() = default;
  ~AtomicFile();  // removes the temporary file unless Commit() succeeded
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  Status Open(const std::string& path, StaleTemps stale = StaleTemps::kRemove);
  Status Write(std::string_view data);
  // For outputs built line by line in `*buf`: writes and clears it once it holds at least
  // `threshold` bytes (1 MiB by default), so memory stays bounded whatever the output's size.
  Status WriteWhenFull(std::string* buf, size_t threshold = size_t{1} << 20);
  Status Commit();   // Finish() then Publish()
  Status Finish();   // flush, fsync and close the temporary file (it is complete, not yet visible)
  Status Publish();  // rename the finished temporary over the target
  void Abandon();    // remove the temporary file now

  const std::string& temp_path() const { return temp_path_; }

 private:
  std::string path_;
  std::string temp_path_;
  std::FILE* file_ = nullptr;
  int lock_fd_ = -1;  // holds the temporary's flock until it is renamed or removed
  bool finished_ = false;
  bool committed_ = false;
};

// Writes a whole file atomically.
Status WriteFileAtomically(const std::string& path, std::string_view data,
                           StaleTemps stale = StaleTemps::kRemove);

// Removes from directory `dir` the temporaries a killed run left for the outputs named in `bases`:
// entries named exactly ".BASE.tmp-XXXXXX" (the six letters or digits mkstemp chose), regular
// files (never a link) owned by this user, whose flock can be taken (a live temporary's cannot).
// Best effort and silent: anything else, or anything that fails, is left alone. Returns the number
// removed.
size_t RemoveStaleTempFiles(const std::string& dir, const std::vector<std::string>& bases);

// Creates directory `path` (which must not exist) and takes an flock on it, held by the returned
// descriptor until it is closed; -1 with errno set on failure. A directory removed by a concurrent
// sweep between its creation and the lock is created again.
int CreateLockedDirectory(const std::string& path);

// Removes from directory `parent` the temporary directories a killed cache-trace export left for
// output `base`: directories named exactly ".BASE.tmp-PID" (decimal digits), owned by this user,
// whose flock can be taken, holding only regular files. Returns the number removed.
size_t RemoveStaleTempDirectories(const std::string& parent, const std::string& base);

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
