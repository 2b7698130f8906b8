// What an `-o` path names, decided before any work is done: a regular file (new or existing) that
// is replaced atomically, or a stream (`-` = standard output, a FIFO, a character device such as
// /dev/null) that is written through. A symlink to a file in its own directory is followed, so the
// file it points to is replaced and the link stays; a link pointing out of its directory is
// refused. Anything else (a directory, a socket, a block device) is refused: an output
// never replaces what is not a regular file (docs/ROBUSTNESS.md, "Outputs and interruption").
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/atomic_file.h"
#include "common/status.h"

namespace ltl {

struct OutputPath {
  enum class Kind { kFile, kStream };
  Kind kind = Kind::kFile;
  std::string path;      // the file to replace or the stream to open ("-" = standard output)
  std::string as_given;  // for messages
};

// `allow_stream`: whether this output may be a stream (a single file may; a report pair may not,
// since its two files are published together). Errors are one line naming the path.
Result<OutputPath> ResolveOutputPath(const std::string& path, bool allow_stream);

// `profile -o PREFIX`: "dir/" or an existing directory means dir/report.
std::string ReportPrefix(const std::string& prefix);

// One output: an AtomicFile for a file, a plain descriptor for a stream.
class OutputWriter {
 public:
  OutputWriter() = default;
  ~OutputWriter();
  OutputWriter(const OutputWriter&) = delete;
  OutputWriter& operator=(const OutputWriter&) = delete;

  Status Open(const OutputPath& out);
  Status Write(std::string_view data);
  Status Commit();  // file: fsync + rename; stream: flush and close
  void Abandon();   // file: remove the temporary; stream: close (what was written stays written)

 private:
  OutputPath out_;
  AtomicFile file_;
  int fd_ = -1;
  bool own_fd_ = false;
};

// Writes files that belong together (report.json and report.html) so that a reader never sees a
// mismatched pair: every temporary is written and fsynced first, then, under an advisory lock on
// their directory (flock, so two runs with the same -o publish one whole pair each), they are
// renamed in the order given (put the file readers poll last). All files must be in one directory.
struct OutputFile {
  std::string path;
  std::string data;
};
Status WriteFilesTogether(const std::vector<OutputFile>& files);

}  // namespace ltl
