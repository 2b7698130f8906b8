// LoadOrCreateSalt (see salt_file.h). Creation writes 32 hex digits into a private temporary file
// (open(O_CREAT|O_EXCL, 0600)), fsyncs it and link(2)s it to the final name: link never replaces an
// existing file, so two runs racing to create the salt agree on one key, and a reader never sees a
// half-written file.
#include "hash/salt_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>

namespace ltl {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Status ReadAll(int fd, const std::string& path, std::string* out) {
  char buf[256];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return Status::IoError(
          fmt::format("{}: cannot read salt file: {}", path, std::strerror(errno)));
    if (n == 0) return Status::Ok();
    out->append(buf, static_cast<size_t>(n));
    if (out->size() > 4096) return Status::Corrupt(fmt::format("{}: salt file is too large", path));
  }
}

Result<Salt> ReadExisting(const std::string& path) {
  // O_NOFOLLOW: a symbolic link planted at the path (the default .ltl-salt sits in a working
  // directory others may share) is refused, never followed to a file the link's owner chose.
  // O_NONBLOCK: opening a FIFO planted at the path must not hang; it is refused below. Nothing
  // about the file is changed until it has been read and holds a valid salt (issue 35, item 1).
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    if (err == ELOOP)
      return Status::InvalidArgument(fmt::format(
          "{}: salt file is a symbolic link; name the file itself (links are not followed)", path));
    return Status::IoError(fmt::format("{}: cannot open salt file: {}", path, std::strerror(err)));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return Status::IoError(fmt::format("{}: cannot stat salt file", path));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument(fmt::format("{}: salt file is not a regular file", path));
  }
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    ::close(fd);
    return Status::InvalidArgument(
        fmt::format("{}: salt file is writable by group or others; run chmod 600 on it", path));
  }
  std::string content;
  Status rs = ReadAll(fd, path, &content);
  if (!rs.ok()) {
    ::close(fd);
    return rs;
  }
  auto key = ParseSalt(content, path);
  if (!key.ok()) {
    ::close(fd);
    return key.status();
  }
  bool tightened = false;
  if (st.st_mode & (S_IRGRP | S_IROTH)) {
    // Only a file this user owns is changed (root included: root does not tighten another
    // user's file, it refuses it), and only once it has proved to be a salt.
    const bool own = st.st_uid == ::geteuid();
    if (!own || ::fchmod(fd, st.st_mode & S_IRWXU) != 0) {
      const int err = own ? errno : EPERM;
      ::close(fd);
      return Status::InvalidArgument(
          fmt::format("{}: salt file is readable by group or others and cannot be made private "
                      "({}); run chmod 600 on it as its owner",
                      path, own ? std::strerror(err) : "owned by another user"));
    }
    tightened = true;
  }
  ::close(fd);
  return Salt{*key, false, tightened};
}

Status WriteAll(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::IoError(std::strerror(errno));
    off += static_cast<size_t>(n);
  }
  return ::fsync(fd) == 0 ? Status::Ok() : Status::IoError(std::strerror(errno));
}

}  // namespace

Result<SipKey> ParseSalt(const std::string& content, const std::string& path) {
  size_t b = content.find_first_not_of(" \t\r\n");
  size_t e = content.find_last_not_of(" \t\r\n");
  std::string_view hex =
      b == std::string::npos ? std::string_view() : std::string_view(content).substr(b, e - b + 1);
  unsigned char bytes[16];
  bool ok = hex.size() == 32;
  for (size_t i = 0; ok && i < 16; ++i) {
    int hi = HexDigit(hex[2 * i]), lo = HexDigit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0)
      ok = false;
    else
      bytes[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  if (!ok)
    return Status::Corrupt(fmt::format("{}: salt file must hold 32 hexadecimal digits", path));
  return SipKey::FromBytes(bytes);
}

Result<Salt> LoadOrCreateSalt(const std::string& path) {
  struct stat st;
  // lstat: a link (dangling or not) at the path is an existing entry, refused by ReadExisting.
  if (::lstat(path.c_str(), &st) == 0) return ReadExisting(path);
  if (errno != ENOENT)
    return Status::IoError(
        fmt::format("{}: cannot stat salt file: {}", path, std::strerror(errno)));

  unsigned char bytes[16];
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return Status::IoError(
          fmt::format("cannot read random bytes for {}: {}", path, std::strerror(errno)));
    got += static_cast<size_t>(n);
  }
  std::string hex;
  for (unsigned char c : bytes) hex += fmt::format("{:02x}", c);
  hex += '\n';

  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return Status::IoError(
        fmt::format("{}: cannot create salt file: {}", path, std::strerror(errno)));
  Status ws = WriteAll(fd, hex);
  ::close(fd);
  if (!ws.ok()) {
    ::unlink(tmp.c_str());
    return Status::IoError(fmt::format("{}: cannot write salt file: {}", path, ws.message()));
  }
  int rc = ::link(tmp.c_str(), path.c_str());
  int link_errno = errno;
  ::unlink(tmp.c_str());
  if (rc != 0) {
    if (link_errno == EEXIST) return ReadExisting(path);  // another run created it first
    return Status::IoError(
        fmt::format("{}: cannot create salt file: {}", path, std::strerror(link_errno)));
  }
  return Salt{SipKey::FromBytes(bytes), true};
}

}  // namespace ltl
