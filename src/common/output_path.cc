// ResolveOutputPath, OutputWriter and WriteFilesTogether (see output_path.h).
#include "common/output_path.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace ltl {
namespace {

namespace fs = std::filesystem;

const char* KindName(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  return "not a regular file";
}

std::string DirectoryOf(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

Result<OutputPath> ResolveOutputPath(const std::string& path, bool allow_stream) {
  OutputPath out;
  out.as_given = path;
  out.path = path;
  if (path.empty()) return Status::InvalidArgument("-o: the output path is empty");
  if (path == "-") {
    if (!allow_stream)
      return Status::InvalidArgument(
          "-o -: this command writes two files (PREFIX.json and PREFIX.html), so it cannot "
          "write to standard output; give a file prefix");
    out.kind = OutputPath::Kind::kStream;
    return out;
  }
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return out;  // a new file
    return Status::IoError(fmt::format("{}: cannot write output: {}", path, std::strerror(errno)));
  }
  // A symlink is written through: its target is replaced and the link stays. A dangling link
  // names the file to create; a chain longer than the kernel's own limit (40) is a loop. Only a
  // link to a file in the link's own directory is followed: the default outputs (report.json,
  // report.html) are written into a working directory others may share, and a link planted there
  // under that name would have its target anywhere replaced (issue 35, item 18).
  std::error_code dir_ec;
  const fs::path parent = fs::path(path).parent_path();
  const fs::path link_dir = fs::weakly_canonical(parent.empty() ? fs::path(".") : parent, dir_ec);
  for (int hops = 0; S_ISLNK(st.st_mode); ++hops) {
    std::error_code ec;
    fs::path target = fs::read_symlink(out.path, ec);
    if (ec || hops == 40)
      return Status::IoError(fmt::format("{}: cannot follow the symbolic link: {}", path,
                                         ec ? ec.message() : "too many levels of links"));
    if (target.is_relative()) target = fs::path(out.path).parent_path() / target;
    out.path = target.lexically_normal().string();
    const fs::path target_parent = fs::path(out.path).parent_path();
    const fs::path target_dir =
        fs::weakly_canonical(target_parent.empty() ? fs::path(".") : target_parent, ec);
    if (dir_ec || ec || target_dir != link_dir)
      return Status::InvalidArgument(fmt::format(
          "{}: is a symbolic link to {}, outside the directory it is in; an output follows a link "
          "only to a file beside it (remove the link, or give the target itself with -o)",
          path, out.path));
    if (::lstat(out.path.c_str(), &st) != 0) {
      if (errno == ENOENT) return out;
      return Status::IoError(
          fmt::format("{}: cannot write output: {}", path, std::strerror(errno)));
    }
  }
  if (S_ISREG(st.st_mode)) return out;
  if (allow_stream && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
    out.kind = OutputPath::Kind::kStream;
    return out;
  }
  if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))
    return Status::InvalidArgument(fmt::format(
        "{}: is {}; the report's two files are published together, so each must be a regular "
        "file",
        path, KindName(st.st_mode)));
  return Status::InvalidArgument(
      fmt::format("{}: is {}; an output replaces only a regular file", path, KindName(st.st_mode)));
}

std::string ReportPrefix(const std::string& prefix) {
  if (!prefix.empty() && prefix.back() == '/') return prefix + "report";
  std::error_code ec;
  if (prefix != "-" && fs::is_directory(prefix, ec)) return prefix + "/report";
  return prefix;
}

OutputWriter::~OutputWriter() {
  Abandon();
}

Status OutputWriter::Open(const OutputPath& out) {
  out_ = out;
  if (out.kind == OutputPath::Kind::kFile) return file_.Open(out.path);
  if (out.path == "-") {
    fd_ = STDOUT_FILENO;
    own_fd_ = false;
    return Status::Ok();
  }
  // A FIFO blocks here until a reader opens it, as any writer to a FIFO does.
  fd_ = ::open(out.path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd_ < 0)
    return Status::IoError(
        fmt::format("{}: cannot open output: {}", out.as_given, std::strerror(errno)));
  own_fd_ = true;
  return Status::Ok();
}

Status OutputWriter::Write(std::string_view data) {
  if (out_.kind == OutputPath::Kind::kFile) return file_.Write(data);
  if (fd_ < 0) return Status::IoError(fmt::format("{}: output not open", out_.as_given));
  while (!data.empty()) {
    ssize_t n = ::write(fd_, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return Status::IoError(
          fmt::format("{}: write failed: {}", out_.as_given, std::strerror(errno)));
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Status OutputWriter::Commit() {
  if (out_.kind == OutputPath::Kind::kFile) return file_.Commit();
  Status st = Status::Ok();
  if (own_fd_ && fd_ >= 0 && ::close(fd_) != 0)
    st = Status::IoError(
        fmt::format("{}: cannot write output: {}", out_.as_given, std::strerror(errno)));
  fd_ = -1;
  return st;
}

void OutputWriter::Abandon() {
  if (out_.kind == OutputPath::Kind::kFile) {
    file_.Abandon();
    return;
  }
  if (own_fd_ && fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Status WriteFilesTogether(const std::vector<OutputFile>& files) {
  std::vector<std::unique_ptr<AtomicFile>> temps;
  for (const OutputFile& f : files) {
    temps.push_back(std::make_unique<AtomicFile>());
    LTL_RETURN_IF_ERROR(temps.back()->Open(f.path));
    LTL_RETURN_IF_ERROR(temps.back()->Write(f.data));
  }
  for (auto& t : temps) LTL_RETURN_IF_ERROR(t->Finish());
  if (files.empty()) return Status::Ok();
  const std::string dir = DirectoryOf(files.front().path);
  int lock = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock < 0 || ::flock(lock, LOCK_EX) != 0) {
    Status st = Status::IoError(
        fmt::format("{}: cannot lock the output directory: {}", dir, std::strerror(errno)));
    if (lock >= 0) ::close(lock);
    return st;
  }
  Status st = Status::Ok();
  for (auto& t : temps) {
    st = t->Publish();
    if (!st.ok()) break;
  }
  ::close(lock);  // releases the lock
  return st;
}

}  // namespace ltl
