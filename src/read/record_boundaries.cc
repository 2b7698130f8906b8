// BoundaryScanner, PlanPieces, ScanFilePieces, OpenPiece (see record_boundaries.h).
#include "read/record_boundaries.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ltl {
namespace {

// Counts of `a` and `b` in p[0, n): a loop the compiler vectorises (8-bit counters per block of
// 255 bytes, so no widening in the inner loop).
void CountTwo(const char* p, size_t n, char a, char b, uint64_t* na, uint64_t* nb) {
  uint64_t ta = 0, tb = 0;
  while (n > 0) {
    const size_t m = std::min<size_t>(n, 255);
    uint8_t ca = 0, cb = 0;
    for (size_t i = 0; i < m; ++i) {
      ca = static_cast<uint8_t>(ca + (p[i] == a));
      cb = static_cast<uint8_t>(cb + (p[i] == b));
    }
    ta += ca;
    tb += cb;
    p += m;
    n -= m;
  }
  *na += ta;
  *nb += tb;
}

// "\r\n" pairs in p[0, n), the first byte's predecessor being a '\r' when prev_cr.
uint64_t CountCrLf(const char* p, size_t n, bool prev_cr) {
  if (n == 0) return 0;
  uint64_t pairs = prev_cr && p[0] == '\n';
  for (size_t i = 1; i < n; ++i) pairs += (p[i] == '\n') & (p[i - 1] == '\r');
  return pairs;
}

}  // namespace

BoundaryScanner::BoundaryScanner(RecordFraming framing, uint64_t piece_bytes, uint64_t total_bytes)
    : framing_(framing),
      piece_bytes_(piece_bytes),
      total_bytes_(total_bytes),
      header_done_(framing != RecordFraming::kCsv),
      threshold_(framing == RecordFraming::kCsv ? 0
                 : piece_bytes > 0              ? piece_bytes - 1
                                                : UINT64_MAX) {
  pieces_.push_back(FilePiece{});
}

void BoundaryScanner::Count(const char* p, size_t n) {
  if (n == 0) return;
  if (framing_ == RecordFraming::kCsv) {
    CountTwo(p, n, '"', '\n', &quotes_, &lines_);
    return;
  }
  uint64_t cr = 0, lf = 0;
  CountTwo(p, n, '\r', '\n', &cr, &lf);
  lines_ += cr + lf - (cr > 0 ? CountCrLf(p, n, last_cr_) : (last_cr_ && p[0] == '\n'));
  last_cr_ = p[n - 1] == '\r';
}

void BoundaryScanner::Boundary(uint64_t at) {
  if (!header_done_) {  // CSV: records before the header's end are never cut points
    // A blank record (the reader skips it): nothing, a lone '\r' or a quoted empty field (after
    // the UTF-8 BOM that the reader drops at the file's start).
    std::string_view h = rec_head_;
    if (first_record_ && h.substr(0, 3) == "\xEF\xBB\xBF") h.remove_prefix(3);
    first_record_ = false;
    header_done_ = h != "" && h != "\r" && h != "\"\"" && h != "\"\"\r";
    rec_head_.clear();
    if (!header_done_) return;
  } else if (at > threshold_) {
    if (total_bytes_ != kUnknownSize &&
        total_bytes_ - std::min(at, total_bytes_) <= JoinedTailMaxBytes(piece_bytes_)) {
      threshold_ = UINT64_MAX;  // the rest joins the piece before: no later cut
      return;
    }
    FilePiece piece;
    piece.begin = at;
    piece.first_line = lines_ + 1;
    pieces_.push_back(piece);
  } else {
    return;
  }
  // The next cut point: the first multiple of piece_bytes after `at`.
  threshold_ = piece_bytes_ > 0 ? (at / piece_bytes_ + 1) * piece_bytes_ - 1 : UINT64_MAX;
}

