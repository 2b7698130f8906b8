// InputStream implementations over POSIX read(2), zlib's inflate (gzip, concatenated members,
// trailing zero padding as tape and dd tools leave it) and zstd's streaming decompressor
// (concatenated frames, skippable frames such as the index pzstd writes first). Truncated
// compressed data is an error.
#include "read/input_stream.h"

#include "read/postgres_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace ltl {
namespace {

class FdSource {
 public:
  FdSource(int fd, std::string name, uint64_t size)
      : fd_(fd), name_(std::move(name)), size_(size) {}
  ~FdSource() {
    if (fd_ >= 0) ::close(fd_);
  }
  Result<size_t> Read(char* buf, size_t cap) {
    for (;;) {
      ssize_t n = ::read(fd_, buf, cap);
      if (n >= 0) {
        read_ += static_cast<uint64_t>(n);
        return static_cast<size_t>(n);
      }
      if (errno == EINTR) continue;
      return Status::IoError(fmt::format("read failed: {}", std::strerror(errno)));
    }
  }
  const std::string& name() const { return name_; }
  uint64_t read_bytes() const { return read_; }
  uint64_t size() const { return size_; }

 private:
  int fd_;
  std::string name_;
  uint64_t size_;
  uint64_t read_ = 0;
};

// Bytes already read while sniffing the magic number are replayed before the rest of the source.
class PrefixedSource {
 public:
  PrefixedSource(std::unique_ptr<FdSource> src, std::string prefix)
      : src_(std::move(src)), prefix_(std::move(prefix)) {}
  Result<size_t> Read(char* buf, size_t cap) {
    if (pos_ < prefix_.size()) {
      size_t n = std::min(cap, prefix_.size() - pos_);
      std::memcpy(buf, prefix_.data() + pos_, n);
      pos_ += n;
      return n;
    }
    return src_->Read(buf, cap);
  }
  FdSource& fd() { return *src_; }

 private:
  std::unique_ptr<FdSource> src_;
  std::string prefix_;
  size_t pos_ = 0;
};

class PlainStream : public InputStream {
 public:
  explicit PlainStream(PrefixedSource src) : src_(std::move(src)) {}
  Result<size_t> Read(char* buf, size_t cap) override { return src_.Read(buf, cap); }
  uint64_t raw_bytes_read() const override {
    return const_cast<PrefixedSource&>(src_).fd().read_bytes();
  }
  uint64_t raw_size() const override { return const_cast<PrefixedSource&>(src_).fd().size(); }
  const char* encoding() const override { return "plain"; }

 private:
  PrefixedSource src_;
};

constexpr size_t kCompressedChunk = 1 << 18;

class GzipStream : public InputStream {
 public:
  explicit GzipStream(PrefixedSource src) : src_(std::move(src)), in_(kCompressedChunk) {
    std::memset(&zs_, 0, sizeof(zs_));
    inflateInit2(&zs_, 15 + 32);  // gzip or zlib header, auto-detected
  }
  ~GzipStream() override { inflateEnd(&zs_); }

  Result<size_t> Read(char* buf, size_t cap) override {
    if (done_) return size_t{0};
    zs_.next_out = reinterpret_cast<Bytef*>(buf);
    zs_.avail_out = static_cast<uInt>(cap);
    while (zs_.avail_out == cap) {
      if (zs_.avail_in == 0) {
        auto n = src_.Read(in_.data(), in_.size());
        if (!n.ok()) return n.status();
        if (*n == 0) {
          if (member_started_)
            return Status::Corrupt("truncated gzip data (unexpected end of file)");
          done_ = true;
          break;
        }
        zs_.next_in = reinterpret_cast<Bytef*>(in_.data());
        zs_.avail_in = static_cast<uInt>(*n);
      }
      if (!member_started_ && members_done_ > 0 && SkipZeroPadding()) continue;
      if (padding_)
        return Status::Corrupt("corrupt gzip data (non-zero bytes after the zero padding)");
      member_started_ = true;
      int rc = inflate(&zs_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        member_started_ = false;
        ++members_done_;
        inflateReset(&zs_);  // a concatenated member may follow
        continue;
      }
      if (rc != Z_OK && rc != Z_BUF_ERROR)
        return Status::Corrupt(
            fmt::format("corrupt gzip data ({})", zs_.msg ? zs_.msg : "inflate error"));
    }
    return cap - zs_.avail_out;
  }
  uint64_t raw_bytes_read() const override {
    return const_cast<PrefixedSource&>(src_).fd().read_bytes();
  }
  uint64_t raw_size() const override { return const_cast<PrefixedSource&>(src_).fd().size(); }
  const char* encoding() const override { return "gzip"; }