void BoundaryScanner::Serial(const char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const char c = p[i];
    const uint64_t at = offset_ + i;
    if (framing_ == RecordFraming::kCsv) {
      if (!header_done_ && c != '\n' && rec_head_.size() < 8) rec_head_ += c;
      if (c == '"') {
        ++quotes_;
      } else if (c == '\n') {
        ++lines_;
        if ((quotes_ & 1) == 0) Boundary(at + 1);
      }
    } else {
      if (c == '\n') {
        if (!last_cr_) ++lines_;
        last_cr_ = false;
        Boundary(at + 1);
      } else {
        lines_ += c == '\r';
        last_cr_ = c == '\r';
      }
    }
  }
}

void BoundaryScanner::Feed(std::string_view bytes) {
  const char* p = bytes.data();
  size_t n = bytes.size();
  while (n > 0) {
    size_t m;
    if (offset_ < threshold_) {
      m = static_cast<size_t>(std::min<uint64_t>(n, threshold_ - offset_));
      Count(p, m);
    } else {
      // One byte at a time until the cut point is found (Boundary raises the threshold).
      m = 1;
      Serial(p, 1);
    }
    offset_ += m;
    p += m;
    n -= m;
  }
}

std::vector<FilePiece> BoundaryScanner::Finish() {
  std::vector<FilePiece> out;
  for (const FilePiece& piece : pieces_)
    if (out.empty() || piece.begin < offset_) out.push_back(piece);
  for (size_t k = 0; k < out.size(); ++k) {
    out[k].index = static_cast<uint32_t>(k);
    out[k].end = k + 1 < out.size() ? out[k + 1].begin : offset_;
    out[k].last = k + 1 == out.size();
  }
  return out;
}

std::vector<FilePiece> PlanPieces(std::string_view bytes, RecordFraming framing,
                                  uint64_t piece_bytes) {
  BoundaryScanner scanner(framing, piece_bytes, bytes.size());
  scanner.Feed(bytes);
  return scanner.Finish();
}

namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

Result<size_t> ReadSome(int fd, char* buf, size_t cap) {
  for (;;) {
    const ssize_t n = ::read(fd, buf, cap);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno != EINTR)
      return Status::IoError(fmt::format("read failed: {}", std::strerror(errno)));
  }
}

class PieceStream : public InputStream {
 public:
  PieceStream(int fd, uint64_t size) : fd_(fd), size_(size) {}
  Result<size_t> Read(char* buf, size_t cap) override {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(cap, size_ - read_));
    if (want == 0) return size_t{0};
    auto n = ReadSome(fd_.get(), buf, want);
    if (n.ok()) read_ += *n;
    return n;
  }
  uint64_t raw_bytes_read() const override { return read_; }
  uint64_t raw_size() const override { return size_; }
  const char* encoding() const override { return "plain"; }

 private:
  Fd fd_;
  uint64_t size_;
  uint64_t read_ = 0;
};

}  // namespace

Result<std::vector<FilePiece>> ScanFilePieces(const std::string& path, RecordFraming framing,
                                              uint64_t piece_bytes) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0)
    return Status::IoError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
#if defined(POSIX_FADV_SEQUENTIAL)
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  struct stat st;
  const uint64_t size = ::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode)
                            ? static_cast<uint64_t>(st.st_size)
                            : kUnknownSize;
  BoundaryScanner scanner(framing, piece_bytes, size);
  std::string buf(4 << 20, '\0');
  for (;;) {
    auto n = ReadSome(fd.get(), buf.data(), buf.size());
    if (!n.ok()) return Status::IoError(fmt::format("{}: {}", path, n.status().message()));
    if (*n == 0) break;
    scanner.Feed(std::string_view(buf.data(), *n));
  }
  std::vector<FilePiece> pieces = scanner.Finish();
  for (FilePiece& p : pieces) p.path = path;
  return pieces;
}

Result<std::unique_ptr<InputStream>> OpenPiece(const FilePiece& piece) {
  const int fd = ::open(piece.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status::IoError(fmt::format("{}: cannot open: {}", piece.path, std::strerror(errno)));
  auto stream = std::make_unique<PieceStream>(fd, piece.end - piece.begin);
  if (::lseek(fd, static_cast<off_t>(piece.begin), SEEK_SET) < 0)
    return Status::IoError(
        fmt::format("{}: cannot seek to {}: {}", piece.path, piece.begin, std::strerror(errno)));
  return std::unique_ptr<InputStream>(std::move(stream));
}

}  // namespace ltl