 private:
  // Between members: zero bytes after a complete member are padding (gzip(1) ignores them too,
  // "decompression OK, trailing zero bytes ignored"); consumes them and returns true while the
  // available input holds only zeros. A non-zero byte after padding is left for the caller.
  bool SkipZeroPadding() {
    if (!padding_ && zs_.next_in[0] != 0) return false;
    padding_ = true;
    while (zs_.avail_in > 0 && zs_.next_in[0] == 0) {
      ++zs_.next_in;
      --zs_.avail_in;
    }
    return zs_.avail_in == 0;
  }

  PrefixedSource src_;
  std::vector<char> in_;
  z_stream zs_;
  uint64_t members_done_ = 0;
  bool padding_ = false;
  bool member_started_ = false;
  bool done_ = false;
};

class ZstdStream : public InputStream {
 public:
  explicit ZstdStream(PrefixedSource src) : src_(std::move(src)), in_(ZSTD_DStreamInSize()) {
    ds_ = ZSTD_createDStream();
    ZSTD_initDStream(ds_);
  }
  ~ZstdStream() override { ZSTD_freeDStream(ds_); }

  Result<size_t> Read(char* buf, size_t cap) override {
    ZSTD_outBuffer out{buf, cap, 0};
    while (out.pos == 0) {
      if (input_.pos == input_.size) {
        auto n = src_.Read(in_.data(), in_.size());
        if (!n.ok()) return n.status();
        if (*n == 0) {
          if (frame_open_) return Status::Corrupt("truncated zstd data (unexpected end of file)");
          return size_t{0};
        }
        input_ = ZSTD_inBuffer{in_.data(), *n, 0};
      }
      size_t rc = ZSTD_decompressStream(ds_, &out, &input_);
      if (ZSTD_isError(rc))
        return Status::Corrupt(fmt::format("corrupt zstd data ({})", ZSTD_getErrorName(rc)));
      frame_open_ = rc != 0;
    }
    return out.pos;
  }
  uint64_t raw_bytes_read() const override {
    return const_cast<PrefixedSource&>(src_).fd().read_bytes();
  }
  uint64_t raw_size() const override { return const_cast<PrefixedSource&>(src_).fd().size(); }
  const char* encoding() const override { return "zstd"; }

 private:
  PrefixedSource src_;
  std::vector<char> in_;
  ZSTD_DStream* ds_;
  ZSTD_inBuffer input_{nullptr, 0, 0};
  bool frame_open_ = false;
};

}  // namespace

Result<std::unique_ptr<InputStream>> OpenInput(const std::string& path) {
  if (IsPostgresUri(path)) return OpenPostgres(path, PostgresQueryOptions{});
  int fd;
  std::string name = path;
  uint64_t size = 0;
  if (path == "-") {
    fd = ::dup(STDIN_FILENO);
    name = "<stdin>";
    if (fd < 0)
      return Status::IoError(fmt::format("<stdin>: cannot read: {}", std::strerror(errno)));
  } else {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return Status::IoError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
    struct stat st;
    if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
      ::close(fd);
      return Status::IoError(fmt::format("{}: is a directory, not a file", path));
    }
    if (S_ISREG(st.st_mode)) size = static_cast<uint64_t>(st.st_size);
  }
  auto src = std::make_unique<FdSource>(fd, name, size);
  // Sniff up to 4 magic bytes.
  std::string magic(4, '\0');
  size_t got = 0;
  while (got < 4) {
    auto n = src->Read(magic.data() + got, 4 - got);
    if (!n.ok()) return Status::IoError(fmt::format("{}:1: {}", name, n.status().message()));
    if (*n == 0) break;
    got += *n;
  }
  magic.resize(got);
  PrefixedSource pre(std::move(src), magic);
  const auto* m = reinterpret_cast<const unsigned char*>(magic.data());
  if (got >= 2 && m[0] == 0x1f && m[1] == 0x8b)
    return std::unique_ptr<InputStream>(new GzipStream(std::move(pre)));
  if (got >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd)
    return std::unique_ptr<InputStream>(new ZstdStream(std::move(pre)));
  // A zstd skippable frame (magic 0x184D2A50..0x184D2A5F, little-endian), as pzstd writes before
  // the data frames; the decompressor skips it.
  if (got >= 4 && (m[0] & 0xf0) == 0x50 && m[1] == 0x2a && m[2] == 0x4d && m[3] == 0x18)
    return std::unique_ptr<InputStream>(new ZstdStream(std::move(pre)));
  return std::unique_ptr<InputStream>(new PlainStream(std::move(pre)));
}

Result<size_t> PeekedStream::Read(char* buf, size_t cap) {
  if (progress_) progress_(in_->raw_bytes_read(), in_->raw_size());
  if (pos_ < head_.size()) {
    size_t n = std::min(cap, head_.size() - pos_);
    std::memcpy(buf, head_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  return in_->Read(buf, cap);
}

bool RefillWindow(InputStream* in, std::string* buf, size_t* begin, size_t* end, bool* eof,
                  Status* error) {
  if (*eof) return false;
  if (*begin > 0) {
    std::memmove(buf->data(), buf->data() + *begin, *end - *begin);
    *end -= *begin;
    *begin = 0;
  }
  if (*end == buf->size()) buf->resize(buf->size() * 2);
  auto n = in->Read(buf->data() + *end, buf->size() - *end);
  if (!n.ok()) {
    *error = n.status();
    *eof = true;
    return false;
  }
  if (*n == 0) {
    *eof = true;
    return false;
  }
  *end += *n;
  return true;
}

bool RefillWindowFull(InputStream* in, std::string* buf, size_t* begin, size_t* end, bool* eof,
                      Status* error) {
  if (!RefillWindow(in, buf, begin, end, eof, error)) return false;
  while (*end < buf->size() && !*eof) {
    auto n = in->Read(buf->data() + *end, buf->size() - *end);
    if (!n.ok()) {
      *error = n.status();
      *eof = true;
      return false;
    }
    if (*n == 0) *eof = true;
    *end += *n;
  }
  return true;
}

LineReader::LineReader(InputStream* in, size_t max_line_bytes, size_t buffer_bytes)
    : in_(in), max_line_(max_line_bytes) {
  buf_.resize(std::max<size_t>(buffer_bytes, 64));
}

bool LineReader::Fill() {
  return RefillWindow(in_, &buf_, &begin_, &end_, &eof_, &error_);
}

LineReader::Outcome LineReader::Next(std::string_view* line) {
  if (!error_.ok()) return Outcome::kError;
  size_t scan = begin_;
  bool too_long = false;
  for (;;) {
    const char* nl = static_cast<const char*>(std::memchr(buf_.data() + scan, '\n', end_ - scan));
    if (nl) {
      size_t pos = static_cast<size_t>(nl - buf_.data());
      ++line_number_;
      if (too_long) {
        begin_ = pos + 1;
        return Outcome::kTooLong;
      }
      *line = std::string_view(buf_.data() + begin_, pos - begin_);
      begin_ = pos + 1;
      return Outcome::kLine;
    }
    if (end_ - begin_ > max_line_) {
      // Discard what we have of the over-long line and keep scanning for its end.
      too_long = true;
      begin_ = end_;
    }
    scan = end_;
    size_t old_begin = begin_;
    if (!Fill()) {
      if (!error_.ok()) return Outcome::kError;
      if (too_long) {
        ++line_number_;
        begin_ = end_;
        return Outcome::kTooLong;
      }
      if (end_ > begin_) {
        ++line_number_;
        *line = std::string_view(buf_.data() + begin_, end_ - begin_);
        begin_ = end_;
        return Outcome::kLine;
      }
      return Outcome::kEnd;
    }
    scan -= old_begin - begin_;  // Fill() moved the data to the front
  }
}

}  // namespace ltl
